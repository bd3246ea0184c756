import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createKgrag } from '../src/api/create-kgrag.js';
import { sha256 } from '../src/core/ids.js';
import type { ChatRequest } from '../src/providers/llm/language-model.js';
import { llmCacheKey } from '../src/providers/llm/llm-cache-key.js';
import { cacheMiddleware } from '../src/providers/llm/cache-middleware.js';
import { wrapKgragLanguageModel } from '../src/providers/llm/wrap-kgrag-language-model.js';
import { forgetCachedCalls } from '../src/store/forget-cached-calls.js';
import { openSqliteStore } from '../src/store/sqlite/sqlite-store.js';
import { createStoreLlmCache } from '../src/store/store-llm-cache.js';
import type { Store } from '../src/store/store.js';
import { createScriptedLanguageModel } from '../src/testing/index.js';
import { sampleLlmReply } from './helpers/sample-llm-responder.js';

/*
 * Every index-time LLM call names the chunks its prompt was built from (`ChatRequest.sources`), and the store's LLM
 * cache keeps them as tags, so that deleting a document deletes the replies derived from it. A standard-mode index
 * of the sample corpus with claims, OpenIE and AutoKG runs through the scripted model and the index's own cache.
 */

const corpus = new URL('../examples/sample-corpus/', import.meta.url).pathname;
/** Calls whose prompt is one chunk's text (and the conversation that follows it). */
const perChunkPurposes = new Set(['extract-graph', 'extract-claims', 'openie-ner', 'openie-triples']);
/** Community reports name no sources yet: they are tagged when reports become incremental. */
const untaggedPurposes = new Set(['community-report']);

describe('LLM cache entries are tagged with the chunks their prompts came from', () => {
  const directory = mkdtempSync(join(tmpdir(), 'kgrag-cache-sources-'));
  const store: Store = openSqliteStore(':memory:');
  const scripted = createScriptedLanguageModel({ responses: [{ match: () => true, reply: (request) => sampleLlmReply(request) }] });
  let chunks: Array<{ id: string; documentId: string; text: string }> = [];
  /** The request that paid for each cache key (each key reaches the model once). */
  const requestOf = new Map<string, ChatRequest>();

  let close = async (): Promise<void> => store.close();

  before(async () => {
    const llm = wrapKgragLanguageModel(scripted, cacheMiddleware({ cache: createStoreLlmCache(store) }));
    // The workspace closes the store it was given.
    const kgrag = await createKgrag({ workspace: directory, env: {}, llm, store, config: { extract: { claims: { enabled: true } } } });
    close = () => kgrag.close();
    await kgrag.index([corpus], { mode: 'standard' });
    chunks = await store.table('chunks').pick(['id', 'documentId', 'text']);
    for (const request of scripted.calls) requestOf.set(llmCacheKey(scripted, request), request);
  });
  after(async () => {
    await close();
    rmSync(directory, { recursive: true, force: true });
  });

  it('tags every index-time call but the reports, with hashes of existing chunks', async () => {
    const chunkHashes = new Set(chunks.map((chunk) => sha256(chunk.text)));
    const purposes = new Set([...requestOf.values()].map((request) => request.purpose ?? ''));
    for (const purpose of ['extract-graph', 'extract-claims', 'openie-ner', 'openie-triples', 'resolve-entities', 'summarize-descriptions', 'autokg-extract', 'autokg-refine', 'autokg-final']) {
      assert.ok(purposes.has(purpose), `the index made ${purpose} calls`);
    }
    for (const request of requestOf.values()) {
      if (untaggedPurposes.has(request.purpose ?? '')) continue;
      assert.ok((request.sources ?? []).length > 0, `${request.purpose} names its sources`);
      for (const source of request.sources ?? []) assert.ok(chunkHashes.has(source), `${request.purpose}: ${source} is a chunk's hash`);
    }
    const tags = await store.table('llmCacheSources').all();
    const cached = new Set((await store.table('llmCache').pick(['key'])).map((row) => row.key));
    for (const tag of tags) assert.ok(cached.has(tag.key), 'every tag belongs to a cached reply');
  });

  it('names, for a per-chunk call, exactly the chunk its prompt holds, through every turn of its conversation', () => {
    let turns = 0;
    for (const request of requestOf.values()) {
      if (!perChunkPurposes.has(request.purpose ?? '')) continue;
      const prompt = request.messages[0]?.content ?? '';
      const shown = chunks.filter((chunk) => prompt.includes(chunk.text)).map((chunk) => sha256(chunk.text));
      assert.ok(shown.length >= 1);
      assert.deepEqual(request.sources, [...new Set(shown)]);
      if (request.messages.length > 1) turns++;
    }
    assert.ok(turns > 0, 'gleaning turns (and repairs) carry the sources of their conversation');
  });

  it('forgetCachedCalls with one document\'s chunk hashes removes exactly the entries derived from it', async () => {
    const [document] = [...new Set(chunks.map((chunk) => chunk.documentId))];
    const ownHashes = new Set(chunks.filter((chunk) => chunk.documentId === document).map((chunk) => sha256(chunk.text)));
    const keysBefore = new Set((await store.table('llmCache').pick(['key'])).map((row) => row.key));
    const derived = [...requestOf].filter(([, request]) => (request.sources ?? []).some((source) => ownHashes.has(source))).map(([key]) => key);
    const ownChunkCalls = derived.filter((key) => perChunkPurposes.has(requestOf.get(key)?.purpose ?? ''));
    assert.ok(ownChunkCalls.length >= 2 * ownHashes.size, 'its chunks\' extraction, gleaning, claims and OpenIE calls at least');

    assert.equal(await forgetCachedCalls(store, [...ownHashes]), derived.length);
    const keysAfter = new Set((await store.table('llmCache').pick(['key'])).map((row) => row.key));
    assert.deepEqual([...keysBefore].filter((key) => !keysAfter.has(key)).sort(), [...derived].sort());
    for (const [key, request] of requestOf) {
      if (!perChunkPurposes.has(request.purpose ?? '')) continue;
      const prompt = request.messages[0]?.content ?? '';
      const ofDocument = chunks.some((chunk) => chunk.documentId === document && prompt.includes(chunk.text));
      assert.equal(keysAfter.has(key), !ofDocument, `${request.purpose} of ${ofDocument ? 'the deleted' : 'another'} document`);
    }
    const orphans = (await store.table('llmCacheSources').all()).filter((tag) => !keysAfter.has(tag.key));
    assert.deepEqual(orphans, []);
  });
});
