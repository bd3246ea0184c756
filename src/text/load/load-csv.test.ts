import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { describe, it } from 'node:test';
import { loadCsv } from './load-csv.js';

const fixture = new URL('../../../test/fixtures/text/records.csv', import.meta.url);
const file = { source: 'data/records.csv', fileName: 'records.csv' };

describe('loadCsv', () => {
  it('reads quoted commas, escaped quotes, embedded CRLF and a BOM; skips blank lines and empty text', async () => {
    const { documents, warnings } = loadCsv(await readFile(fixture, 'utf8'), file, {});
    assert.deepEqual(
      documents.map(({ title, source, text, metadata }) => ({ title, source, text, metadata })),
      [
        { title: 'Smith, John', source: 'data/records.csv#1', text: 'He said "hi".\nThen left.', metadata: { notes: 'plain' } },
        { title: 'Second', source: 'data/records.csv#2', text: 'Quoted, with comma', metadata: { notes: '' } },
      ],
    );
    assert.equal(warnings.length, 1);
    assert.equal(warnings[0]?.code, 'empty');
    assert.match(warnings[0]?.message ?? '', /row 3/);
  });

  it('names missing and repeated columns and uses custom fields', () => {
    const raw = 'key,body,,key\nk1,Text one.,x,y\nk2,Text two.,extra,z\n';
    const { documents, warnings } = loadCsv(raw, file, { idField: 'key' });
    assert.deepEqual(
      documents.map(({ source, text, metadata }) => ({ source, text, metadata })),
      [
        { source: 'data/records.csv#k1', text: 'Text one.', metadata: { column_3: 'x', key_2: 'y' } },
        { source: 'data/records.csv#k2', text: 'Text two.', metadata: { column_3: 'extra', key_2: 'z' } },
      ],
    );
    assert.deepEqual(warnings, []);
  });

  it('reads TSV and skips a row whose quoted field never closes, saying so', () => {
    const tsv = loadCsv('text\ttitle\nTab separated.\tT\n', file, {}, '\t');
    assert.equal(tsv.documents[0]?.title, 'T');
    const broken = loadCsv('text\nfine\n"never closed\nmore\n', file, {});
    assert.deepEqual(broken.documents.map((document) => document.text), ['fine']);
    assert.equal(broken.warnings.length, 1);
    assert.equal(broken.warnings[0]?.code, 'parse-error');
    assert.match(broken.warnings[0]?.message ?? '', /row 2 has a quoted field, starting on line 3, that is never closed.*lines 3–4.*skipped/);
  });

  it('detects a semicolon delimiter from the header, and names it when a row has extra cells', () => {
    const raw = 'title;text;year\nKester Weir Bridge;Opened on 14 May 1938, rebuilt in 1952.;1938\nQuaymark;Founded by two graduates, in 2008.;2008\nBroken;a;b;c\n';
    const { documents, warnings } = loadCsv(raw, file, {});
    assert.deepEqual(
      documents.map(({ title, text, metadata }) => ({ title, text, metadata })),
      [
        { title: 'Kester Weir Bridge', text: 'Opened on 14 May 1938, rebuilt in 1952.', metadata: { year: '1938' } },
        { title: 'Quaymark', text: 'Founded by two graduates, in 2008.', metadata: { year: '2008' } },
      ],
    );
    assert.equal(warnings.length, 1);
    assert.match(warnings[0]?.message ?? '', /row 3 \(line 4\) has 4 cells but the header has 3 columns, so it was skipped; quote fields that contain the delimiter, a semicolon \("a; b"\)/);
  });
});
