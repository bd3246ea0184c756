import { createHash } from 'node:crypto';

/** One part of a {@link contentId}: a value, or a list of values that count as parts in order. */
export type ContentIdPart = string | number | Iterable<string | number>;

/**
 * Stable content-derived id: the first 128 bits of SHA-256 over a kind tag and the parts,
 * separated by NUL so that `("ab","c")` and `("a","bc")` differ. Same input, same id, on every run
 * and machine — kgrag never uses random ids.
 *
 * A list part is flattened, so `contentId(kind, [a, b], c)` equals `contentId(kind, a, b, c)`. Pass lists
 * of unbounded length that way, never spread into the call: a spread of more than ~120,000 arguments
 * overflows the stack.
 */
export function contentId(
  kind: string,
  ...parts: readonly ContentIdPart[]
): string {
  const hash = createHash('sha256');
  hash.update(kind);
  for (const part of parts) {
    if (typeof part === 'string' || typeof part === 'number') {
      hash.update('\u0000');
      hash.update(String(part));
      continue;
    }
    for (const item of part) {
      hash.update('\u0000');
      hash.update(String(item));
    }
  }
  return hash.digest('hex').slice(0, 32);
}

/** SHA-256 of a text, hex encoded; used for document content hashes and cache keys. */
export function sha256(text: string | Uint8Array): string {
  return createHash('sha256').update(text).digest('hex');
}
