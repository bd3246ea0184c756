import assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import { describe, it } from 'node:test';
import { onAbort } from './on-abort.js';

describe('onAbort', () => {
  it('shares one listener among every callback of a signal and calls each once on abort', () => {
    const controller = new AbortController();
    const calls: number[] = [];
    for (let index = 0; index < 50; index += 1) onAbort(controller.signal, () => calls.push(index));
    assert.equal(getEventListeners(controller.signal, 'abort').length, 1);
    controller.abort();
    controller.abort();
    assert.deepEqual(calls, Array.from({ length: 50 }, (_, index) => index));
    assert.equal(getEventListeners(controller.signal, 'abort').length, 0);
  });

  it('cancelled callbacks are not called, and the listener goes with the last one', () => {
    const controller = new AbortController();
    const calls: string[] = [];
    const cancelFirst = onAbort(controller.signal, () => calls.push('first'));
    const cancelSecond = onAbort(controller.signal, () => calls.push('second'));
    cancelFirst();
    cancelFirst();
    assert.equal(getEventListeners(controller.signal, 'abort').length, 1);
    cancelSecond();
    assert.equal(getEventListeners(controller.signal, 'abort').length, 0);
    onAbort(controller.signal, () => calls.push('third'));
    controller.abort();
    assert.deepEqual(calls, ['third']);
  });
});
