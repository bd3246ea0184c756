// Issue 22: the LLM work of a step is spread over workers by its `prefetch`, which makes the calls `run` would make
// for one shard of the step's items and leaves their replies in the store's LLM cache. These tests play coordinator
// and workers in one process: before each step runs (`beforeStep`), every shard of every round is prefetched, each
// through its own LLM client that shares nothing with the others but the store's cache.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createKgrag, type Kgrag } from '../src/api/create-kgrag.js';
import { indexPipeline } from '../src/api/index-pipeline.js';
import { builtInMethods } from '../src/api/built-in-methods.js';
import { createMethodRegistry } from '../src/api/method-registry.js';
import { KgragError } from '../src/core/errors.js';
import { ownsItem, shardOfItem } from '../src/pipeline/owns-item.js';
import type { PipelineStep, StepContext, StepName, StepPrefetchResult } from '../src/pipeline/pipeline-step.js';
import { runPipeline, type PipelineSummary } from '../src/pipeline/run-pipeline.js';
import { chunkStep } from '../src/pipeline/steps/chunk-step.js';
import { llmExtractStep } from '../src/pipeline/steps/llm-extract-step.js';
import { loadStep } from '../src/pipeline/steps/load-step.js';
import { reportInputsKey } from '../src/pipeline/steps/reports-step.js';
import { createEmbedder } from '../src/providers/embed/create-embedder.js';
import { createLanguageModel } from '../src/providers/llm/create-language-model.js';
import type { LanguageModel } from '../src/providers/llm/language-model.js';
import { tableNames } from '../src/store/schema.js';
import { openSqliteStore } from '../src/store/sqlite/sqlite-store.js';
import { createStoreLlmCache } from '../src/store/store-llm-cache.js';
import type { Store } from '../src/store/store.js';
import { startMockOpenAiServer, type MockChatCompletionRequest, type MockOpenAiServer, type MockRecordedRequest } from '../src/testing/index.js';
import { createTokenizer, type Tokenizer } from '../src/text/tokenizer.js';
import { indexSnapshot } from './helpers/index-snapshot.js';
import { sampleLlmReply } from './helpers/sample-llm-responder.js';
import { standardTestLlmConfig } from './helpers/standard-test-config.js';

const corpus = new URL('../examples/sample-corpus/', import.meta.url).pathname;
const shardCount = 3;
const prefetchable: readonly StepName[] = ['llm-extract', 'summarize', 'claims', 'reports'];
/** The headers by which the mock server tells which worker, and which of its clients, sent a request. */
const shardHeader = 'x-kgrag-test-shard';
const clientHeader = 'x-kgrag-test-client';

/** A chat request as the server received it, as one string: equal strings are the same (paid) request. */
function requestKey(request: MockRecordedRequest): string {
  return createHash('sha256').update(JSON.stringify(request.body)).digest('hex');
}

/** Everything in the store but the LLM cache: what a prefetch must leave as it found it. */
async function storeState(kgrag: Kgrag): Promise<Record<string, unknown>> {
  const state = await indexSnapshot(kgrag);
  for (const table of tableNames) {
    if (table === 'llmCache' || table === 'llmCacheSources' || table in state) continue;
    state[table] = await kgrag.store.table(table).all();
  }
  state['meta:reports-inputs'] = await kgrag.store.getMeta(reportInputsKey);
  return state;
}

/** A workspace over one SQLite file, a mock server answering like a model over the sample corpus, and LLM clients. */
interface Bench {
  kgrag: Kgrag;
  store: Store;
  server: MockOpenAiServer;
  tokenizer: Tokenizer;
  /** Chat requests the server received, with the worker (undefined: the coordinator) and the client that sent each. */
  requests: Array<{ key: string; shard: string | undefined; client: string | undefined }>;
  /**
   * A new LLM client with its own cache object over the store's `llm_cache`, like a worker process would build; its
   * requests name `shard` and the client's number, `clients` before the call.
   */
  client(shard?: number): LanguageModel;
  clients: number;
  close(): Promise<void>;
}

