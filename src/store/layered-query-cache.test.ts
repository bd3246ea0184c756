import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { CachedChat } from '../providers/llm/llm-response-cache.js';
import { layeredQueryCache, queryCacheMemoryBytes } from './layered-query-cache.js';

const reply = (text: string): CachedChat => ({ text, usage: { inputTokens: 1, outputTokens: 1 }, finishReason: 'stop', modelId: 'm' });

test('query replies stay in memory when the durable copy fails, within a byte budget that drops the least recently used', async () => {
  const failing = {
    get(): CachedChat | undefined {
      throw new Error('state file is read-only');
    },
    set(): void {
      throw new Error('state file is read-only');
    },
  };
  const cache = layeredQueryCache(failing, () => new Date(0));
  const text = 'x'.repeat(100_000);
  await cache.set('first', reply(text));
  assert.equal((await cache.get('first'))?.text, text, 'a durable copy that cannot be written costs only the durable copy');
  // 200 KB a reply: far more replies than the budget holds.
  const count = Math.ceil((2 * queryCacheMemoryBytes) / (2 * text.length));
  for (let index = 0; index < count; index++) await cache.set(`k${index}`, reply(text));
  assert.equal(await cache.get('first'), undefined, 'the oldest reply was dropped');
  assert.equal((await cache.get(`k${count - 1}`))?.text, text, 'the newest is kept');
  const held = cache.clearMemory();
  assert.ok(held > 0 && held < count, `${held} of ${count} replies were held`);
  assert.equal(await cache.get(`k${count - 1}`), undefined);
});

test('a reply found in the durable copy is returned; one written is written there with its time', async () => {
  const written: Array<[string, string]> = [];
  const durable = { get: (key: string) => (key === 'old' ? reply('from disk') : undefined), set: (key: string, _value: CachedChat, at: string) => void written.push([key, at]) };
  const cache = layeredQueryCache(durable, () => new Date(Date.UTC(2026, 0, 2)));
  assert.equal((await cache.get('old'))?.text, 'from disk');
  await cache.set('new', reply('fresh'));
  assert.deepEqual(written, [['new', '2026-01-02T00:00:00.000Z']]);
});
