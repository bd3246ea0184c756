import assert from 'node:assert/strict';
import { test } from 'node:test';
import { blobContent, minPaddedBytes, paddedBlob, paddedJson } from './padded-blob.js';

const bytes = (length: number, seed = 1): Uint8Array => Uint8Array.from({ length }, (_, index) => (index * 31 + seed) & 0xff);

test('a large blob is stored with room to spare and read back as its content; a small one is stored as it is', () => {
  const content = bytes(minPaddedBytes * 3);
  const stored = paddedBlob(content, () => undefined);
  assert.ok(stored.byteLength > content.byteLength + content.byteLength / 16, `capacity ${stored.byteLength}`);
  assert.deepEqual(blobContent(stored), content);
  const small = bytes(1000);
  assert.equal(paddedBlob(small, () => undefined).byteLength, 1000);
  assert.deepEqual(new Uint8Array(blobContent(paddedBlob(small, () => undefined))), small);
});

test('a rewrite keeps the stored capacity while the content fits and fills more than half of it, so the row keeps its size', () => {
  const first = paddedBlob(bytes(minPaddedBytes * 4), () => undefined);
  const grown = paddedBlob(bytes(minPaddedBytes * 4 + 5000, 2), () => first.byteLength);
  assert.equal(grown.byteLength, first.byteLength, 'grown a little: same size');
  assert.deepEqual(blobContent(grown), bytes(minPaddedBytes * 4 + 5000, 2));
  const shrunk = paddedBlob(bytes(minPaddedBytes * 3, 3), () => first.byteLength);
  assert.equal(shrunk.byteLength, first.byteLength, 'shrunk a little: same size');
  // What the longer content left behind is zeroed: no byte of it stays in the row.
  assert.ok(shrunk.subarray(minPaddedBytes * 3, shrunk.byteLength - 16).every((byte) => byte === 0));
  assert.ok(paddedBlob(bytes(minPaddedBytes * 5), () => first.byteLength).byteLength > first.byteLength, 'outgrown: a larger capacity');
  assert.ok(paddedBlob(bytes(minPaddedBytes), () => first.byteLength).byteLength < first.byteLength, 'less than half full: a smaller one');
});

test('a blob written before padding, without the footer, reads as it is', () => {
  const legacy = bytes(minPaddedBytes * 2);
  assert.equal(blobContent(legacy), legacy);
});

test('a large JSON text is padded with spaces to a capacity in UTF-8 bytes, kept while it fits, and parses as it was', () => {
  const record = { names: Array.from({ length: 30_000 }, (_, index) => `entité ${index}`) };
  const json = JSON.stringify(record);
  const stored = paddedJson(json, () => undefined);
  const capacity = Buffer.byteLength(stored, 'utf8');
  assert.ok(capacity > Buffer.byteLength(json, 'utf8'));
  assert.deepEqual(JSON.parse(stored), record);
  const grown = JSON.stringify({ names: [...record.names, 'é'.repeat(500)] });
  assert.equal(Buffer.byteLength(paddedJson(grown, () => capacity), 'utf8'), capacity, 'the same size in bytes, accents and all');
  assert.equal(paddedJson('{"small":1}', () => undefined), '{"small":1}');
  // The stored size is asked only of a value that is padded: a small one costs no read of the store.
  const unasked = (): number => assert.fail('the stored size was asked of a small value');
  assert.equal(paddedJson('{"small":1}', unasked), '{"small":1}');
  assert.equal(paddedBlob(bytes(1000), unasked).byteLength, 1000);
});
