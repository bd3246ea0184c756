// A shard's lease is renewed while a worker works on it: a shard that takes longer than the lease is not given to a
// second worker (pg-boss 10 has no heartbeat; the lease runs from `started_on`, which the worker moves on), so the
// lease can be short and a killed worker's shard goes to another within one lease.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { openPrefetchQueue, type PrefetchJob } from '../src/api/workers/prefetch-queue.js';
import { startEmbeddedPostgres, type TestPostgresServer } from './helpers/postgres-servers.js';

let postgres: TestPostgresServer;
before(async () => {
  postgres = await startEmbeddedPostgres();
});
after(async () => {
  await postgres?.stop();
});

const shard: PrefetchJob = { workspace: 'renewal', generation: 1, mode: 'standard', methods: ['local'], step: 'extract-graph', round: 0, shard: { index: 0, count: 1 }, fingerprint: 'f' };

test('a shard that takes three leases is worked on once: its worker renews the lease', { timeout: 60_000 }, async () => {
  const url = await postgres.freshDatabase();
  const options = { url, schema: 'kgrag', workspace: 'renewal', leaseSeconds: 2 };
  const coordinator = await openPrefetchQueue({ ...options, supervise: true });
  const workers = [await openPrefetchQueue({ ...options, supervise: false }), await openPrefetchQueue({ ...options, supervise: false })];
  let started = 0;
  try {
    for (const worker of workers) {
      await worker.work(async () => {
        started++;
        await sleep(6000);
        return { items: 1, calls: 1 };
      });
    }
    const ids = await coordinator.send([shard]);
    const outcome = await coordinator.waitFor(ids, {});
    assert.deepEqual(outcome, { completed: 1, failed: [] });
    assert.equal(started, 1, 'no second worker took the shard while the first worked on it');
  } finally {
    for (const queue of [...workers, coordinator]) await queue.stop();
  }
});
