import assert from 'node:assert/strict';
import { test } from 'node:test';
import { finishTask, runTask, type CooperativeTask } from './cooperative-task.js';

function* countTo(limit: number, log: string[]): CooperativeTask<number> {
  try {
    for (let index = 0; index < limit; index += 1) {
      log.push(`step ${index}`);
      yield;
    }
    return limit;
  } finally {
    log.push('finally');
  }
}

test('finishTask runs a task to its result without pausing', () => {
  const log: string[] = [];
  assert.equal(finishTask(countTo(3, log)), 3);
  assert.deepEqual(log, ['step 0', 'step 1', 'step 2', 'finally']);
});

test('runTask gives the event loop turns between steps', async () => {
  const log: string[] = [];
  setImmediate(() => log.push('event loop'));
  assert.equal(await runTask(countTo(3, log), { turnMs: 0 }), 3);
  assert.ok(log.indexOf('event loop') > 0 && log.indexOf('event loop') < log.indexOf('finally'), log.join(', '));
});

test('runTask stops at the next pause after the signal aborts, and the task cleans up', async () => {
  const log: string[] = [];
  const controller = new AbortController();
  function* abortingMidway(): CooperativeTask<number> {
    const result = yield* countTo(2, log);
    controller.abort();
    log.push('aborted');
    yield;
    log.push('after the abort');
    return result;
  }
  await assert.rejects(runTask(abortingMidway(), { signal: controller.signal, onAbort: () => new Error('stopped') }), /stopped/);
  assert.deepEqual(log, ['step 0', 'step 1', 'finally', 'aborted']);
  const aborted = AbortSignal.abort(new Error('before the start'));
  await assert.rejects(runTask(countTo(2, []), { signal: aborted }), /before the start/);
});
