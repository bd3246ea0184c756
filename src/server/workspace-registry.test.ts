import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { createKgrag } from '../api/create-kgrag.js';
import { type ServedWorkspace, createWorkspaceRegistry } from './workspace-registry.js';

test('onIndexReady is told when a workspace opens and after each job that published, not after one that failed', async () => {
  const directory = mkdtempSync(join(tmpdir(), 'kgrag-registry-'));
  const ready: string[] = [];
  const registry = createWorkspaceRegistry({
    layout: 'single',
    directory,
    openKgrag: (folder) => createKgrag({ workspace: folder, env: {}, config: { index: { mode: 'fast' } } }),
    onIndexReady: (workspace) => ready.push(workspace.name),
  });
  try {
    const workspace = await registry.open('default');
    assert.deepEqual(ready, ['default']);
    const ended = (id: string): Promise<void> =>
      new Promise((resolve) => {
        void workspace.jobs.subscribe(id, ({ job }) => {
          if (job.endedAt !== null) resolve();
        }).then((subscription) => {
          if (subscription?.job.endedAt !== null) resolve();
        });
      });
    const added = await workspace.jobs.submit({ kind: 'index', documents: [{ title: 'Weir', text: 'The Kester Weir marks the tidal limit of the River Kester.' }], paths: [] });
    await ended(added.id);
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(ready, ['default', 'default']);
    const failed = await workspace.jobs.submit({ kind: 'delete', selectors: ['no-such-document'], files: [] });
    await ended(failed.id);
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal((await workspace.jobs.get(failed.id))?.status, 'failed');
    assert.deepEqual(ready, ['default', 'default'], 'a failed job published nothing');
  } finally {
    await registry.close();
    rmSync(directory, { recursive: true, force: true });
  }
});

test('the served workspace given to onIndexReady is the one open() returns', async () => {
  const directory = mkdtempSync(join(tmpdir(), 'kgrag-registry-'));
  let told: ServedWorkspace | undefined;
  const registry = createWorkspaceRegistry({ layout: 'single', directory, openKgrag: (folder) => createKgrag({ workspace: folder, env: {} }), onIndexReady: (workspace) => (told = workspace) });
  try {
    assert.equal(await registry.open('default'), told);
  } finally {
    await registry.close();
    rmSync(directory, { recursive: true, force: true });
  }
});
