import assert from 'node:assert/strict';
import { test } from 'node:test';
import { shortenText } from './shorten-text.js';

test('shortenText keeps short text on one line and cuts long text at a word, with an ellipsis', () => {
  assert.equal(shortenText('  a\n short \t text ', 20), 'a short text');
  assert.equal(shortenText('the quick brown fox jumps over the lazy dog', 20), 'the quick brown fox…');
  assert.equal(shortenText('abcdefghijklmnopqrstuvwxyz', 10), 'abcdefghi…', 'no space in the second half: cut in the word');
  assert.equal(shortenText('abcdefgh😀 tail', 10), 'abcdefgh…', 'never half a surrogate pair');
});
