import assert from 'node:assert/strict';
import { test } from 'node:test';
import { configSchema } from '../core/config/config-schema.js';
import type { EntityRecord } from '../core/types.js';
import { openSqliteStore } from '../store/sqlite/sqlite-store.js';
import type { PipelineStep, StepContext } from './pipeline-step.js';
import { runPipeline } from './run-pipeline.js';
import { TableChanges } from './table-changes.js';

const entity = (id: string, title = id): EntityRecord => ({ id, title, type: 'noun phrase', description: '', aliases: [], frequency: 1, degree: 0, chunkIds: [] });

test('TableChanges records the keys written through a store and its transactions, and forgets them at a write not by key', async () => {
  const store = openSqliteStore(':memory:');
  const changes = new TableChanges();
  const recording = changes.recording(store);
  assert.deepEqual([...(changes.of('entities') ?? ['unknown'])], [], 'nothing written yet');
  await recording.table('entities').upsert([entity('kester'), entity('marle')]);
  await recording.transaction(async (tx) => {
    await tx.table('entities').deleteWhere('id', ['marle', 'never-stored']);
    await tx.table('entities').upsert([entity('weir')]);
  });
  assert.deepEqual([...(changes.of('entities') ?? [])].sort(), ['kester', 'marle', 'never-stored', 'weir']);
  assert.equal(await recording.table('entities').deleteWhere('id', ['nothing-here']), 0);
  assert.ok(!changes.of('entities')?.has('nothing-here'), 'a delete that deleted nothing changed nothing');
  // Reads and other tables pass through.
  assert.deepEqual((await recording.table('entities').pick(['id'])).map((row) => row.id), ['kester', 'weir']);
  assert.deepEqual([...(changes.of('relations') ?? ['unknown'])], []);
  await recording.table('entities').deleteWhere('title', ['weir']);
  assert.equal(changes.of('entities'), undefined, 'a delete by another column names no keys');
  await recording.table('entities').upsert([entity('inn')]);
  assert.equal(changes.of('entities'), undefined, 'unknown stays unknown for the run');
  await recording.table('documents').clear();
  assert.equal(changes.of('documents'), undefined, 'a clear names no keys');
  const merged = new TableChanges();
  merged.merge(changes);
  assert.equal(merged.of('entities'), undefined);
  // Past the most keys it keeps, a table's changes are unknown.
  const few = new TableChanges(2);
  few.add('relations', ['r1', 'r2']);
  assert.equal(few.of('relations')?.size, 2);
  few.add('relations', ['r2', 'r3']);
  assert.equal(few.of('relations'), undefined);
  await store.close();
});

test('a step is told the keys the run wrote before it only when it last ran on the tables as the run found them', async () => {
  const store = openSqliteStore(':memory:');
  const config = configSchema.parse({});
  // What the writer does in the next run, and the reader's setting.
  let writes: (context: StepContext) => Promise<(tx: StepContext['store']) => Promise<void>> = async () => async () => undefined;
  let version = 0;
  let readerSetting = 'a';
  let readerFails = false;
  const seen: Array<string[] | undefined> = [];
  const writer: PipelineStep = {
    name: 'writer',
    version: 1,
    reads: [],
    settings: () => null,
    mustRun: () => true,
    async run(context) {
      const write = await writes(context);
      return { counts: {}, outputVersion: `v${++version}`, write };
    },
  };
  const reader: PipelineStep = {
    name: 'reader',
    version: 1,
    reads: ['writer'],
    settings: () => readerSetting,
    async run(context) {
      const keys = context.changedKeys?.('entities');
      seen.push(keys && [...keys].sort());
      if (readerFails) throw new Error('reader failed');
      return { counts: {}, outputVersion: 'r', write: async () => undefined };
    },
  };
  const run = () => runPipeline({ steps: [writer, reader], store, config, tokenizer: undefined as never, embedder: undefined as never });

  writes = async () => async (tx) => tx.table('entities').upsert([entity('kester'), entity('marle')]);
  await run();
  assert.deepEqual(seen.pop(), undefined, 'a first run: compare everything');

  writes = async () => async (tx) => {
    await tx.table('entities').deleteWhere('id', ['marle']);
    await tx.table('entities').upsert([entity('weir')]);
  };
  await run();
  assert.deepEqual(seen.pop(), ['marle', 'weir'], 'the rows the writer wrote in its transaction');

  // A write while the step computes (as an LLM step keeps its results) is seen too.
  writes = async (context) => {
    await context.store.table('entities').upsert([entity('inn')]);
    return async () => undefined;
  };
  await run();
  assert.deepEqual(seen.pop(), ['inn']);

  writes = async () => async (tx) => {
    await tx.table('entities').clear();
    await tx.table('entities').upsert([entity('kester')]);
  };
  await run();
  assert.deepEqual(seen.pop(), undefined, 'a clear: compare everything');

  writes = async () => async (tx) => tx.table('entities').upsert([entity('ferry')]);
  readerSetting = 'b';
  await run();
  assert.deepEqual(seen.pop(), undefined, 'a changed setting: the step did not last run as it runs now');

  // The writer commits and the reader fails: the next run's reader compares everything, although the writer then
  // writes only one row, since the rows of the failed run are not in that one's record.
  writes = async () => async (tx) => tx.table('entities').upsert([entity('lock')]);
  readerFails = true;
  await assert.rejects(run(), /reader failed/);
  seen.pop();
  readerFails = false;
  writes = async () => async (tx) => tx.table('entities').upsert([entity('mill')]);
  await run();
  assert.deepEqual(seen.pop(), undefined, 'after a failed run: compare everything');

  // A run killed after the writer committed: the next run's writer is up to date, but the reader's last run read
  // the writer's earlier output, so it is told nothing.
  writes = async () => async (tx) => tx.table('entities').upsert([entity('quay')]);
  await assert.rejects(
    runPipeline({
      steps: [writer, reader],
      store,
      config,
      tokenizer: undefined as never,
      embedder: undefined as never,
      onEvent: (event) => {
        if (event.type === 'step-start' && event.step === 'reader') throw new Error('killed');
      },
    }),
    /killed/,
  );
  const upToDateWriter: PipelineStep = { ...writer, mustRun: () => false, run: async () => assert.fail('the writer is up to date') };
  await runPipeline({ steps: [upToDateWriter, reader], store, config, tokenizer: undefined as never, embedder: undefined as never });
  assert.deepEqual(seen.pop(), undefined, 'resumed after a crash: compare everything');
  await store.close();
});
