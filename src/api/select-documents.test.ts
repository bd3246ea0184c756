import assert from 'node:assert/strict';
import { test } from 'node:test';
import { selectDocuments } from './select-documents.js';

const documents = [
  { id: 'a1b2c3d4e5f6', title: 'Alpha', source: '/corpus/notes/alpha.md' },
  { id: 'a1b2c3d4ffff', title: 'Beta', source: '/corpus/notes/drafts/beta.md' },
  { id: '0123456789ab', title: 'Notes [draft]', source: '/corpus/data.jsonl#7' },
  { id: '99999999aaaa', title: 'Gamma', source: 'inline:Gamma' },
];
const ids = (selectors: string[], cwd = '/corpus'): string[] => selectDocuments(documents, selectors, cwd).documents.map((document) => document.id);

test('a selector chooses by id, unique id prefix, title, source, folder, data file or glob', () => {
  assert.deepEqual(ids(['0123456789ab']), ['0123456789ab']);
  assert.deepEqual(ids(['99999999']), ['99999999aaaa']);
  assert.deepEqual(ids(['a1b2c3d4']), [], 'a prefix two documents share chooses neither');
  assert.deepEqual(ids(['a1b2c3']), [], 'a prefix shorter than 8 characters chooses nothing');
  assert.deepEqual(ids(['Gamma']), ['99999999aaaa']);
  assert.deepEqual(ids(['notes/alpha.md']), ['a1b2c3d4e5f6'], 'a path relative to the working directory');
  assert.deepEqual(ids(['/corpus/notes/']), ['a1b2c3d4e5f6', 'a1b2c3d4ffff'], 'a folder chooses everything under it');
  assert.deepEqual(ids(['data.jsonl']), ['0123456789ab'], 'a data file chooses its records');
  assert.deepEqual(ids(['**/drafts/*.md']), ['a1b2c3d4ffff']);
  assert.deepEqual(ids(['*.md']), ['a1b2c3d4e5f6', 'a1b2c3d4ffff'], 'a glob without a slash matches file names');
  assert.deepEqual(ids(['Notes [draft]']), ['0123456789ab'], 'an exact title wins over reading it as a glob');
});

test('each document is chosen once, in index order, and selectors that choose nothing are reported', () => {
  const selection = selectDocuments(documents, ['Gamma', '*.md', 'Alpha', 'missing.txt'], '/corpus');
  assert.deepEqual(
    selection.documents.map((document) => document.title),
    ['Alpha', 'Beta', 'Gamma'],
  );
  assert.deepEqual(selection.unmatched, ['missing.txt']);
});

test('thousands of selectors over thousands of documents each choose their own, and a shared prefix chooses none', () => {
  const many = Array.from({ length: 5_000 }, (_, index) => ({
    id: `${index.toString(16).padStart(8, '0')}c0ffee`,
    title: `Title ${index}`,
    source: `/corpus/part-${index % 7}/file-${index}.md#${index % 3}`,
  }));
  const wanted = many.filter((_, index) => index % 5 === 0);
  const selection = selectDocuments(many, [...wanted.map((document) => document.source.split('#')[0] as string), 'Title 3', '00000fa0', '0000'], '/');
  assert.deepEqual(
    selection.documents.map((document) => document.title),
    many.filter((_, index) => index % 5 === 0 || index === 3 || index === 0xfa0).map((document) => document.title),
  );
  assert.deepEqual(selection.unmatched, ['0000']);
  assert.equal(selectDocuments(many, ['/corpus/part-2'], '/').documents.length, many.filter((_, index) => index % 7 === 2).length);
  assert.deepEqual(selectDocuments(many, ['/corpus/part'], '/').unmatched, ['/corpus/part'], 'a path is a whole folder name, not a prefix of one');
});

test('a folder and a folder inside it each choose what is under them, and one selector may name a document two ways', () => {
  const selection = selectDocuments(documents, ['/corpus/notes', 'notes/drafts', 'Beta', '/corpus/data.jsonl#7'], '/corpus');
  assert.deepEqual(
    selection.documents.map((document) => document.title),
    ['Alpha', 'Beta', 'Notes [draft]'],
  );
  assert.deepEqual(selection.unmatched, []);
  assert.deepEqual(ids(['a1b2c3d4e5f6', 'Alpha']), ['a1b2c3d4e5f6'], 'an id and a title of the same document');
});
