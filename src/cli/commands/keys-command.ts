import { randomBytes } from 'node:crypto';
import { stringify } from 'yaml';
import { KgragError } from '../../core/errors.js';
import { apiKeyHash, type KeyRole } from '../../server/api-keys.js';
import { type CliIo, writeLine } from '../cli-io.js';

/** Options of `kgrag keys create`. */
export interface KeysCreateOptions {
  /** Comma-separated workspace names; all when omitted. */
  workspaces?: string;
  role?: KeyRole;
  name?: string;
}

/**
 * `kgrag keys create`: a new random key, printed once on stdout, and on stderr the entry of `server.apiKeys` that
 * admits it — its SHA-256, so that kgrag.yaml need not hold the key. kgrag writes the key nowhere.
 */
export function keysCreateCommand(options: KeysCreateOptions, io: CliIo): void {
  const key = randomBytes(32).toString('base64url');
  const entry = {
    keyHash: apiKeyHash(key),
    ...(options.name === undefined ? {} : { name: options.name }),
    workspaces: workspacesOf(options.workspaces),
    role: options.role ?? 'read',
  };
  writeLine(io.stdout, key);
  writeLine(io.stderr, 'kgrag: the key above is shown once; give it to its user. Admit it with this entry under server.apiKeys in kgrag.yaml:');
  writeLine(io.stderr, stringify([entry]).trimEnd());
}

function workspacesOf(list: string | undefined): string[] {
  const names = (list ?? '').split(',').map((name) => name.trim()).filter((name) => name.length > 0);
  return names.length > 0 ? names : ['*'];
}

/** `kgrag keys hash`: the `keyHash` of a key read on stdin (one line), for an entry of `server.apiKeys`. */
export async function keysHashCommand(io: CliIo, input: AsyncIterable<string | Buffer>): Promise<void> {
  let text = '';
  for await (const chunk of input) text += chunk.toString();
  const key = text.trim();
  if (key.length < 16) {
    throw new KgragError('kgrag keys hash reads a key of 16 or more characters on stdin', { code: 'CLI_KEYS_NO_KEY', category: 'input', hint: 'pipe the key in: printf %s "$KEY" | kgrag keys hash' });
  }
  writeLine(io.stdout, apiKeyHash(key));
}
