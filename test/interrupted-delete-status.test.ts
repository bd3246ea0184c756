// Issue 35, item 9: a `kgrag delete` killed with kill -9 recorded nothing, so queries answered from the index that
// still holds the documents being deleted without a word — or repeated an older, unrelated failure. A writer now
// records what it does before it touches the draft, and readers report a run whose process is gone.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createKgrag } from '../src/api/create-kgrag.js';
import { nodeScriptArgs, repositoryRoot } from './helpers/node-script.js';
import { runCliCaptured } from './helpers/run-cli-captured.js';

const deleteUntil = fileURLToPath(new URL('./helpers/delete-until.ts', import.meta.url));
const indexUntil = fileURLToPath(new URL('./helpers/index-until.ts', import.meta.url));

const texts: Record<string, string> = {
  'harbour.md': '# Harbour\n\nThe harbour of Kestermouth was dredged in 1901 by the Kester Navigation Company.',
  'mill.md': '# Sedley Mill\n\nSedley Mill ground corn on the River Kester until 1954, when the Marle family closed it.',
  'fair.md': '# Lantern Fair\n\nThe Lantern Fair is held on the quay of Kestermouth every October since 1988.',
};
const question = 'When was the harbour of Kestermouth dredged?';

interface QueryJson {
  warnings: string[];
  context: { chunks: Array<{ text: string }> };
}

