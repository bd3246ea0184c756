// bench/incremental.ts's `llm_calls_expected` is derived offline from the inputs (bench/expected-addition-calls.ts);
// here the derivation meets what a standard-mode update really asks the mock server, term by term, over real HTTP.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { expectedAdditionCalls, extractionTurnsPerChunk, startTermCountingMockServer } from '../bench/expected-addition-calls.js';
import { createKgrag } from '../src/api/create-kgrag.js';
import { extractGraphFromText } from '../src/extract/llm-graph/extract-graph-from-text.js';
import type { InputDocument } from '../src/pipeline/pipeline-step.js';
import { createScriptedLanguageModel } from '../src/testing/index.js';
import { sampleLlmReply, type ResponderRequest } from './helpers/sample-llm-responder.js';
import { standardTestLlmConfig } from './helpers/standard-test-config.js';

const corpus = new URL('../examples/sample-corpus/', import.meta.url).pathname;
const documentOf = (file: string): InputDocument => ({ title: file, text: readFileSync(join(corpus, file), 'utf8'), source: join(corpus, file) });

describe('the expected LLM calls of an addition, derived from the inputs', { timeout: 120_000 }, () => {
  const folders: string[] = [];
  after(() => {
    for (const folder of folders) rmSync(folder, { recursive: true, force: true });
  });

  it('counts the turns of the extraction conversation the mock answers, for every number of gleanings', async () => {
    const text = readFileSync(join(corpus, '20-the-ferry-inn.md'), 'utf8');
    for (const maxGleanings of [0, 1, 2, 3]) {
      const model = createScriptedLanguageModel({ responses: [{ reply: (request) => sampleLlmReply(request as ResponderRequest) }] });
      const extraction = await extractGraphFromText(model, { text, entityTypes: ['organization', 'person', 'geo', 'event'], maxGleanings, format: 'json' });
      assert.equal(extractionTurnsPerChunk(maxGleanings), extraction.calls, `maxGleanings ${maxGleanings}`);
    }
  });

  it('equals, term by term, what adding a document to a standard index asks the server', async () => {
    const files = readdirSync(corpus).sort();
    // The added document and others that name what it names: the Ferry Inn, the Marles, the quay, the river.
    const before = files.filter((file) => /^(01|02|03|06|07|16|35)-/.test(file)).map(documentOf);
    const added = documentOf(files.find((file) => file.startsWith('20-')) as string);
    const { server, made } = await startTermCountingMockServer();
    const folder = mkdtempSync(join(tmpdir(), 'kgrag-expected-calls-'));
    folders.push(folder);
    // The server closes even when the workspace does not open: an open server keeps the test process alive.
    const kgrag = await createKgrag({
      workspace: folder,
      env: {},
      config: { index: { mode: 'standard' }, pipeline: { methods: ['local', 'global', 'drift'] }, llm: standardTestLlmConfig(server.url) },
    }).catch(async (error: unknown) => {
      await server.close();
      throw error;
    });
    try {
      const expected = await expectedAdditionCalls({ before, added: [added], config: kgrag.config, reply: sampleLlmReply });
      await kgrag.index(before);
      made.clear();
      await kgrag.index([added]);
      assert.deepEqual(
        { extraction: made.get('extraction') ?? 0, resolution: made.get('resolution') ?? 0, summaries: made.get('summaries') ?? 0 },
        { extraction: expected.extraction, resolution: expected.resolution, summaries: expected.summaries },
      );
      assert.equal(expected.extraction, 2, 'one chunk: its extraction and one gleaning');
      assert.ok(expected.resolution > 0 && expected.summaries > 0, 'the document names entities the others name');
    } finally {
      await kgrag.close();
      await server.close();
    }
  });
});