async function openBench(folder: string, reply: (request: MockChatCompletionRequest) => string | Promise<string> = sampleLlmReply): Promise<Bench> {
  const requests: Bench['requests'] = [];
  const server = await startMockOpenAiServer({
    reply,
    onRequest: (request) => {
      if (request.path !== '/v1/chat/completions') return;
      const header = (name: string): string | undefined => {
        const value = request.headers[name];
        return typeof value === 'string' ? value : undefined;
      };
      requests.push({ key: requestKey(request), shard: header(shardHeader), client: header(clientHeader) });
    },
  });
  const store = openSqliteStore(join(folder, 'kgrag.db'));
  // A report budget small enough that the larger communities' own rows do not fit, so their contexts substitute
  // sub-communities' reports (with GraphRAG's 8,000 every context of the sample corpus fits).
  const reportTokens = 600;
  // No call times out here however busy the machine (the mock's timeout fault, which the short default is for, is off),
  // so every request the server counts is one the pipeline asked for, never a retry.
  const llm = { ...standardTestLlmConfig(server.url), timeoutMs: 300_000 };
  const kgrag = await createKgrag({ workspace: folder, env: {}, store, config: { llm, extract: { claims: { enabled: true } }, reports: { maxInputTokens: reportTokens } } });
  const tokenizer = await createTokenizer(kgrag.config.tokenizer.encoding);
  const bench: Bench = {
    kgrag,
    store,
    server,
    tokenizer,
    requests,
    clients: 0,
    client: (shard) => {
      const headers = { [clientHeader]: String(bench.clients++), ...(shard === undefined ? {} : { [shardHeader]: String(shard) }) };
      return createLanguageModel({ ...kgrag.config.llm, headers }, { cache: createStoreLlmCache(store), countTokens: (text) => tokenizer.count(text), env: {} }) as LanguageModel;
    },
    close: async () => {
      await kgrag.close();
      await server.close();
    },
  };
  return bench;
}

/** The standard pipeline of the GraphRAG methods, with claims: every step that has a prefetch. */
async function standardSteps(kgrag: Kgrag): Promise<PipelineStep[]> {
  return indexPipeline({ config: kgrag.config, mode: 'standard', hasLlm: true, methods: createMethodRegistry(builtInMethods).select(['local', 'global', 'drift'], 'test') });
}

/** What one build did, step by step. */
interface Build {
  summary: PipelineSummary;
  snapshot: Record<string, unknown>;
  /** Requests the server received, in order. */
  requests: Bench['requests'];
  /** Index in `requests` at each step's start and end, and (prefetched build) after its prefetch. */
  marks: Map<StepName, { start: number; prefetched?: number; end: number }>;
  /** Each prefetch call's result, by step. */
  prefetches: Map<StepName, Array<StepPrefetchResult & { shard: number; round: number }>>;
  rounds: Map<StepName, number>;
  /** Whether every prefetch left the store (but its LLM cache) as it found it. */
  unchangedByPrefetch: Map<StepName, boolean>;
}

/** Builds the index; with `shards`, every step with a prefetch is first prefetched shard by shard, round by round. */
async function buildIndex(folder: string, shards?: number): Promise<Build> {
  const bench = await openBench(folder);
  try {
    const { kgrag, store, tokenizer } = bench;
    const marks: Build['marks'] = new Map();
    const prefetches: Build['prefetches'] = new Map();
    const rounds: Build['rounds'] = new Map();
    const unchangedByPrefetch: Build['unchangedByPrefetch'] = new Map();
    const workers = shards === undefined ? [] : Array.from({ length: shards }, (_, shard) => bench.client(shard));
    const beforeStep = async (step: PipelineStep, context: StepContext): Promise<void> => {
      if (!step.prefetch || shards === undefined) return;
      const before = await storeState(kgrag);
      const stepRounds = (await step.prefetchRounds?.(context)) ?? 1;
      rounds.set(step.name, stepRounds);
      const results: Array<StepPrefetchResult & { shard: number; round: number }> = [];
      for (let round = 0; round < stepRounds; round++) {
        for (const [shard, llm] of workers.entries()) {
          const result = await step.prefetch({ ...context, llm }, { index: shard, count: shards, round });
          results.push({ ...result, shard, round });
        }
      }
      prefetches.set(step.name, results);
      const mark = marks.get(step.name);
      if (mark) mark.prefetched = bench.requests.length;
      unchangedByPrefetch.set(step.name, JSON.stringify(await storeState(kgrag)) === JSON.stringify(before));
    };
    const summary = await runPipeline({
      steps: await standardSteps(kgrag),
      store,
      config: kgrag.config,
      tokenizer,
      embedder: createEmbedder(kgrag.config),
      llm: bench.client(),
      prompts: kgrag.prompts,
      inputs: { paths: [corpus], documents: [] },
      beforeStep,
      onEvent: (event) => {
        if (event.type === 'step-start') marks.set(event.step, { start: bench.requests.length, end: -1 });
        const mark = event.type === 'step-end' ? marks.get(event.step) : undefined;
        if (mark) mark.end = bench.requests.length;
      },
    });
    return { summary, snapshot: await indexSnapshot(kgrag), requests: [...bench.requests], marks, prefetches, rounds, unchangedByPrefetch };
  } finally {
    await bench.close();
  }
}