describe('a kgrag delete killed with kill -9', () => {
  const root = mkdtempSync(join(tmpdir(), 'kgrag-killed-delete-'));
  const workspace = join(root, 'workspace');
  const cli = (...args: string[]) => runCliCaptured([...args, '-w', workspace, '-q'], { cwd: workspace });
  const query = async (): Promise<{ stderr: string; json: QueryJson }> => {
    const text = await cli('query', question, '-m', 'basic:bm25', '--context-only');
    assert.equal(text.code, 0, text.stderr);
    const json = await cli('query', question, '-m', 'basic:bm25', '--context-only', '--json');
    assert.equal(json.code, 0, json.stderr);
    return { stderr: text.stderr, json: JSON.parse(json.stdout) as QueryJson };
  };
  const status = async () => {
    const kgrag = await createKgrag({ workspace, env: {} });
    try {
      return await kgrag.status();
    } finally {
      await kgrag.close();
    }
  };
  /** Runs a helper that kills itself with SIGKILL at the start of step `chunk`. */
  const killedAtChunk = (helper: string, ...args: string[]): void => {
    const child = spawnSync(process.execPath, [...nodeScriptArgs(helper), ...args], { cwd: repositoryRoot, encoding: 'utf8' });
    assert.equal(child.signal, 'SIGKILL', `the child ended before being killed (code ${child.status}): ${child.stderr}`);
  };

  before(async () => {
    mkdirSync(join(workspace, 'docs'), { recursive: true });
    for (const [name, text] of Object.entries(texts)) writeFileSync(join(workspace, 'docs', name), text);
    writeFileSync(join(root, 'ferry.md'), '# Ferry\n\nThe chain ferry crossed the Kester below the weir until the bridge opened in 1931.');
    writeFileSync(join(root, 'quay.md'), '# Quay\n\nThe quay of Kestermouth was rebuilt in stone in 1872 after the great storm.');
    // Every process, the children included, builds the index for `basic` only (JSON is YAML).
    writeFileSync(join(workspace, 'kgrag.yaml'), JSON.stringify({ pipeline: { methods: ['basic'] } }));
    const indexed = await cli('index', 'docs');
    assert.equal(indexed.code, 0, indexed.stderr);
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  it('is reported by queries (not an older failure) until a run publishes, naming the documents still cited', async () => {
    // An older, unrelated failure, recorded by the process that ended it.
    const kgrag = await createKgrag({ workspace, env: {} });
    await assert.rejects(
      kgrag.index([join(root, 'ferry.md')], {
        onEvent(event) {
          if (event.type === 'step-start' && event.step === 'chunk') throw new Error('injected failure at chunk');
        },
      }),
      /injected failure at chunk/,
    );
    await kgrag.close();
    assert.match((await query()).stderr, /the last index run failed at step chunk .*injected failure at chunk/);

    // The deletion resumes that draft, removes the document from it, and is killed.
    killedAtChunk(deleteUntil, workspace, 'step-start', 'chunk', 'docs/harbour.md');
    const killed = await query();
    const warning =
      /^kgrag: warning: the last index run was interrupted \(the process stopped without finishing: killed or crashed\) — `kgrag delete docs\/harbour\.md`, started \S+; it was deleting 1 document \("Harbour", id [0-9a-f]{12}\), and answers come from index generation 0 \(published \S+\), which still holds them: answers may cite them until `kgrag delete` or `kgrag index` is run again/m;
    assert.match(killed.stderr, warning);
    assert.doesNotMatch(killed.stderr, /injected failure/, 'the older failure is not reported instead');
    assert.equal(killed.json.warnings.length, 1, killed.json.warnings.join('\n'));
    assert.match(`kgrag: warning: ${killed.json.warnings[0]}`, warning);
    assert.ok(killed.json.context.chunks.some((chunk) => chunk.text.includes('dredged in 1901')), 'the published index still holds the document');
    const recorded = (await status()).unpublished;
    assert.equal(recorded?.status, 'interrupted');
    assert.equal(recorded?.processGone, true);
    assert.equal(recorded?.command, 'kgrag delete docs/harbour.md');
    assert.deepEqual(recorded?.deleting.map((document) => document.title), ['Harbour']);

    // A writer that resumes the draft and is killed too still leaves the deletion reported: the draft holds it.
    killedAtChunk(indexUntil, workspace, join(root, 'quay.md'), 'step-start', 'chunk');
    const twice = await query();
    assert.match(twice.stderr, /killed or crashed\) — `index`, started \S+; it was deleting 1 document \("Harbour", id [0-9a-f]{12}\)/);
    assert.equal(twice.json.warnings.length, 1, twice.json.warnings.join('\n'));

    // Deleting again resumes the draft and publishes it: the warning goes, and so does the document.
    const rerun = await cli('delete', 'docs/harbour.md');
    assert.equal(rerun.code, 0, rerun.stderr);
    const published = await query();
    assert.doesNotMatch(published.stderr, /warning/);
    assert.deepEqual(published.json.warnings, []);
    assert.ok(!published.json.context.chunks.some((chunk) => chunk.text.includes('dredged in 1901')), 'the deleted document is gone');
    assert.equal((await status()).unpublished, undefined);
  });
});

describe('the warnings of a query', () => {
  it('are escaped on the terminal, where text from the input cannot move the cursor or reorder the line, and kept in --json', async () => {
    const root = mkdtempSync(join(tmpdir(), 'kgrag-query-warnings-'));
    try {
      const workspace = join(root, 'workspace');
      mkdirSync(join(workspace, 'docs'), { recursive: true });
      writeFileSync(join(workspace, 'docs', 'harbour.md'), texts['harbour.md'] as string);
      writeFileSync(join(workspace, 'kgrag.yaml'), JSON.stringify({ pipeline: { methods: ['basic'] } }));
      const cli = (...args: string[]) => runCliCaptured([...args, '-w', workspace, '-q'], { cwd: workspace });
      assert.equal((await cli('index', 'docs')).code, 0);
      // A failed run's error is quoted in the warning; here it carries an escape sequence and a bidi override.
      const kgrag = await createKgrag({ workspace, env: {} });
      await assert.rejects(
        kgrag.index([join(workspace, 'docs')], {
          prune: true,
          onEvent(event) {
            if (event.type === 'step-start' && event.step === 'load') throw new Error('bad \u001b[2J file \u202eevil');
          },
        }),
      );
      await kgrag.close();
      const text = await cli('query', question, '-m', 'basic:bm25', '--context-only');
      assert.match(text.stderr, /kgrag: warning: the last index run failed .*bad \\e\[2J file \\u202eevil/);
      assert.doesNotMatch(text.stderr, /\u001b|\u202e/);
      const json = JSON.parse((await cli('query', question, '-m', 'basic:bm25', '--context-only', '--json')).stdout) as QueryJson;
      assert.ok(json.warnings.some((warning) => warning.includes('bad \u001b[2J file \u202eevil')));
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
