import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createKgrag, type Kgrag } from '../src/api/create-kgrag.js';
import { indexPipeline } from '../src/api/index-pipeline.js';
import { builtInMethods } from '../src/api/built-in-methods.js';
import { createMethodRegistry } from '../src/api/method-registry.js';
import { configSchema, type KgragConfigInput } from '../src/core/config/config-schema.js';
import type { PipelineEvent } from '../src/pipeline/pipeline-step.js';
import { openSqliteStore } from '../src/store/sqlite/sqlite-store.js';
import { indexSnapshot } from './helpers/index-snapshot.js';
import { nodeScriptArgs } from './helpers/node-script.js';

const corpus = fileURLToPath(new URL('../examples/sample-corpus', import.meta.url));
const helper = fileURLToPath(new URL('./helpers/index-until.ts', import.meta.url));
const root = mkdtempSync(join(tmpdir(), 'kgrag-pipeline-'));
after(() => rmSync(root, { recursive: true, force: true }));
let workspaces = 0;

async function open(workspace = join(root, `ws-${workspaces++}`)): Promise<Kgrag> {
  return createKgrag({ workspace, env: {} });
}

/** Indexes, failing on purpose at the first event that matches. */
async function indexFailingAt(kgrag: Kgrag, matches: (event: PipelineEvent) => boolean): Promise<void> {
  await assert.rejects(
    kgrag.index([corpus], {
      onEvent(event) {
        if (matches(event)) throw new Error('injected crash');
      },
    }),
    /injected crash/,
  );
}