const countsOf = (keys: readonly string[]): Map<string, number> => {
  const counts = new Map<string, number>();
  for (const key of keys) counts.set(key, (counts.get(key) ?? 0) + 1);
  return counts;
};

describe('prefetching the LLM calls of indexing steps in shards (issue 22)', { timeout: 300_000 }, () => {
  const directory = mkdtempSync(join(tmpdir(), 'kgrag-step-prefetch-'));
  let plain: Build;
  let prefetched: Build;
  before(async () => {
    plain = await buildIndex(join(directory, 'plain'));
    prefetched = await buildIndex(join(directory, 'prefetched'), shardCount);
  });
  after(() => rmSync(directory, { recursive: true, force: true }));

  it('builds the index a plain build does, and every step with a prefetch then runs without a request', () => {
    assert.deepEqual(prefetched.summary.ran, plain.summary.ran);
    assert.deepEqual(
      prefetched.summary.ran.filter((name) => prefetched.prefetches.has(name)),
      prefetchable,
      'the standard steps whose work is per item all prefetch',
    );
    assert.deepEqual(prefetched.snapshot, plain.snapshot);
    for (const name of prefetchable) {
      const mark = prefetched.marks.get(name);
      assert.ok(mark?.prefetched !== undefined);
      assert.ok(mark.prefetched > mark.start, `${name}: its prefetch made requests`);
      assert.equal(mark.end, mark.prefetched, `${name}: its run after the prefetch made no request`);
      const plainMark = plain.marks.get(name);
      assert.equal(mark.end - mark.start, (plainMark?.end ?? 0) - (plainMark?.start ?? 0), `${name}: as many requests as in a plain build`);
    }
  });

  it('pays for no request twice: the build sends the requests a plain build sends, each as often', () => {
    assert.equal(prefetched.requests.length, plain.requests.length);
    assert.deepEqual(countsOf(prefetched.requests.map((request) => request.key)), countsOf(plain.requests.map((request) => request.key)));
  });

  it('partitions the items: each item is prefetched by exactly one shard', () => {
    for (const name of prefetchable) {
      const mark = prefetched.marks.get(name);
      assert.ok(mark?.prefetched !== undefined);
      const stepRequests = prefetched.requests.slice(mark.start, mark.prefetched);
      assert.ok(stepRequests.every((request) => request.shard !== undefined), `${name}: only the workers called the model`);
      const byShard = Array.from({ length: shardCount }, (_, shard) => new Set(stepRequests.filter((request) => request.shard === String(shard)).map((request) => request.key)));
      assert.ok(byShard.every((keys) => keys.size > 0), `${name}: every shard has work`);
      for (let left = 0; left < shardCount; left++) {
        for (let right = left + 1; right < shardCount; right++) {
          const shared = [...(byShard[left] as Set<string>)].filter((key) => byShard[right]?.has(key));
          assert.deepEqual(shared, [], `${name}: shards ${left} and ${right} sent no request in common`);
        }
      }
      const plainMark = plain.marks.get(name);
      const plainKeys = new Set(plain.requests.slice(plainMark?.start, plainMark?.end).map((request) => request.key));
      assert.deepEqual(new Set(byShard.flatMap((keys) => [...keys])), plainKeys, `${name}: together the shards sent the requests of a plain run`);
    }
    // Items: the shards' counts add up to the items the plain run worked on.
    const items = (name: StepName): number => (prefetched.prefetches.get(name) ?? []).reduce((sum, result) => sum + result.items, 0);
    const counts = plain.summary.counts;
    assert.equal(items('llm-extract'), counts['llm-extract']?.['extracted']);
    assert.equal(items('claims'), counts['claims']?.['extracted']);
    assert.equal(items('summarize'), (counts['summarize']?.['entities'] ?? 0) + (counts['summarize']?.['relations'] ?? 0));
    assert.equal(items('reports'), counts['reports']?.['regenerated']);
    for (const name of ['llm-extract', 'claims', 'summarize'] as const) {
      assert.equal(prefetched.rounds.get(name), 1, `${name} prefetches in one round`);
    }
  });

  it('prefetches reports in rounds: a report after its sub-communities, replayed from the cache', () => {
    const communities = prefetched.snapshot['communities'] as Array<{ id: string; children: string[] }>;
    const byId = new Map(communities.map((community) => [community.id, community]));
    const height = (id: string): number => (byId.get(id)?.children ?? []).reduce((highest, child) => (byId.has(child) ? Math.max(highest, height(child) + 1) : highest), 0);
    const rounds = prefetched.rounds.get('reports') ?? 0;
    assert.ok(rounds >= 2, `the sample corpus has sub-communities (${rounds} rounds)`);
    assert.equal(rounds, communities.reduce((highest, community) => Math.max(highest, height(community.id)), 0) + 1);
    const results = prefetched.prefetches.get('reports') ?? [];
    const mark = prefetched.marks.get('reports');
    const requests = (mark?.prefetched ?? 0) - (mark?.start ?? 0);
    const calls = results.reduce((sum, result) => sum + result.calls, 0);
    assert.ok(calls > requests, `contexts substituted sub-reports, which the prefetch replayed from the cache: ${calls} calls, ${requests} requests`);
    for (let round = 0; round < rounds; round++) {
      const expected = communities.filter((community) => height(community.id) === round);
      const handled = results.filter((result) => result.round === round);
      assert.equal(handled.reduce((sum, result) => sum + result.items, 0), expected.length, `round ${round}: every community of its height, once`);
      for (const result of handled) {
        const owned = expected.filter((community) => shardOfItem(community.id, shardCount) === result.shard).length;
        assert.equal(result.items, owned, `round ${round}, shard ${result.shard}: the communities whose id hashes to it`);
      }
    }
  });

  it('writes nothing to the store but its LLM cache entries', () => {
    assert.deepEqual([...prefetched.unchangedByPrefetch.keys()], prefetchable);
    for (const [name, unchanged] of prefetched.unchangedByPrefetch) assert.ok(unchanged, `${name}: the store is as it was before the prefetch`);
  });

  it('an interrupted shard, run again, pays only for the calls it had not finished', async () => {
    let holding = true;
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const interrupt = new AbortController();
    let cache: Store | undefined;
    const bench = await openBench(mkdtempSync(join(directory, 'interrupted-')), async (request) => {
      // The first request after three calls have finished (their replies cached) finds the worker killed: it and every
      // request after it stay unanswered until then.
      if (holding && cache !== undefined && (await cache.table('llmCache').count()) >= 3) {
        interrupt.abort();
        await gate;
      }
      return sampleLlmReply(request);
    });
    cache = bench.store;
    try {
      const { kgrag, store, tokenizer } = bench;
      await runPipeline({ steps: [loadStep, chunkStep], store, config: kgrag.config, tokenizer, embedder: createEmbedder(kgrag.config), inputs: { paths: [corpus], documents: [] } });
      const context = (llm: LanguageModel, signal?: AbortSignal): StepContext => ({
        store,
        config: kgrag.config,
        tokenizer,
        embedder: createEmbedder(kgrag.config),
        llm,
        prompts: kgrag.prompts,
        inputs: { paths: [], documents: [] },
        signal,
        progress: () => undefined,
        warn: () => undefined,
      });
      const shard = { index: 0, count: shardCount };
      // Client 0 is the killed worker's, client 1 the one that runs the shard again.
      await assert.rejects(llmExtractStep.prefetch?.(context(bench.client(0), interrupt.signal), shard) ?? Promise.resolve());
      holding = false;
      release();
      const finished = await store.table('llmCache').count();
      const rerun = await (llmExtractStep.prefetch?.(context(bench.client(0)), shard) ?? Promise.reject(new Error('llm-extract has no prefetch')));
      const keysOf = (client: string): string[] => bench.requests.filter((request) => request.client === client).map((request) => request.key);
      const before = new Set(keysOf('0'));
      const again = keysOf('1');
      assert.ok(finished > 0 && finished < before.size, `${finished} calls finished of the ${before.size} sent before the interruption`);
      assert.equal(new Set(again).size, again.length, 'the rerun sends each request once');
      assert.equal(again.length, rerun.calls - finished, 'the rerun pays for every call of the shard but those that had finished');
      assert.equal(again.filter((key) => before.has(key)).length, before.size - finished, 'of the calls sent before, it repeats only the unfinished ones');
      assert.equal(await store.table('llmCache').count(), rerun.calls, 'every call of the shard is cached now');
      const mark = prefetched.marks.get('llm-extract');
      const shardRequests = prefetched.requests.slice(mark?.start, mark?.prefetched).filter((request) => request.shard === '0');
      assert.equal(rerun.calls, shardRequests.length, 'the shard makes the calls it made in the uninterrupted build');
    } finally {
      holding = false;
      release();
      await bench.close();
    }
  });
});

