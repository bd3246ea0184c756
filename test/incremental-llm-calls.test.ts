// Issue 18: the LLM spend of an update is proportional to the change — with a model that has no response cache (a
// library user's own model object), so that nothing here is saved by the cache: extraction runs for new chunks only,
// summaries only for descriptions whose set changed, reports only for communities whose content changed.
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { createKgrag, type Kgrag } from '../src/api/create-kgrag.js';
import type { ChatRequest } from '../src/providers/llm/language-model.js';
import { createScriptedLanguageModel, type ScriptedLanguageModel } from '../src/testing/index.js';
import { sampleLlmReply, type ResponderRequest } from './helpers/sample-llm-responder.js';

const corpus = new URL('../examples/sample-corpus/', import.meta.url).pathname;
const files = readdirSync(corpus)
  .sort()
  .map((file) => join(corpus, file));
const added = files.find((file) => file.endsWith('20-the-ferry-inn.md')) as string;

function purposeOf(request: ChatRequest): string {
  const prompt = request.messages.map((message) => message.content).join('\n');
  if (prompt.includes('{"clusters"')) return 'resolve';
  if (prompt.includes('Description list:')) return 'summarize';
  if (prompt.includes('-----Entities-----') || prompt.includes('-----Reports-----')) return 'report';
  if (/entit/i.test(prompt) && /relationship/i.test(prompt)) return 'extract';
  return 'other';
}

function countingModel(): { model: ScriptedLanguageModel; calls: Map<string, number> } {
  const calls = new Map<string, number>();
  const model = createScriptedLanguageModel({
    responses: [
      {
        reply: (request: ChatRequest) => {
          const purpose = purposeOf(request);
          calls.set(purpose, (calls.get(purpose) ?? 0) + 1);
          return sampleLlmReply(request as ResponderRequest);
        },
      },
    ],
  });
  return { model, calls };
}

describe('the LLM calls of an update (standard mode, GraphRAG methods, no response cache)', { timeout: 300_000 }, () => {
  const folders: string[] = [];
  after(() => {
    for (const folder of folders) rmSync(folder, { recursive: true, force: true });
  });
  const open = async (model: ScriptedLanguageModel): Promise<Kgrag> => {
    const folder = mkdtempSync(join(tmpdir(), 'kgrag-incremental-calls-'));
    folders.push(folder);
    return createKgrag({ workspace: folder, env: {}, llm: model, config: { index: { mode: 'standard' }, pipeline: { methods: ['local', 'global', 'drift'] } } });
  };

  it('adding one document extracts its chunk only and summarizes only what it changed; deleting it calls for no extraction', async () => {
    const { model, calls } = countingModel();
    const kgrag = await open(model);
    try {
      await kgrag.index(files.filter((file) => file !== added));
      const full = new Map(calls);
      calls.clear();
      const summariesBefore = new Map((await kgrag.store.table('entities').pick(['id', 'description'])).map((entity) => [entity.id, entity.description]));
      await kgrag.index([added]);
      const onAdd = new Map(calls);
      assert.equal(onAdd.get('extract'), 2, 'one chunk: its extraction and one gleaning');
      const summarized = onAdd.get('summarize') ?? 0;
      assert.ok(summarized > 0, 'the new document adds descriptions to entities that already had one');
      assert.ok(summarized < (full.get('summarize') ?? 0) / 3, `adding one of 35 documents made ${summarized} summary calls against ${full.get('summarize')} for the build`);
      const changedEntities = (await kgrag.store.table('entities').pick(['id', 'description'])).filter((entity) => summariesBefore.get(entity.id) !== entity.description).length;
      assert.ok(changedEntities > 0);

      calls.clear();
      const removed = await kgrag.delete([added]);
      assert.equal(removed.deleted.length, 1);
      assert.equal(calls.get('extract') ?? 0, 0, 'a deletion extracts nothing');
      assert.ok((calls.get('summarize') ?? 0) <= summarized, 'a deletion summarizes at most what the addition did');

      calls.clear();
      await kgrag.index([added]);
      assert.equal(calls.get('extract'), 2, 'without a cache, adding it again extracts again');
      // A deletion forgets the summaries written from the document, so they are written again, no more than on the first addition.
      assert.equal(calls.get('summarize') ?? 0, summarized);
    } finally {
      await kgrag.close();
    }
  });

  it('an update keeps the mode the index was built in unless one is asked for, and a deletion its methods too', async () => {
    const { model } = countingModel();
    const folder = mkdtempSync(join(tmpdir(), 'kgrag-incremental-calls-'));
    folders.push(folder);
    // The configuration's defaults: fast mode, every method; the index is built in standard mode for `global` only.
    const kgrag = await createKgrag({ workspace: folder, env: {}, llm: model });
    try {
      await kgrag.index(files, { mode: 'standard', methods: ['global'] });
      const estimate = await kgrag.estimateDelete([added]);
      assert.equal(estimate.mode, 'standard');
      assert.deepEqual(estimate.steps.map((step) => step.step), ['llm-extract', 'resolve-entities', 'summarize', 'reports']);
      const removed = await kgrag.delete([added]);
      assert.ok(removed.run.ran.includes('summarize') && !removed.run.ran.includes('nlp-extract'), removed.run.ran.join(' '));
      assert.ok(!removed.run.ran.includes('triples') && !removed.run.ran.includes('keywords'), removed.run.ran.join(' '));
      // So does adding it back without a mode: the configuration leaves `index.mode` at its default.
      const readded = await kgrag.index([added]);
      assert.ok(readded.ran.includes('llm-extract') && !readded.ran.includes('nlp-extract'), readded.ran.join(' '));
    } finally {
      await kgrag.close();
    }
  });
});
