import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readableLogLine } from './readable-log-line.js';

test('a request log line reads as method, path, status, time and caller', () => {
  const line = JSON.stringify({ level: 30, time: Date.UTC(2026, 11, 4, 2, 3, 4, 567), requestId: 'r1', method: 'POST', path: '/v1/query', status: 200, ms: 12, caller: 'key-1', msg: 'request' });
  assert.equal(readableLogLine(line), '02:03:04.567 POST /v1/query 200 12 ms (key-1)');
});

test('another line reads as level, message, error and fields; a line that is not JSON is kept', () => {
  const line = JSON.stringify({ level: 40, time: Date.UTC(2026, 11, 4, 2, 3, 4, 5), msg: 'could not prepare the explorer graph', workspace: 'a', err: { message: 'disk full' } });
  assert.equal(readableLogLine(line), '02:03:04.005 warn: could not prepare the explorer graph — disk full workspace=a');
  assert.equal(readableLogLine('plain text\n'), 'plain text');
});
