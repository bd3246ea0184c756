import assert from 'node:assert/strict';
import { test } from 'node:test';
import { KgragError } from '../core/errors.js';
import type { AnyTableSpec } from './schema.js';
import { assertVectorSpaceName, validatePluginTables, validatePluginVectorSpaces } from './store-extensions.js';
import { builtInVectorSpaces } from './store.js';

const scores: AnyTableSpec = { sqlName: 'my_scores', key: ['id'], hid: true, columns: { id: { type: 'text' }, score: { type: 'real' } } };

function refused(run: () => unknown, code: string, pattern: RegExp): void {
  assert.throws(run, (error: unknown) => KgragError.isInstance(error) && error.code === code && pattern.test(`${error.message} ${error.hint ?? ''}`));
}

test('a plugin table with a safe name, known column types and a key of its columns is accepted', () => {
  assert.deepEqual(validatePluginTables({ myScores: scores }), { myScores: scores });
  assert.deepEqual(validatePluginTables(undefined), {});
});

test('plugin tables that clash with built-in or backend tables, or are not safe SQL, are refused with the fix', () => {
  refused(() => validatePluginTables({ chunks: scores }), 'STORE_INVALID_EXTENSION', /"chunks" is a built-in table/);
  refused(() => validatePluginTables({ myChunks: { ...scores, sqlName: 'chunks' } }), 'STORE_INVALID_EXTENSION', /taken/);
  refused(() => validatePluginTables({ myMeta: { ...scores, sqlName: 'meta' } }), 'STORE_INVALID_EXTENSION', /taken/);
  refused(() => validatePluginTables({ myVectors: { ...scores, sqlName: 'vec_chunks_keys' } }), 'STORE_INVALID_EXTENSION', /taken/);
  refused(() => validatePluginTables({ a: scores, b: scores }), 'STORE_INVALID_EXTENSION', /another of its tables/);
  refused(() => validatePluginTables({ 'my-scores': scores }), 'STORE_INVALID_EXTENSION', /camelCase/);
  refused(() => validatePluginTables({ myScores: { ...scores, sqlName: 'x; DROP TABLE meta' } }), 'STORE_INVALID_EXTENSION', /use "my_scores"/);
  refused(() => validatePluginTables({ myScores: { ...scores, columns: { ...scores.columns, hid: { type: 'integer' } } } }), 'STORE_INVALID_EXTENSION', /column "hid"/);
  refused(() => validatePluginTables({ myScores: { ...scores, columns: { id: { type: 'blob' as 'text' } } } }), 'STORE_INVALID_EXTENSION', /one of text, integer, real, json/);
  refused(() => validatePluginTables({ myScores: { ...scores, key: ['missing'] } }), 'STORE_INVALID_EXTENSION', /key/);
  refused(() => validatePluginTables({ myScores: { ...scores, fullText: ['id'] } }), 'STORE_INVALID_EXTENSION', /full-text/);
});

test('vector space names: lower-case identifiers only; a plugin may not take a built-in space', () => {
  for (const space of builtInVectorSpaces) assertVectorSpaceName(space);
  assertVectorSpaceName('my_space2');
  for (const space of ['Chunks', 'my-space', '2nd', 'a'.repeat(41), "x'; --"]) refused(() => assertVectorSpaceName(space), 'STORE_INVALID_VECTOR_SPACE', /lower-case letters/);
  validatePluginVectorSpaces(['my_space']);
  refused(() => validatePluginVectorSpaces(['chunks']), 'STORE_INVALID_EXTENSION', /built-in space/);
  refused(() => validatePluginVectorSpaces(['mine', 'mine']), 'STORE_INVALID_EXTENSION', /twice/);
});
