import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseCsv } from './parse-csv.js';

describe('parseCsv', () => {
  it('parses quoted fields with commas, escaped quotes and line breaks', () => {
    const csv = 'a,b,c\r\n"x, y","say ""hi""","line1\r\nline2"\n1,,3';
    assert.deepEqual(parseCsv(csv), {
      rows: [
        ['a', 'b', 'c'],
        ['x, y', 'say "hi"', 'line1\r\nline2'],
        ['1', '', '3'],
      ],
      rowLines: [1, 2, 4],
      unclosedQuoteLine: undefined,
      unclosedQuoteRow: undefined,
      lineCount: 4,
    });
  });

  it('skips a leading BOM and accepts CR, LF and CRLF record ends', () => {
    assert.deepEqual(parseCsv('\uFEFFh1,h2\ra,b\nc,d\r\n').rows, [
      ['h1', 'h2'],
      ['a', 'b'],
      ['c', 'd'],
    ]);
  });

  it('keeps trailing empty fields and blank lines as one empty field', () => {
    assert.deepEqual(parseCsv('a,\n\nb').rows, [['a', ''], [''], ['b']]);
  });

  it('is lenient with stray quotes and reports an unclosed quote', () => {
    assert.deepEqual(parseCsv('5" disk,"ok"x').rows, [['5" disk', 'okx']]);
    assert.deepEqual(parseCsv('a,b\n1,"open\nnever closed'), {
      rows: [['a', 'b'], ['1', 'open\nnever closed']],
      rowLines: [1, 2],
      unclosedQuoteLine: 2,
      unclosedQuoteRow: 1,
      lineCount: 3,
    });
  });

  it('counts lines at CRLF, LF and a lone CR, and a trailing line break starts no line', () => {
    const parsed = parseCsv('h\r\na\rb\n"c\nd"\ne\n');
    assert.deepEqual(parsed.rowLines, [1, 2, 3, 4, 6]);
    assert.equal(parsed.lineCount, 6);
  });

  it('supports other delimiters and empty input', () => {
    assert.deepEqual(parseCsv('a\tb\n1\t2', '\t').rows, [
      ['a', 'b'],
      ['1', '2'],
    ]);
    assert.deepEqual(parseCsv('').rows, []);
  });
});
