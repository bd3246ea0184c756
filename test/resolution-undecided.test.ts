// Issue 35: with 30 % injected LLM faults, an entity-resolution group whose replies stayed unusable was left unmerged
// — and a rerun on a healthy server kept it so: the step was recorded as done, and the group's broken replies were
// in the LLM cache. An undecided group is now reported, and the next run asks the model again, bypassing the cache.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { createKgrag } from '../src/api/create-kgrag.js';
import type { PipelineSummary } from '../src/pipeline/run-pipeline.js';
import type { PipelineWarning } from '../src/pipeline/pipeline-step.js';
import { startMockOpenAiServer, type MockChatCompletionRequest, type MockOpenAiServer } from '../src/testing/index.js';
import { indexSnapshot } from './helpers/index-snapshot.js';
import { sampleLlmReply } from './helpers/sample-llm-responder.js';
import { standardTestLlmConfig } from './helpers/standard-test-config.js';

const corpus = new URL('../examples/sample-corpus/', import.meta.url).pathname;
/** Four documents whose extraction gives five candidate groups, one of them Harold Marle's two names. */
const documents = ['04-ivesley-and-thorne.md', '05-clara-ivesley.md', '06-marle-boatworks.md', '16-harold-marle.md'].map((name) => join(corpus, name));

const isResolution = (request: MockChatCompletionRequest): boolean => request.messages.some((message) => message.content.includes('{"clusters"'));
const isHaroldsGroup = (request: MockChatCompletionRequest): boolean => isResolution(request) && request.messages.some((message) => message.content.includes('"Harold Marle"'));

/** A loopback server, closed after the tests; `brokenGroup` makes every reply to Harold Marle's group, the repair turn's too, broken JSON. */
const servers: MockOpenAiServer[] = [];
after(() => Promise.all(servers.map((server) => server.close())));
async function server(brokenGroup: boolean): Promise<{ url: string; resolutionCalls: () => number }> {
  let resolutionCalls = 0;
  const started = await startMockOpenAiServer({
    reply: (request) => {
      if (isResolution(request)) resolutionCalls++;
      return brokenGroup && isHaroldsGroup(request) ? '{"clusters": [{"ids": [1, 2], "canonical"' : sampleLlmReply(request);
    },
  });
  servers.push(started);
  return { url: started.url, resolutionCalls: () => resolutionCalls };
}

describe('an entity-resolution group the LLM could not decide', () => {
  const root = mkdtempSync(join(tmpdir(), 'kgrag-undecided-'));
  after(() => rmSync(root, { recursive: true, force: true }));
  const faultyWorkspace = join(root, 'faulty');

  const open = (url: string, workspace: string) =>
    createKgrag({ workspace, env: {}, config: { index: { mode: 'standard' }, llm: standardTestLlmConfig(url), pipeline: { methods: ['local'] } } as never });

  async function index(url: string, workspace = faultyWorkspace): Promise<{ summary: PipelineSummary; warnings: PipelineWarning[]; harold: string[][]; snapshot: Record<string, unknown> }> {
    const kgrag = await open(url, workspace);
    try {
      const warnings: PipelineWarning[] = [];
      const summary = await kgrag.index(documents, { onEvent: (event) => event.type === 'warning' && warnings.push(event.warning) });
      const entities = await kgrag.store.table('entities').all();
      const harold = entities
        .filter((entity) => /Harold/.test(entity.title))
        .map((entity) => [entity.title, ...entity.aliases].sort())
        .sort((left, right) => (left[0] as string).localeCompare(right[0] as string));
      return { summary, warnings, harold, snapshot: await indexSnapshot(kgrag) };
    } finally {
      await kgrag.close();
    }
  }

  it('stays unmerged and is reported; the next run asks again and merges it, paying nothing twice for the others', async () => {
    const first = await index((await server(true)).url);
    const counts = first.summary.counts['resolve-entities'];
    assert.equal(counts?.['groups'], 5);
    assert.equal(counts?.['undecided'], 1, JSON.stringify(counts));
    const reported = first.warnings.filter((warning) => warning.step === 'resolve-entities');
    assert.equal(reported.length, 1, JSON.stringify(reported));
    assert.match(reported[0]?.message ?? '', /^1 candidate group could not be decided .* left unmerged; the next index run asks the LLM again/);
    assert.deepEqual(first.harold, [['Harold "Hal" Marle'], ['Harold Marle']], 'the undecided group is not merged');

    const healthy = await server(false);
    // The dry run knows that the step will run again.
    const preview = await open(healthy.url, faultyWorkspace);
    try {
      const step = (await preview.estimateIndex(documents)).steps.find((estimate) => estimate.step === 'resolve-entities');
      assert.doesNotMatch(step?.basis ?? '', /up to date/);
    } finally {
      await preview.close();
    }
    const second = await index(healthy.url);
    assert.equal(healthy.resolutionCalls(), 1, 'only the undecided group is asked again; the decided ones come from the cache');
    assert.ok(second.summary.ran.includes('resolve-entities'), `resolve-entities runs again: ran ${second.summary.ran.join(', ')}`);
    assert.equal(second.summary.counts['resolve-entities']?.['undecided'], 0);
    assert.deepEqual(second.harold, [['Harold "Hal" Marle', 'Harold Marle']], 'merged, with the other name kept as an alias');

    const settled = await server(false);
    const third = await index(settled.url);
    assert.ok(third.summary.skipped.includes('resolve-entities'), 'a step that decided every group is up to date');
    assert.equal(settled.resolutionCalls(), 0);

    // The graph is the one a run that never met the fault builds (communities and the summaries' memo keep the
    // history of an index that was built twice, as any update's do).
    const reference = await index(settled.url, join(root, 'reference'));
    assert.equal(reference.summary.counts['resolve-entities']?.['undecided'], 0);
    for (const table of ['entities', 'relations']) assert.deepEqual(second.snapshot[table], reference.snapshot[table], table);
  });
});
