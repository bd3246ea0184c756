import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { growthExponent, makeKnnGraphsExact, parseScaleBackends, parseScaleSizes } from '../bench/scale.js';
import { everyKnnGraphExact } from '../bench/scale-knn-recall.js';
import { loadConfig } from '../src/core/config/load-config.js';

test('scale benchmark options: sizes, backends, and the growth exponent fit', () => {
  assert.deepEqual(parseScaleSizes(undefined), [1, 4, 16]);
  assert.deepEqual(parseScaleSizes('4,1,4'), [1, 4]);
  assert.throws(() => parseScaleSizes('1,x'), /--sizes takes positive integers/);
  assert.deepEqual(parseScaleBackends(undefined).map((backend) => backend.name), ['sqlite', 'postgres']);
  assert.deepEqual(parseScaleBackends('postgres, sqlite').map((backend) => backend.name), ['sqlite', 'postgres']);
  assert.deepEqual(parseScaleBackends('postgres').map((backend) => backend.name), ['postgres']);
  assert.throws(() => parseScaleBackends('mysql'), /--backends takes sqlite, postgres/);
  assert.equal(Math.round(growthExponent([{ x: 1, y: 3 }, { x: 4, y: 3 * 4 ** 1.2 }, { x: 16, y: 3 * 16 ** 1.2 }]) * 1000) / 1000, 1.2);
});

test('--exact-knn reaches the index through kgrag.yaml: alone (sqlite) and after the store section the postgres backend writes', async () => {
  const folder = mkdtempSync(join(tmpdir(), 'kgrag-scale-options-'));
  try {
    const sqlite = join(folder, 'sqlite');
    const postgres = join(folder, 'postgres');
    mkdirSync(sqlite);
    mkdirSync(postgres);
    writeFileSync(join(postgres, 'kgrag.yaml'), 'store:\n  backend: postgres\n  url: "postgres://kgrag@localhost:5432/kgrag"\n  workspace: scale\n');
    for (const workspace of [sqlite, postgres]) {
      makeKnnGraphsExact(workspace);
      const { config } = await loadConfig({ workspace, env: {} });
      assert.equal(config.index.knn.exactUpTo, everyKnnGraphExact);
      assert.ok(everyKnnGraphExact > 16 * 6121 * 100, 'above the chunks of any scale build');
    }
    assert.equal((await loadConfig({ workspace: postgres, env: {} })).config.store.backend, 'postgres');
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
});