describe('ownsItem', () => {
  it('gives every id to exactly one of the shards, the same way every time', () => {
    const ids = Array.from({ length: 2_000 }, (_, index) => createHash('sha256').update(`item ${index}`).digest('hex'));
    for (const count of [1, 2, 3, 7]) {
      const sizes = new Array<number>(count).fill(0);
      for (const id of ids) {
        const owners = sizes.map((_, index) => index).filter((index) => ownsItem({ index, count }, id));
        assert.equal(owners.length, 1);
        assert.equal(owners[0], shardOfItem(id, count));
        const owner = owners[0] as number;
        sizes[owner] = (sizes[owner] ?? 0) + 1;
      }
      for (const size of sizes) assert.ok(size > (ids.length / count) * 0.8, `shards of ${count} are near even: ${sizes.join(', ')}`);
    }
    assert.equal(shardOfItem('entity-1', 5), shardOfItem('entity-1', 5));
  });

  it('refuses a shard outside its count', () => {
    for (const shard of [{ index: 3, count: 3 }, { index: -1, count: 3 }, { index: 0, count: 0 }, { index: 0.5, count: 2 }]) {
      assert.throws(() => ownsItem(shard, 'x'), (error: unknown) => KgragError.isInstance(error) && error.code === 'PIPELINE_INVALID_SHARD');
    }
  });
});

