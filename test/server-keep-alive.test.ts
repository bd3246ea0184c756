// A keep-alive client must not lose a request to the server's idle timer when the event loop was busy: Node runs
// expired timers before it reads sockets, so with its 5 s keep-alive timeout a request that arrived during 5 s of
// CPU work (a slow query under load) found its connection destroyed — ECONNRESET under the serve benchmark.
import assert from 'node:assert/strict';
import { Agent, request } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { startTestServer } from './helpers/test-server.js';

function get(url: string, agent: Agent): Promise<number> {
  return new Promise((resolve, reject) => {
    const sent = request(`${url}/health`, { agent }, (response) => {
      response.resume();
      response.once('end', () => resolve(response.statusCode ?? 0));
    });
    sent.once('error', reject);
    sent.end();
  });
}

test('a request sent on a kept-alive connection while the event loop is busy for 6 s is answered, not reset', { timeout: 60_000 }, async () => {
  // /health needs no index: an empty workspace keeps the test to its point.
  const directory = mkdtempSync(join(tmpdir(), 'kgrag-keep-alive-'));
  const server = await startTestServer({ directory });
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  try {
    assert.equal(await get(server.url, agent), 200);
    const second = get(server.url, agent);
    // The request is written; the loop now stays blocked past Node's default keep-alive timeout of 5 s. Atomics.wait
    // blocks the thread as CPU work would (timers and sockets wait alike), without taking a core from the other tests.
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 6000);
    assert.equal(await second, 200);
  } finally {
    agent.destroy();
    await server.close();
    rmSync(directory, { recursive: true, force: true });
  }
});
