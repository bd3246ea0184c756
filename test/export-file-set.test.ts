import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createKgrag } from '../src/api/create-kgrag.js';
import { nodeScriptArgs, repositoryRoot } from './helpers/node-script.js';
import { runCliCaptured } from './helpers/run-cli-captured.js';

/*
 * Issue 35: an export stopped by a full disk left some of its files in the target folder, and the rerun refused that
 * folder until --overwrite. The file set is now written into a folder beside the target and renamed into place
 * when complete. The full disk is real: the export runs in a child whose file size limit (ulimit -f, RLIMIT_FSIZE)
 * makes a write past 4 KiB fail with EFBIG, which kgrag reads as a full disk.
 */

const corpus = fileURLToPath(new URL('../examples/sample-corpus/', import.meta.url));
const root = mkdtempSync(join(tmpdir(), 'kgrag-export-set-'));
after(() => rmSync(root, { recursive: true, force: true }));
const workspace = join(root, 'ws');
const hasBash = spawnSync('bash', ['-c', 'ulimit -f 4'], { encoding: 'utf8' }).status === 0;

/** `kgrag export` in a child that cannot write a file past 4 KiB. */
function exportWithFullDisk(args: string[]): { status: number | null; stderr: string } {
  const command = [process.execPath, ...nodeScriptArgs('src/cli/main.ts'), 'export', ...args, '-w', workspace];
  const child = spawnSync('bash', ['-c', 'ulimit -f 4 && exec "$@"', 'bash', ...command], { cwd: repositoryRoot, encoding: 'utf8', env: { PATH: process.env.PATH ?? '' } });
  return { status: child.status, stderr: child.stderr };
}

before(async () => {
  const kgrag = await createKgrag({ workspace, env: {}, config: { pipeline: { methods: ['basic'] } } });
  try {
    await kgrag.index(['02-river-kester.md', '05-clara-ivesley.md', '06-marle-boatworks.md'].map((file) => join(corpus, file)));
  } finally {
    await kgrag.close();
  }
});

describe('an export that runs out of disk space', { skip: hasBash ? false : 'needs bash for ulimit' }, () => {
  test('leaves no file of its set behind, and the rerun needs no --overwrite', async () => {
    const target = join(root, 'out-neo4j');
    const failed = exportWithFullDisk(['--format', 'neo4j', target]);
    assert.equal(failed.status, 1, failed.stderr);
    assert.match(failed.stderr, /disk is full/);
    assert.equal(existsSync(target), false, `no partial set in the target: ${existsSync(target) ? readdirSync(target).join(', ') : ''}`);
    assert.deepEqual(readdirSync(root).filter((name) => name.startsWith('out-neo4j')), [], 'nor a staging folder beside it');

    const rerun = await runCliCaptured(['export', '--format', 'neo4j', target, '-w', workspace], { cwd: root });
    assert.equal(rerun.code, 0, rerun.stderr);
    assert.ok(readdirSync(target).includes('README.txt') && readdirSync(target).includes('chunks.csv'));
  });

  test('with --overwrite, leaves the folder as it was when the new export fails', async () => {
    const target = join(root, 'out-overwrite');
    mkdirSync(target);
    writeFileSync(join(target, 'notes.txt'), 'my notes');
    writeFileSync(join(target, 'entities.csv'), 'an earlier export');
    const failed = exportWithFullDisk(['--format', 'neo4j', target, '--overwrite']);
    assert.equal(failed.status, 1, failed.stderr);
    assert.match(failed.stderr, /disk is full/);
    assert.deepEqual(readdirSync(target).sort(), ['entities.csv', 'notes.txt']);
    assert.equal(readFileSync(join(target, 'entities.csv'), 'utf8'), 'an earlier export', 'no file of the failed export replaced one');

    const rerun = await runCliCaptured(['export', '--format', 'neo4j', target, '-w', workspace, '--overwrite'], { cwd: root });
    assert.equal(rerun.code, 0, rerun.stderr);
    assert.ok(readdirSync(target).includes('notes.txt') && readdirSync(target).includes('README.txt'), 'the export replaces its own files and keeps the others');
    assert.notEqual(readFileSync(join(target, 'entities.csv'), 'utf8'), 'an earlier export');
  });
});

test('a staging folder an interrupted export left is cleared by the next export', async () => {
  const target = join(root, 'out-graphml');
  mkdirSync(`${target}.partial`);
  writeFileSync(join(`${target}.partial`, 'graph.graphml'), '<graphml');
  const run = await runCliCaptured(['export', '--format', 'graphml', target, '-w', workspace], { cwd: root });
  assert.equal(run.code, 0, run.stderr);
  assert.deepEqual(readdirSync(target), ['graph.graphml']);
  assert.equal(existsSync(`${target}.partial`), false);
});

test('an export into an empty folder that exists fills it', async () => {
  const target = join(root, 'out-graphrag');
  mkdirSync(target);
  const run = await runCliCaptured(['export', '--format', 'graphrag', target, '-w', workspace], { cwd: root });
  assert.equal(run.code, 0, run.stderr);
  assert.ok(readdirSync(target).includes('documents.parquet'));
});
