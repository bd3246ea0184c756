import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ChatRequest } from './language-model.js';
import type { CallPriority } from './priority-queues.js';
import { createScriptedLanguageModel } from '../../testing/scripted-language-model.js';
import { createTokenBucketRateLimiter } from './token-bucket-rate-limiter.js';
import type { RateLimitCost, TokenBucketRateLimiter } from './token-bucket-rate-limiter.js';
import { countPromptTokens } from './token-estimate.js';
import { rateLimitMiddleware } from './rate-limit-middleware.js';
import { wrapKgragLanguageModel } from './wrap-kgrag-language-model.js';

/**
 * A virtual clock: `sleep` records the requested duration and parks the caller until the test
 * calls `fire()`, which advances time to the earliest pending deadline and wakes that sleeper.
 */
function virtualTime() {
  let time = 0;
  const sleeps: number[] = [];
  const pending: Array<{ deadline: number; resolve: () => void }> = [];
  const sleep = (ms: number, signal?: AbortSignal): Promise<void> =>
    new Promise((resolve, reject) => {
      sleeps.push(ms);
      const entry = { deadline: time + ms, resolve };
      pending.push(entry);
      signal?.addEventListener('abort', () => {
        pending.splice(pending.indexOf(entry), 1);
        reject(signal.reason);
      });
    });
  const settle = () => new Promise<void>((resolve) => setImmediate(resolve));
  return {
    now: () => time,
    sleep,
    sleeps,
    pendingCount: () => pending.length,
    advance: (ms: number) => {
      time += ms;
    },
    async fire(): Promise<void> {
      pending.sort((a, b) => a.deadline - b.deadline);
      const next = pending.shift();
      assert.ok(next, 'a timer should be pending');
      time = Math.max(time, next.deadline);
      next.resolve();
      await settle();
    },
    settle,
  };
}

function tracked(limiter: TokenBucketRateLimiter, order: string[], name: string, cost: RateLimitCost, priority?: CallPriority) {
  return limiter.acquire(cost, priority === undefined ? {} : { priority }).then(() => {
    order.push(name);
  });
}