describe('fast-mode pipeline on the sample corpus', () => {
  let reference: Record<string, unknown>;
  let referenceWorkspace: string;
  let fastSteps: string[] = [];

  before(async () => {
    referenceWorkspace = join(root, 'reference');
    const kgrag = await open(referenceWorkspace);
    const summary = await kgrag.index([corpus]);
    fastSteps = (await indexPipeline({ config: kgrag.config, mode: 'fast', hasLlm: false })).map((step) => step.name);
    assert.deepEqual(fastSteps.slice(0, 12), ['load', 'chunk', 'statistics', 'entity-edits', 'embed-chunks', 'nlp-extract', 'communities', 'reports', 'embed-entities', 'embed-reports', 'triples', 'embed-triples']);
    assert.deepEqual(summary.ran, fastSteps);
    reference = await indexSnapshot(kgrag);
    await kgrag.close();
  });

  test('builds every table: documents, chunks, graph, hierarchy, reports and vectors', async () => {
    const documents = reference.documents as unknown[];
    assert.equal(documents.length, 35);
    assert.ok((reference.chunks as unknown[]).length >= 35);
    assert.ok((reference.entities as unknown[]).length > 50);
    assert.ok((reference.relations as unknown[]).length > 100);
    const communities = reference.communities as Array<{ level: number; parent: string | null; entityIds: string[] }>;
    assert.ok(communities.some((community) => community.level > 0), 'large communities are split into deeper levels');
    assert.equal((reference.reports as unknown[]).length, communities.length);
    const entityIds = new Set((reference.entities as Array<{ id: string }>).map((entity) => entity.id));
    const topLevel = communities.filter((community) => community.level === 0).flatMap((community) => community.entityIds);
    assert.equal(new Set(topLevel).size, topLevel.length, 'no entity is in two level-0 communities');
    assert.deepEqual(new Set(topLevel), entityIds, 'every entity has a community');
    assert.equal((reference['vectors:entities'] as { ids: string[] }).ids.length, entityIds.size);
  });

  test("the snapshot the determinism and resume tests compare holds every method's structures", () => {
    for (const table of ['keywords', 'keywordChunks', 'keywordEdges', 'triples']) {
      assert.ok((reference[table] as unknown[]).length > 0, `${table} rows`);
    }
    for (const space of ['chunks', 'entities', 'reports', 'keywords', 'phrases', 'facts']) {
      assert.ok((reference[`vectors:${space}`] as { ids: string[] }).ids.length > 0, `${space} vectors`);
    }
    const blobs = Object.keys(reference).filter((key) => key.startsWith('blob:'));
    assert.ok(blobs.length >= 5, `the graph and triple-index blobs: ${blobs.join(', ')}`);
  });

  test('the same input gives the same index, ids and vectors in a fresh workspace', async () => {
    const kgrag = await open();
    await kgrag.index([corpus]);
    assert.deepEqual(await indexSnapshot(kgrag), reference);
    await kgrag.close();
  });

  test('running again skips every step after load', async () => {
    const kgrag = await open(referenceWorkspace);
    const summary = await kgrag.index([corpus]);
    assert.deepEqual(summary.ran, ['load']);
    assert.equal(summary.skipped.length, fastSteps.length - 1);
    await kgrag.close();
  });

  test('a crash inside a step leaves nothing half-written; the rerun resumes there and gives the same index', async () => {
    const workspace = join(root, 'crash-inside');
    const first = await open(workspace);
    await indexFailingAt(first, (event) => event.type === 'step-progress' && event.step === 'nlp-extract');
    const status = await first.status();
    assert.equal(status.generation, undefined, 'nothing is published before a run completes');
    assert.equal(status.unpublished?.status, 'failed');
    assert.equal(status.unpublished?.step, 'nlp-extract');
    await first.close();
    // The unpublished draft keeps what the run completed, and nothing of the failed step.
    const draft = openSqliteStore(join(workspace, 'kgrag.db-draft'));
    assert.equal(await draft.table('entities').count(), 0, 'the failed step wrote nothing');
    const [run] = await draft.table('runs').get(['nlp-extract']);
    assert.equal(run?.status, 'failed');
    assert.equal((await draft.table('runs').get(['embed-chunks']))[0]?.status, 'done');
    await draft.close();

    const second = await open(workspace);
    const summary = await second.index([corpus]);
    assert.deepEqual(summary.skipped, ['chunk', 'statistics', 'entity-edits', 'embed-chunks'], 'finished steps are not redone');
    assert.deepEqual(await indexSnapshot(second), reference);
    await second.close();
  });

  test('a crash between steps resumes at the next step with the same result', async () => {
    const workspace = join(root, 'crash-between');
    const first = await open(workspace);
    await indexFailingAt(first, (event) => event.type === 'step-start' && event.step === 'reports');
    await first.close();
    const second = await open(workspace);
    const summary = await second.index([corpus]);
    assert.deepEqual(summary.ran, ['load', ...fastSteps.slice(fastSteps.indexOf('reports'))]);
    assert.deepEqual(await indexSnapshot(second), reference);
    await second.close();
  });

  for (const [eventType, step, nth] of [
    ['step-progress', 'embed-chunks', '1'],
    ['step-progress', 'nlp-extract', '2'],
    ['step-end', 'communities', '1'],
  ] as const) {
    test(`kill -9 at ${eventType} of ${step}, then rerun: same index, no duplicates`, async () => {
      const workspace = join(root, `kill-${step}`);
      const child = spawnSync(process.execPath, [...nodeScriptArgs(helper), workspace, corpus, eventType, step, nth], { encoding: 'utf8' });
      assert.equal(child.signal, 'SIGKILL', `the child should have been killed: ${child.stderr}`);
      const kgrag = await open(workspace);
      await kgrag.index([corpus]);
      assert.deepEqual(await indexSnapshot(kgrag), reference);
      await kgrag.close();
    });
  }

  test('adding and changing documents updates the index incrementally', async () => {
    const folder = join(root, 'incremental-corpus');
    cpSync(corpus, folder, { recursive: true });
    const kgrag = await open();
    await kgrag.index([folder]);
    const before = await kgrag.store.table('chunks').count();

    writeFileSync(join(folder, '99-new-bakery.md'), '# Hollins Bakery\n\nHollins Bakery opened on the Quay in 1999 and sells rye bread to the Ferry Inn.\n');
    const added = await kgrag.index([folder]);
    assert.deepEqual(added.counts.load, { documents: 36, added: 1, replaced: 0, removed: 0, moved: 0, unchanged: 35 });
    assert.equal(added.counts.chunk?.added, 1);
    assert.equal(await kgrag.store.table('chunks').count(), before + 1);

    writeFileSync(join(folder, '99-new-bakery.md'), '# Hollins Bakery\n\nHollins Bakery opened on the Quay in 2001 and sells rye bread.\n');
    const changed = await kgrag.index([folder]);
    assert.deepEqual(changed.counts.load, { documents: 36, added: 0, replaced: 1, removed: 0, moved: 0, unchanged: 35 }, 'an edited file is one replacement');
    assert.equal(changed.counts.chunk?.removed, 1, 'the old version of the file left with its chunks');
    const titles = (await kgrag.store.table('documents').all()).filter((document) => document.title === 'Hollins Bakery');
    assert.equal(titles.length, 1);
    assert.match(titles[0]?.text ?? '', /2001/);
    const hits = await kgrag.retrieve('Hollins Bakery rye bread', { method: 'basic:bm25' });
    assert.match(hits.retrieval.chunks[0]?.text ?? '', /2001/);
    await kgrag.close();
  });
});

describe('the pipeline of an index built for some methods', () => {
  const stepsFor = async (names: string[], config: KgragConfigInput = {}): Promise<string[]> => {
    const methods = createMethodRegistry(builtInMethods).select(names, 'test');
    return (await indexPipeline({ config: configSchema.parse(config), mode: 'fast', hasLlm: false, methods })).map((step) => step.name);
  };

  test('GraphRAG methods build the entity graph, its reports and vectors, and nothing of the multi-hop methods', async () => {
    assert.deepEqual(await stepsFor(['basic', 'local', 'global', 'drift']), ['load', 'chunk', 'statistics', 'entity-edits', 'embed-chunks', 'nlp-extract', 'communities', 'reports', 'embed-entities', 'embed-reports']);
  });

  test('tot builds the workspace graph it walks when its graphs include the index, and nothing when they do not', async () => {
    assert.ok((await stepsFor(['tot'])).includes('communities'), 'tot walks "index" by default');
    const remoteOnly = { methods: { tot: { graphs: ['wikidata'], knowledgeGraphs: { wikidata: { type: 'sparql' as const, endpoint: 'https://query.wikidata.org/sparql' } } } } };
    assert.deepEqual(await stepsFor(['tot'], remoteOnly), ['load', 'chunk']);
  });
});
