import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { runCliCaptured } from './helpers/run-cli-captured.js';
import { startTestServer } from './helpers/test-server.js';

// Issue 40: fast mode merges a short name into the longer one its chunk used first ("Clara Ivesley" … "Ivesley"),
// lists the merges, and undoes one on request.
const corpus = fileURLToPath(new URL('../examples/sample-corpus', import.meta.url));
let root: string;
let workspace: string;

before(async () => {
  root = mkdtempSync(join(tmpdir(), 'kgrag-merges-'));
  workspace = join(root, 'ws');
  mkdirSync(workspace);
  writeFileSync(join(workspace, 'kgrag.yaml'), '# my settings\nchunking:\n  size: 600 # tokens\nextract:\n  nlp:\n    mergeShortNames: true\n');
  const indexed = await runCliCaptured(['-w', workspace, 'index', corpus, '-q'], { cwd: root });
  assert.equal(indexed.code, 0, indexed.stderr);
});
after(() => rmSync(root, { recursive: true, force: true }));

test('kgrag entities merges lists a short name merged into the longer name of its chunk, and --undo keeps it apart', async () => {
  const listed = await runCliCaptured(['-w', workspace, 'entities', 'merges', '--json'], { cwd: root });
  assert.equal(listed.code, 0, listed.stderr);
  const merges = (JSON.parse(listed.stdout) as { merges: Array<{ name: string; title: string }> }).merges;
  assert.ok(merges.some((merge) => merge.name === 'Ivesley' && merge.title === 'Clara Ivesley'), JSON.stringify(merges));

  // The same list over HTTP, for a program or the explorer.
  const server = await startTestServer({ directory: workspace });
  try {
    const response = await fetch(`${server.url}/v1/entities/merges?limit=50`);
    assert.equal(response.status, 200);
    const served = (await response.json()) as { merges: Array<{ name: string; title: string }> };
    assert.deepEqual(served.merges, merges.slice(0, 50));
    assert.equal((await fetch(`${server.url}/v1/entities/merges?limit=0`)).status, 400);
  } finally {
    await server.close();
  }

  const undone = await runCliCaptured(['-w', workspace, 'entities', 'merges', '--undo', 'Ivesley'], { cwd: root });
  assert.equal(undone.code, 0, undone.stderr);
  assert.match(undone.stdout, /^Ivesley: its own entity/m);
  const config = readFileSync(join(workspace, 'kgrag.yaml'), 'utf8');
  assert.match(config, /# my settings/, 'the file keeps its comments');
  assert.match(config, /size: 600 # tokens/);
  assert.match(config, /keepApart:\n\s+- Ivesley/);
  const after = JSON.parse((await runCliCaptured(['-w', workspace, 'entities', 'merges', '--json'], { cwd: root })).stdout) as { merges: Array<{ name: string }> };
  assert.ok(!after.merges.some((merge) => merge.name === 'Ivesley'));
});
