import { createHash, timingSafeEqual } from 'node:crypto';

/** Checks bearer tokens against the configured API keys. */
export interface ApiKeys {
  /** Whether any key is configured (without keys, the server only listens on loopback). */
  readonly required: boolean;
  /**
   * The caller's key name (`key-1`, `key-2`, … in configuration order: what logs and rate limits use, never the
   * key), or undefined when the token matches no key.
   */
  identify(token: string): string | undefined;
}

const digest = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();

/**
 * Keys are compared as SHA-256 digests with `timingSafeEqual`, and every key is compared on every call: neither
 * the length of a key nor which key matched, nor how much of it, shows in the response time.
 */
export function createApiKeys(keys: readonly string[]): ApiKeys {
  const digests = keys.map(digest);
  return {
    required: digests.length > 0,
    identify(token) {
      const presented = digest(token);
      let match = -1;
      for (let index = 0; index < digests.length; index++) {
        if (timingSafeEqual(presented, digests[index] as Buffer) && match < 0) match = index;
      }
      return match < 0 ? undefined : `key-${match + 1}`;
    },
  };
}
