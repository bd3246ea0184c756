// kgrag on Postgres with a least-privilege runtime role: the schema's owner runs `kgrag migrate` once; a role with only
// the README's grants (no CREATE anywhere) then indexes, queries and serves, since a current schema is only read; a
// role without them gets an error naming what it lacks. `kgrag migrate --check` changes nothing.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import pg from 'pg';
import { nodeScriptArgs, repositoryRoot } from './helpers/node-script.js';
import { postgresTestContext } from './helpers/postgres-test-context.js';
import { readEvents, sampleCorpus, startTestServer } from './helpers/test-server.js';

const context = postgresTestContext('kgrag-least-privilege-');

function kgrag(args: string[], url: string, workspace: string): { status: number | null; stdout: string; stderr: string } {
  const run = spawnSync(process.execPath, [...nodeScriptArgs('src/cli/main.ts'), '-w', workspace, ...args], {
    cwd: repositoryRoot,
    env: { PATH: process.env.PATH ?? '', KGRAG_DATABASE_URL: url },
    encoding: 'utf8',
    timeout: 120_000,
  });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

/** The grants of a runtime role, as README "Deploying" lists them. */
const runtimeGrants = (role: string, database: string): string[] => [
  `GRANT CONNECT ON DATABASE ${database} TO ${role}`,
  `GRANT USAGE ON SCHEMA kgrag TO ${role}`,
  `GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA kgrag TO ${role}`,
  `GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA kgrag TO ${role}`,
];

test('the owner migrates once; a runtime role with only the grants indexes, queries and serves jobs; without them it is told what it lacks', { timeout: 240_000 }, async () => {
  const ownerUrl = new URL(await context.postgres().freshDatabase());
  const database = ownerUrl.pathname.slice(1);
  const workspace = context.folder();
  const admin = new pg.Pool({ connectionString: ownerUrl.toString(), max: 1 });
  try {
    // --check on a new database: behind, and nothing is created.
    const checked = kgrag(['migrate', '--check'], ownerUrl.toString(), workspace);
    assert.notEqual(checked.status, 0);
    assert.match(checked.stderr, /schema none \(not created yet\); this kgrag needs \d+ — run `kgrag migrate`/);
    assert.equal((await admin.query("SELECT 1 FROM pg_namespace WHERE nspname = 'kgrag'")).rowCount, 0, '--check created nothing');

    const migrated = kgrag(['migrate'], ownerUrl.toString(), workspace);
    assert.equal(migrated.status, 0, migrated.stderr);
    assert.match(migrated.stdout, /migrated from schema none to \d+/);
    assert.doesNotMatch(migrated.stdout, /kgrag-test/, 'the password is not printed');

    // The runtime role: no CREATE on the database or any schema.
    await admin.query(`REVOKE CREATE ON SCHEMA public FROM PUBLIC`);
    await admin.query(`REVOKE CREATE, TEMPORARY ON DATABASE ${database} FROM PUBLIC`);
    await admin.query(`CREATE ROLE kgrag_runtime LOGIN PASSWORD 'runtime-secret'`);
    for (const grant of runtimeGrants('kgrag_runtime', database)) await admin.query(grant);
    const runtimeUrl = new URL(ownerUrl.toString());
    runtimeUrl.username = 'kgrag_runtime';
    runtimeUrl.password = 'runtime-secret';

    const indexed = kgrag(['index', sampleCorpus, '--mode', 'fast'], runtimeUrl.toString(), workspace);
    assert.equal(indexed.status, 0, indexed.stderr);
    const answered = kgrag(['query', 'Who keeps the ferry inn?', '-m', 'basic:bm25', '--json'], runtimeUrl.toString(), workspace);
    assert.equal(answered.status, 0, answered.stderr);
    assert.match(answered.stdout, /Ferry Inn/i);
    // Served: a job (a row of the jobs table, its events and its uploads' rows) runs with the same grants.
    const served = await startTestServer({ directory: workspace, kgrag: { env: { KGRAG_DATABASE_URL: runtimeUrl.toString() } } });
    try {
      const form = new FormData();
      form.append('file', new Blob(['# Weir\n\nThe Kester Weir marks the tidal limit of the River Kester.']), 'weir.md');
      const submitted = await fetch(`${served.url}/v1/documents`, { method: 'POST', body: form });
      assert.equal(submitted.status, 202, await submitted.clone().text());
      const { job } = (await submitted.json()) as { job: { id: string } };
      const events = await readEvents(await fetch(`${served.url}/v1/jobs/${job.id}/events`));
      assert.equal((JSON.parse(events.at(-1)?.data ?? '{}') as { status: string }).status, 'succeeded', events.at(-1)?.data);
    } finally {
      await served.close();
    }
    const current = kgrag(['migrate', '--check'], runtimeUrl.toString(), workspace);
    assert.equal(current.status, 0, current.stderr);
    assert.match(current.stdout, /current/);

    // A role without the grants: the missing privilege is named, with the fix.
    await admin.query(`CREATE ROLE kgrag_nobody LOGIN PASSWORD 'nobody-secret'`);
    await admin.query(`GRANT CONNECT ON DATABASE ${database} TO kgrag_nobody`);
    const nobodyUrl = new URL(ownerUrl.toString());
    nobodyUrl.username = 'kgrag_nobody';
    nobodyUrl.password = 'nobody-secret';
    const refused = kgrag(['query', 'Who keeps the ferry inn?', '-m', 'basic:bm25'], nobodyUrl.toString(), workspace);
    assert.notEqual(refused.status, 0);
    assert.match(refused.stderr, /lacks a privilege: permission denied for (schema|table) .* — grant the role USAGE on kgrag's schema/);
  } finally {
    await admin.end();
  }
});
