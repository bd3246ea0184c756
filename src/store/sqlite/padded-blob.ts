/**
 * Blobs (and large JSON texts) stored with room to grow, so that rewriting one in place writes only the pages whose
 * bytes changed.
 *
 * SQLite overwrites a row whose new payload has the size of the old one in place, page by page, and skips the pages
 * whose bytes are equal (a 13 MB blob with its last 1 % changed: 0.1 MB of write-ahead log). A row of another size gets
 * a new chain of overflow pages, and with `secure_delete` the old chain is zeroed as well: the 1 % larger 13 MB blob
 * wrote 26 MB of log, took twice as long to write and ten times as long to fold into the file. An update rewrites the
 * index's large blobs a little larger or smaller each time, so a blob is stored padded to a capacity with a sixteenth
 * to spare, and keeps that capacity while its content fits in it and fills more than half of it.
 *
 * Layout: the content, zeros, then a footer of {@link footerBytes}: the magic `kgrag-pd` and the content's length
 * (64-bit little-endian). A blob without the footer (small ones, and those written before) is its content.
 */

/** Values smaller than this are stored as they are: they fit in a few pages. */
export const minPaddedBytes = 256 * 1024;

/** The byte length of the value stored under the key now, if any: asked only of a value that is padded. */
export type StoredBytes = () => number | undefined;

const magic = Buffer.from('kgrag-pd', 'latin1');
const footerBytes = magic.length + 8;
/** Capacities are whole pages of the largest size SQLite allows, so that padding never leaves a page half used. */
const capacityStep = 64 * 1024;

/** The stored size for `needed` bytes: the stored one while they fit in it and fill more than half of it, else a new one. */
function capacityFor(needed: number, storedBytes: StoredBytes): number {
  const stored = storedBytes();
  if (stored !== undefined && stored >= needed && needed * 2 > stored) return stored;
  return Math.ceil((needed + needed / 16) / capacityStep) * capacityStep;
}

/** The stored form of `content`. */
export function paddedBlob(content: Uint8Array, storedBytes: StoredBytes): Buffer {
  const needed = content.byteLength + footerBytes;
  if (content.byteLength < minPaddedBytes) return Buffer.from(content.buffer, content.byteOffset, content.byteLength);
  const capacity = capacityFor(needed, storedBytes);
  const blob = Buffer.alloc(capacity);
  blob.set(content, 0);
  magic.copy(blob, capacity - footerBytes);
  blob.writeBigUInt64LE(BigInt(content.byteLength), capacity - 8);
  return blob;
}

/** The content of a stored blob: a view of `stored` without its padding and footer, or `stored` itself when it has none. */
export function blobContent(stored: Uint8Array): Uint8Array {
  if (stored.byteLength < minPaddedBytes + footerBytes) return stored;
  const footer = stored.byteLength - footerBytes;
  for (let index = 0; index < magic.length; index++) if (stored[footer + index] !== magic[index]) return stored;
  const length = Number(Buffer.from(stored.buffer, stored.byteOffset + footer + magic.length, 8).readBigUInt64LE(0));
  return length <= footer ? new Uint8Array(stored.buffer, stored.byteOffset, length) : stored;
}

/**
 * The stored form of a large JSON text (a meta record of per-entity digests is megabytes, and an update rewrites it):
 * padded with spaces, which JSON ignores, to a capacity in UTF-8 bytes chosen as a blob's is.
 */
export function paddedJson(json: string, storedBytes: StoredBytes): string {
  // A code unit is at most 3 bytes of UTF-8: a shorter text is small without being measured.
  if (json.length < minPaddedBytes / 3) return json;
  const needed = Buffer.byteLength(json, 'utf8');
  if (needed < minPaddedBytes) return json;
  return json + ' '.repeat(capacityFor(needed, storedBytes) - needed);
}
