import assert from 'node:assert/strict';
import { test } from 'node:test';
import { singleStoreWorkspace } from './single-store-workspace.js';
import { openSqliteStore } from './sqlite/sqlite-store.js';
import { createStoreLlmCache } from './store-llm-cache.js';

test('a single-store workspace clears its query replies and keeps the index\'s, which share the table', async () => {
  const store = openSqliteStore(':memory:');
  try {
    const workspace = singleStoreWorkspace(store);
    const reply = (text: string) => ({ text, usage: { inputTokens: 1, outputTokens: 1 }, finishReason: 'stop' as const, modelId: 'm' });
    await createStoreLlmCache(store).set('extraction', reply('index'), ['chunk-hash']);
    await workspace.queryCache.set('question', reply('answer'));
    await workspace.queryCache.set('another question', reply('answer'));
    assert.equal(await workspace.clearQueryCache(), 2);
    assert.equal(await workspace.queryCache.get('question'), undefined);
    assert.deepEqual((await store.table('llmCache').all()).map((row) => row.key), ['extraction']);
    assert.equal(await workspace.clearQueryCache(), 0);
  } finally {
    await store.close();
  }
});
