import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createKgrag } from '../src/api/create-kgrag.js';
import type { Kgrag } from '../src/api/kgrag.js';
import { runCliCaptured } from './helpers/run-cli-captured.js';
import { sampleWorkspace } from './helpers/test-server.js';

// Issue 41: a variant that needs an LLM and runs another without one says so, in `warnings` and on the CLI's stderr.
let workspace: string;
let kgrag: Kgrag;
before(async () => {
  workspace = await sampleWorkspace();
  kgrag = await createKgrag({ workspace, env: {} });
});
after(async () => kgrag?.close());

test('kgp:agent and global:dynamic without an LLM warn that another selection ran', async () => {
  const agent = await kgrag.query('Who designed the Kester Weir Bridge?', { method: 'kgp:agent' });
  assert.ok(agent.warnings.some((warning) => /kgp:agent needs an LLM.*kgp:kg-tfidf ran instead/.test(warning)), JSON.stringify(agent.warnings));
  const dynamic = await kgrag.query('What are the main themes?', { method: 'global:dynamic' });
  assert.ok(dynamic.warnings.some((warning) => /global:dynamic needs an LLM.*static selection/.test(warning)), JSON.stringify(dynamic.warnings));
  const lexical = await kgrag.query('Who designed the Kester Weir Bridge?', { method: 'kgp:lexical-agent' });
  assert.deepEqual(lexical.warnings, [], 'a variant that needs no LLM warns of nothing');

  const cli = await runCliCaptured(['-w', workspace, 'query', '-m', 'kgp:agent-iterative', 'Who designed the Kester Weir Bridge?'], { cwd: workspace });
  assert.equal(cli.code, 0, cli.stderr);
  assert.match(cli.stderr, /^kgrag: warning: kgp:agent-iterative needs an LLM/m);
});
