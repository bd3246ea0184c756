import { createHash, timingSafeEqual } from 'node:crypto';
import type { ServerConfig } from '../core/config/config-schema.js';

/** What a key may do: `read` asks, `write` also changes documents and jobs, `admin` also creates workspaces. */
export type KeyRole = 'read' | 'write' | 'admin';

const roleRank: Record<KeyRole, number> = { read: 0, write: 1, admin: 2 };

/** Whether a key of role `held` may do what needs `needed`. */
export function roleAllows(held: KeyRole, needed: KeyRole): boolean {
  return roleRank[held] >= roleRank[needed];
}

/** The caller a key names: what logs and limits call it, and what it may reach. */
export interface KeyGrant {
  /** `key-1`, `key-2`, … in configuration order, or the entry's `name`: never the key. */
  name: string;
  /** The workspaces it may use, or `*` for all. */
  workspaces: ReadonlySet<string> | '*';
  role: KeyRole;
}

/** Whether `grant` may use the workspace `name`. */
export function grantCovers(grant: KeyGrant, name: string): boolean {
  return grant.workspaces === '*' || grant.workspaces.has(name);
}

/** Checks bearer tokens against the configured API keys. */
export interface ApiKeys {
  /** Whether any key is configured (without keys, the server only listens on loopback). */
  readonly required: boolean;
  /** The grant of the key `token` is, or undefined when it is none of them. */
  identify(token: string): KeyGrant | undefined;
}

/** The SHA-256 of a key as configuration holds it (`keyHash`), what `kgrag keys hash` prints. */
export function apiKeyHash(key: string): string {
  return `sha256:${createHash('sha256').update(key, 'utf8').digest('hex')}`;
}

const digest = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();

/**
 * Keys are compared as SHA-256 digests with `timingSafeEqual`, and every key is compared on every call: neither
 * the length of a key nor which key matched, nor how much of it, shows in the response time. A plain string is a key
 * for every workspace with every role (what `server.apiKeys` held before keys had scopes).
 */
export function createApiKeys(keys: ServerConfig['apiKeys']): ApiKeys {
  const entries = keys.map((entry, index) => {
    if (typeof entry === 'string') return { digest: digest(entry), grant: { name: `key-${index + 1}`, workspaces: '*' as const, role: 'admin' as const } };
    const stored = entry.keyHash === undefined ? digest(entry.key ?? '') : Buffer.from(entry.keyHash.slice('sha256:'.length), 'hex');
    const workspaces = entry.workspaces.includes('*') ? ('*' as const) : new Set(entry.workspaces);
    return { digest: stored, grant: { name: entry.name ?? `key-${index + 1}`, workspaces, role: entry.role } };
  });
  return {
    required: entries.length > 0,
    identify(token) {
      const presented = digest(token);
      let match: KeyGrant | undefined;
      for (const entry of entries) {
        if (timingSafeEqual(presented, entry.digest) && match === undefined) match = entry.grant;
      }
      return match;
    },
  };
}
