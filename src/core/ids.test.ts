import assert from 'node:assert/strict';
import { test } from 'node:test';
import { contentId } from './ids.js';

test('a list part hashes like its values given one by one, and may hold 200,000 of them', () => {
  const small = ['a', 'b', 3];
  assert.equal(contentId('kind', small), contentId('kind', 'a', 'b', 3));
  assert.equal(contentId('kind', 'x', small, 'y'), contentId('kind', 'x', 'a', 'b', 3, 'y'));
  assert.equal(contentId('kind', []), contentId('kind'));
  assert.notEqual(contentId('kind', ['ab', 'c']), contentId('kind', ['a', 'bc']));
  const parts = Array.from({ length: 200_000 }, (_, index) => `id-${index}`);
  const id = contentId('kind', parts);
  assert.match(id, /^[0-9a-f]{32}$/);
  assert.equal(contentId('kind', new Set(parts)), id, 'any iterable');
  assert.notEqual(contentId('kind', parts.slice(1)), id);
});

test('ids are those of earlier versions, so existing indexes keep their ids', () => {
  assert.equal(contentId('chunk', 'doc', 0, 12), '411ce071703a29e774ffd43177fe7043');
  assert.equal(contentId('chunks', Array.from({ length: 1000 }, (_, index) => `c${index}`)), 'd575f860250b31cdccb27f47cc7287ae');
});
