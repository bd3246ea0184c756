import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { builtInStores } from '../src/api/built-in-stores.js';
import { createKgrag } from '../src/api/create-kgrag.js';
import { exportFormats } from '../src/api/export-index.js';
import { builtInExporters, type IndexExporter } from '../src/api/index-exporter.js';
import { KgragError } from '../src/core/errors.js';
import { singleStoreWorkspace } from '../src/store/single-store-workspace.js';
import { openSqliteStore } from '../src/store/sqlite/sqlite-store.js';

/*
 * createKgrag's storage backends and export formats are values it is given, with the built-ins as the default: a
 * backend named by store.backend, and an export format, that kgrag does not ship are used like the built-in ones.
 */

const folder = mkdtempSync(join(tmpdir(), 'kgrag-registries-'));
after(() => rmSync(folder, { recursive: true, force: true }));
const documents = [
  { title: 'Weir', text: 'The Kester weir was rebuilt in 1952 after the flood.' },
  { title: 'Ferry', text: 'A chain ferry crossed the river at the head of the tide.' },
];

/** Writes one file listing the titles of the indexed documents. */
const titlesExporter: IndexExporter = {
  format: 'titles',
  description: 'the document titles, one a line',
  async write(store, target) {
    const titles = (await store.table('documents').pick(['title'])).map((row) => row.title).sort();
    writeFileSync(join(target, 'titles.txt'), `${titles.join('\n')}\n`);
    return [{ name: 'titles.txt', holds: `${titles.length} titles` }];
  },
};

describe('open registries of createKgrag', () => {
  test('the built-in export formats are the exporters kgrag ships', () => {
    assert.deepEqual(builtInExporters.map((exporter) => exporter.format), [...exportFormats]);
  });

  test('a storage backend given by name serves store.backend, and an unknown one is refused with the names', async () => {
    let opened = 0;
    const kgrag = await createKgrag({
      workspace: join(folder, 'memory'),
      env: {},
      stores: { ...builtInStores, memory: async () => (opened++, singleStoreWorkspace(openSqliteStore(':memory:'))) },
      config: { store: { backend: 'memory' } },
    });
    try {
      assert.equal(opened, 1);
      await kgrag.index(documents);
      const hits = await kgrag.retrieve('weir rebuilt', { method: 'basic:bm25' });
      assert.equal(hits.retrieval.chunks[0]?.documentTitle, 'Weir');
    } finally {
      await kgrag.close();
    }
    await assert.rejects(createKgrag({ workspace: join(folder, 'unknown'), env: {}, config: { store: { backend: 'memory' } } }), (error: unknown) => {
      assert.ok(KgragError.isInstance(error));
      assert.equal(error.code, 'CONFIG_UNKNOWN_STORE');
      assert.match(error.message, /store\.backend "memory" names no storage backend of this workspace \(sqlite, postgres\)/);
      return true;
    });
  });

  test('an export format given as an exporter writes like the built-in ones, and is listed when a format is unknown', async () => {
    const kgrag = await createKgrag({ env: {}, exporters: [...builtInExporters, titlesExporter], config: { store: { path: ':memory:' } } });
    try {
      await kgrag.index(documents);
      const directory = join(folder, 'titles');
      const summary = await kgrag.export({ format: 'titles', directory });
      assert.deepEqual(summary.files, [{ file: join(directory, 'titles.txt'), holds: '2 titles' }]);
      assert.equal(readFileSync(join(directory, 'titles.txt'), 'utf8'), 'Ferry\nWeir\n');
      await assert.rejects(kgrag.export({ format: 'csv', directory: join(folder, 'csv') }), /unknown export format "csv"/);
      await assert.rejects(kgrag.export({ format: 'csv', directory: join(folder, 'csv') }), (error: unknown) => KgragError.isInstance(error) && /graphrag, graphml, neo4j, titles/.test(error.hint ?? ''));
    } finally {
      await kgrag.close();
    }
  });
});