describe('the runner\'s beforeStep hook', () => {
  it('is awaited before each step that runs, once the steps it reads have committed, and its failure fails the step', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'kgrag-before-step-'));
    const store = openSqliteStore(':memory:');
    const kgrag = await createKgrag({ workspace: folder, env: {}, store });
    try {
      const base = { store, config: kgrag.config, tokenizer: await createTokenizer(kgrag.config.tokenizer.encoding), embedder: createEmbedder(kgrag.config), steps: [loadStep, chunkStep] };
      const document = (title: string) => ({ paths: [], documents: [{ title, text: `${title} is a ferry on the river.` }] });
      const committed = async (): Promise<string[]> => (await store.table('runs').all()).filter((run) => run.status === 'done').map((run) => run.step);
      const seen: Array<{ step: StepName; committed: string[] }> = [];
      const record = async (step: PipelineStep): Promise<void> => {
        seen.push({ step: step.name, committed: await committed() });
      };
      await runPipeline({ ...base, inputs: document('Alder'), beforeStep: record });
      assert.deepEqual(seen, [
        { step: 'load', committed: [] },
        { step: 'chunk', committed: ['load'] },
      ]);

      seen.length = 0;
      const unchanged = await runPipeline({ ...base, beforeStep: record });
      assert.deepEqual(unchanged.skipped, ['load', 'chunk']);
      assert.deepEqual(seen, [], 'a step that is up to date is not prefetched');

      const failing = async (step: PipelineStep): Promise<void> => {
        if (step.name === 'chunk') throw new Error('the workers failed');
      };
      await assert.rejects(runPipeline({ ...base, inputs: document('Birch'), beforeStep: failing }), /the workers failed/);
      const [chunkRun] = await store.table('runs').get(['chunk']);
      assert.equal(chunkRun?.status, 'failed');
      assert.match(chunkRun?.error ?? '', /the workers failed/);
    } finally {
      await kgrag.close();
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
