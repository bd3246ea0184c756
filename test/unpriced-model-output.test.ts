import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { startMockOpenAiServer, type MockOpenAiServer } from '../src/testing/index.js';
import { runCliCaptured } from './helpers/run-cli-captured.js';

/*
 * Issue 35: a model kgrag knows no price for showed "$0.0000" in the query footer (and the index progress lines),
 * as if it were free, while the closing cost table said "unknown". Every place now says the cost is unknown.
 */

const root = mkdtempSync(join(tmpdir(), 'kgrag-unpriced-'));
let server: MockOpenAiServer;

before(async () => {
  server = await startMockOpenAiServer({ reply: () => 'Ada keeps the Quenton lighthouse [Data: Sources (1)].' });
  mkdirSync(join(root, 'corpus'));
  writeFileSync(join(root, 'corpus', 'ada.txt'), 'Ada keeps the Quenton lighthouse and rows out every evening.\n');
  writeFileSync(join(root, 'corpus', 'bram.txt'), 'Bram sells rope and nets in the harbour of Quenton.\n');
  mkdirSync(join(root, 'ws'));
  writeFileSync(join(root, 'ws', 'kgrag.yaml'), `llm:\n  baseURL: ${server.url}\n  model: house-model-7b\n  maxRetries: 0\n`);
  const index = await runCliCaptured(['index', 'corpus', '-w', 'ws', '--methods', 'basic'], { cwd: root });
  assert.equal(index.code, 0, index.stderr);
});

after(async () => {
  await server.close();
  rmSync(root, { recursive: true, force: true });
});

describe('a model with no known price', () => {
  test('the query footer says the cost is unknown', async () => {
    const query = await runCliCaptured(['query', 'Who keeps the lighthouse?', '-w', 'ws', '-m', 'basic'], { cwd: root });
    assert.equal(query.code, 0, query.stderr);
    assert.equal(server.stats.completions, 1);
    const footer = query.stdout.trimEnd().split('\n').at(-1) ?? '';
    assert.match(footer, /^method basic:\S+ · \d+ ms · \d+ tokens · cost unknown$/);
    assert.doesNotMatch(query.stdout, /\$0\.0000/);
  });
});