describe('createTokenBucketRateLimiter', () => {
  it('lets a full bucket burst, then waits exactly the refill time of the deficit with one timer', async () => {
    const clock = virtualTime();
    const limiter = createTokenBucketRateLimiter({ requestsPerMinute: 2, now: clock.now, sleep: clock.sleep });
    const order: string[] = [];
    const all = Promise.all([tracked(limiter, order, 'a', {}), tracked(limiter, order, 'b', {}), tracked(limiter, order, 'c', {})]);
    await clock.settle();
    assert.deepEqual(order, ['a', 'b']);
    assert.deepEqual(clock.sleeps, [30_000], 'one request refills in 60 s / 2');
    assert.equal(clock.pendingCount(), 1);
    await clock.fire();
    await all;
    assert.deepEqual(order, ['a', 'b', 'c']);
    assert.deepEqual(clock.sleeps, [30_000], 'no polling: no further sleeps');
  });

  it('waits for the token deficit of tokens-per-minute', async () => {
    const clock = virtualTime();
    const limiter = createTokenBucketRateLimiter({ tokensPerMinute: 6000, now: clock.now, sleep: clock.sleep });
    await limiter.acquire({ tokens: 6000 });
    const second = limiter.acquire({ tokens: 3000 });
    await clock.settle();
    assert.deepEqual(clock.sleeps, [30_000]);
    await clock.fire();
    await second;
  });

  it('counts refill from elapsed time, so a later call waits only for the remainder', async () => {
    const clock = virtualTime();
    const limiter = createTokenBucketRateLimiter({ requestsPerMinute: 1, now: clock.now, sleep: clock.sleep });
    await limiter.acquire({});
    clock.advance(45_000);
    const next = limiter.acquire({});
    await clock.settle();
    assert.deepEqual(clock.sleeps, [15_000]);
    await clock.fire();
    await next;
  });

  it('serves waiters first-in first-out, one sleep per deficit', async () => {
    const clock = virtualTime();
    const limiter = createTokenBucketRateLimiter({ requestsPerMinute: 1, now: clock.now, sleep: clock.sleep });
    const order: string[] = [];
    await tracked(limiter, order, 'first', {});
    const queued = ['b1', 'b2', 'b3'].map((name) => tracked(limiter, order, name, {}));
    await clock.settle();
    for (let step = 0; step < 3; step += 1) await clock.fire();
    await Promise.all(queued);
    assert.deepEqual(order, ['first', 'b1', 'b2', 'b3']);
    assert.deepEqual(clock.sleeps, [60_000, 60_000, 60_000]);
  });

  it('puts interactive waiters ahead of batch ones, and batch ones ahead of continuations, without extra timers', async () => {
    const clock = virtualTime();
    const limiter = createTokenBucketRateLimiter({ requestsPerMinute: 1, now: clock.now, sleep: clock.sleep });
    const order: string[] = [];
    await tracked(limiter, order, 'first', {});
    const queued = [
      tracked(limiter, order, 'gleaning', {}, 'batch-continuation'),
      tracked(limiter, order, 'batch-1', {}, 'batch'),
      tracked(limiter, order, 'batch-2', {}, 'batch'),
      tracked(limiter, order, 'query', {}, 'interactive'),
    ];
    await clock.settle();
    for (let step = 0; step < 4; step += 1) await clock.fire();
    await Promise.all(queued);
    assert.deepEqual(order, ['first', 'query', 'batch-1', 'batch-2', 'gleaning']);
    assert.deepEqual(clock.sleeps, [60_000, 60_000, 60_000, 60_000]);
  });

  it('replaces the timer when an interactive waiter can go earlier than the batch head', async () => {
    const clock = virtualTime();
    const limiter = createTokenBucketRateLimiter({ tokensPerMinute: 600, now: clock.now, sleep: clock.sleep });
    const order: string[] = [];
    await tracked(limiter, order, 'first', { tokens: 600 });
    const big = tracked(limiter, order, 'big-batch', { tokens: 600 }, 'batch');
    await clock.settle();
    const small = tracked(limiter, order, 'small-query', { tokens: 60 }, 'interactive');
    await clock.settle();
    assert.deepEqual(clock.sleeps, [60_000, 6_000]);
    await clock.fire();
    await small;
    assert.deepEqual(order, ['first', 'small-query']);
    assert.deepEqual(clock.sleeps, [60_000, 6_000, 60_000], 'the batch head now needs a full refill again');
    await clock.fire();
    await big;
    assert.deepEqual(order, ['first', 'small-query', 'big-batch']);
  });

  it('reconciles the token bucket with actual usage: refunds and extra charges', async () => {
    const clock = virtualTime();
    const limiter = createTokenBucketRateLimiter({ tokensPerMinute: 6000, now: clock.now, sleep: clock.sleep });
    await limiter.acquire({ tokens: 6000 });
    limiter.reconcile(6000, 3000);
    await limiter.acquire({ tokens: 3000 });
    assert.deepEqual(clock.sleeps, [], 'the refund covered the second call');
    limiter.reconcile(1000, 4000);
    const next = limiter.acquire({ tokens: 600 });
    await clock.settle();
    assert.deepEqual(clock.sleeps, [36_000], '3000 tokens of debt plus 600 at 100 tokens/s');
    await clock.fire();
    await next;
  });

  it('a refund wakes a waiting caller early', async () => {
    const clock = virtualTime();
    const limiter = createTokenBucketRateLimiter({ tokensPerMinute: 6000, now: clock.now, sleep: clock.sleep });
    await limiter.acquire({ tokens: 6000 });
    let done = false;
    const waiting = limiter.acquire({ tokens: 2000 }).then(() => {
      done = true;
    });
    await clock.settle();
    assert.deepEqual(clock.sleeps, [20_000]);
    limiter.reconcile(6000, 1000);
    await waiting;
    assert.equal(done, true);
    assert.equal(clock.pendingCount(), 0);
  });

  it('clamps a cost above capacity to a full bucket instead of waiting forever', async () => {
    const clock = virtualTime();
    const limiter = createTokenBucketRateLimiter({ tokensPerMinute: 1000, now: clock.now, sleep: clock.sleep });
    await limiter.acquire({ tokens: 500 });
    const huge = limiter.acquire({ tokens: 50_000 });
    await clock.settle();
    assert.deepEqual(clock.sleeps, [30_000]);
    await clock.fire();
    await huge;
  });

  it('an aborted waiter leaves the queue and the next one is served', async () => {
    const clock = virtualTime();
    const limiter = createTokenBucketRateLimiter({ requestsPerMinute: 1, now: clock.now, sleep: clock.sleep });
    await limiter.acquire({});
    const controller = new AbortController();
    const abandoned = limiter.acquire({}, { signal: controller.signal });
    const next = limiter.acquire({});
    await clock.settle();
    controller.abort(new Error('caller gave up'));
    await assert.rejects(abandoned, /caller gave up/);
    await clock.fire();
    await next;
    assert.deepEqual(clock.sleeps, [60_000]);
  });

  it('without limits resolves at once', async () => {
    const clock = virtualTime();
    const limiter = createTokenBucketRateLimiter({ now: clock.now, sleep: clock.sleep });
    for (let call = 0; call < 100; call += 1) await limiter.acquire({ tokens: 1e9 });
    assert.deepEqual(clock.sleeps, []);
  });
});

describe('rateLimitMiddleware', () => {
  it('acquires prompt tokens + maxOutputTokens and reconciles with the reported usage', async () => {
    const acquired: Array<{ cost: RateLimitCost; priority: string | undefined }> = [];
    const reconciled: Array<[number, number]> = [];
    const spy: TokenBucketRateLimiter = {
      acquire: async (cost, options) => {
        acquired.push({ cost, priority: options?.priority });
      },
      reconcile: (estimated, actual) => {
        reconciled.push([estimated, actual]);
      },
    };
    const model = wrapKgragLanguageModel(
      createScriptedLanguageModel({ responses: [{ reply: 'twelve chars' }] }),
      rateLimitMiddleware({ limiter: spy, countTokens: (text) => text.length }),
    );
    const request: ChatRequest = { messages: [{ role: 'user', content: 'hello' }], maxOutputTokens: 100, priority: 'interactive' };
    const result = await model.generate(request);
    const prompt = countPromptTokens(request.messages, (text) => text.length);
    assert.deepEqual(acquired, [{ cost: { requests: 1, tokens: prompt + 100 }, priority: 'interactive' }]);
    assert.deepEqual(reconciled, [[prompt + 100, result.usage.inputTokens + result.usage.outputTokens]]);

    const streamRequest: ChatRequest = { messages: [{ role: 'user', content: 'hello' }] };
    for await (const part of model.stream(streamRequest)) void part;
    assert.equal(acquired[1]?.cost.tokens, prompt + 1000, 'default output allowance');
    assert.equal(reconciled.length, 2);
  });
});
