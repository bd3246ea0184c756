import assert from 'node:assert/strict';
import { test } from 'node:test';
import { deflateRawSync } from 'node:zlib';
import { undeflatedBlob, undeflatedBytes } from './undeflated-blob.js';

test('a blob written undeflated reads back its parts; one stored deflated before reads back inflated; other bytes throw', () => {
  const parts = [Buffer.from('head'), Uint8Array.of(1, 2, 3)];
  assert.deepEqual([...undeflatedBytes(undeflatedBlob(parts))], [...Buffer.concat(parts)]);
  assert.equal(undeflatedBytes(deflateRawSync(Buffer.from('{"kester":"k1"}'))).toString('utf8'), '{"kester":"k1"}');
  assert.throws(() => undeflatedBytes(Uint8Array.of(0xfe, 1, 2)));
});
