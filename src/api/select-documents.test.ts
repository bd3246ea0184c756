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
