import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before } from 'node:test';
import { startEmbeddedPostgres, type TestPostgresServer } from './postgres-servers.js';

/**
 * An embedded Postgres for the tests of one file, started before them and stopped after, and workspace folders
 * (`folder()`) removed after them.
 */
export function postgresTestContext(prefix: string): { postgres: () => TestPostgresServer; folder: () => string } {
  let server: TestPostgresServer | undefined;
  const folders: string[] = [];
  before(async () => {
    server = await startEmbeddedPostgres();
  });
  after(async () => {
    await server?.stop();
    for (const path of folders) rmSync(path, { recursive: true, force: true });
  });
  return {
    postgres() {
      if (server === undefined) throw new Error('the embedded Postgres starts before the tests');
      return server;
    },
    folder() {
      const path = mkdtempSync(join(tmpdir(), prefix));
      folders.push(path);
      return path;
    },
  };
}
