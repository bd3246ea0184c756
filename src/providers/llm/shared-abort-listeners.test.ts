import assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import { describe, it } from 'node:test';
import { abortableSleep } from './abortable-sleep.js';
import { createPrioritySemaphore } from './priority-semaphore.js';
import { createTokenBucketRateLimiter } from './token-bucket-rate-limiter.js';

/*
 * Standard indexing printed MaxListenersExceededWarning: every call waiting for a concurrency slot, rate budget
 * or a backoff added its own abort listener to the run's one signal (400 chunks, 8 slots: hundreds at once).
 * Waiters of one signal share one listener, and the listener goes when the last waiter does.
 */

const waiters = 50;

async function settled(promises: Array<Promise<unknown>>): Promise<string[]> {
  return (await Promise.allSettled(promises)).map((result) => result.status);
}

describe('calls waiting on one signal share one abort listener', () => {
  it('concurrency slots', async () => {
    const controller = new AbortController();
    const semaphore = createPrioritySemaphore(1);
    const first = await semaphore.acquire('batch', controller.signal);
    const waiting = Array.from({ length: waiters }, () => semaphore.acquire('batch', controller.signal));
    assert.equal(semaphore.waiting, waiters);
    assert.ok(getEventListeners(controller.signal, 'abort').length <= 1);
    first();
    await waiting[0];
    controller.abort();
    assert.deepEqual(await settled(waiting), ['fulfilled', ...Array.from({ length: waiters - 1 }, () => 'rejected')]);
    assert.equal(semaphore.waiting, 0);
    assert.equal(getEventListeners(controller.signal, 'abort').length, 0);
  });

  it('rate budget', async () => {
    const controller = new AbortController();
    const limiter = createTokenBucketRateLimiter({ requestsPerMinute: 1 });
    await limiter.acquire({ requests: 1 }, { signal: controller.signal });
    const waiting = Array.from({ length: waiters }, () => limiter.acquire({ requests: 1 }, { signal: controller.signal }));
    assert.ok(getEventListeners(controller.signal, 'abort').length <= 1);
    controller.abort();
    assert.deepEqual(await settled(waiting), Array.from({ length: waiters }, () => 'rejected'));
    assert.equal(getEventListeners(controller.signal, 'abort').length, 0);
  });

  it('backoff sleeps', async () => {
    const controller = new AbortController();
    const sleeping = Array.from({ length: waiters }, () => abortableSleep(60_000, controller.signal));
    assert.ok(getEventListeners(controller.signal, 'abort').length <= 1);
    controller.abort();
    assert.deepEqual(await settled(sleeping), Array.from({ length: waiters }, () => 'rejected'));
    await abortableSleep(1, new AbortController().signal);
    const other = new AbortController();
    await Promise.all(Array.from({ length: waiters }, () => abortableSleep(1, other.signal)));
    assert.equal(getEventListeners(other.signal, 'abort').length, 0, 'a finished sleep leaves no listener');
  });
});
