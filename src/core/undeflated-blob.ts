import { inflateRawSync } from 'node:zlib';

/**
 * First byte of a blob stored undeflated: not the start of a raw deflate stream (block type 3 is reserved), which tells it
 * from the same record stored deflated by an earlier version. Records that every update reads and writes whole are not
 * deflated any more: compressing them cost more than writing and reading the bytes it saved.
 */
const undeflatedMark = 0xff;

/** `parts`, one after another, as a blob marked undeflated. */
export function undeflatedBlob(parts: readonly Uint8Array[]): Buffer {
  return Buffer.concat([Uint8Array.of(undeflatedMark), ...parts]);
}

/**
 * The bytes of a blob {@link undeflatedBlob} wrote (a view, not a copy), or of one stored deflated before it (inflated).
 * Throws when the bytes are neither.
 */
export function undeflatedBytes(blob: Uint8Array): Buffer {
  return blob[0] === undeflatedMark ? Buffer.from(blob.buffer, blob.byteOffset + 1, blob.byteLength - 1) : inflateRawSync(blob);
}
