/*
 * Child process of the Postgres workspace tests: takes the writer lock of a workspace, records a deletion, writes to
 * its draft, says "locked" on stdout and waits to be killed, as a `kgrag delete` killed mid-run would.
 */
import pg from 'pg';
import { openPostgresWorkspaceStorage } from '../../src/store/postgres/postgres-workspace-storage.js';

const [url, workspace] = process.argv.slice(2);
const pool = new pg.Pool({ connectionString: url, max: 2 });
const storage = openPostgresWorkspaceStorage(pool, workspace as string);
const session = await storage.beginWrite({ command: 'kgrag delete old.md (killed)' });
await session.recordDeletion([{ id: 'd0c0ffee0000', title: 'Old notes' }]);
await session.store.setMeta('draft:killed', session.generation);
process.stdout.write('locked\n');
setInterval(() => undefined, 60_000);
