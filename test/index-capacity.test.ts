// A document too large for the memory of the process that indexes it is said up front, in the load step, and skipped;
// the rest is indexed. Node's heap limit is what the process may use, so the test gives the CLI a small one.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { nodeScriptArgs, repositoryRoot } from './helpers/node-script.js';

test('a file over what the machine can index is skipped in the load step with a warning naming it; the others are indexed', { timeout: 120_000 }, () => {
  const folder = mkdtempSync(join(tmpdir(), 'kgrag-capacity-'));
  try {
    // 23.6 million characters: at least 5,364 chunks, which need more than the 208 MB this process gets.
    writeFileSync(join(folder, 'ledger.txt'), 'The ketch Wren carried slate from Porthkerris to the quay. '.repeat(400_000));
    writeFileSync(join(folder, 'note.txt'), 'The Kester Weir Bridge was rebuilt in 1952 by the harbour board.');
    const run = spawnSync(process.execPath, ['--max-old-space-size=160', ...nodeScriptArgs('src/cli/main.ts'), 'index', join(folder, 'ledger.txt'), join(folder, 'note.txt'), '-w', join(folder, 'ws'), '--json'], {
      cwd: repositoryRoot,
      env: { PATH: process.env.PATH ?? '' },
      encoding: 'utf8',
    });
    assert.equal(run.status, 0, run.stderr);
    const summary = JSON.parse(run.stdout) as { documents: number; warnings: Array<{ file: string; step: string; code: string; message: string }> };
    assert.equal(summary.documents, 1, 'the small file is indexed');
    const [warning] = summary.warnings;
    assert.equal(summary.warnings.length, 1);
    assert.equal(warning?.code, 'too-large');
    assert.equal(warning?.step, 'load');
    assert.match(warning?.file ?? '', /ledger\.txt$/);
    assert.match(warning?.message ?? '', /ledger\.txt" \(23\.6 million characters\) would make the index at least 5364 chunks, which needs at least 233 MB of memory, more than this process may use \(208 MB, Node's heap limit\), so it was skipped; split it/);
    assert.match(run.stderr, /ledger\.txt/, 'the warning is printed too');
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
});
