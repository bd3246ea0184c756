import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { createKgrag, type Kgrag } from '../src/api/create-kgrag.js';
import type { InputDocument } from '../src/pipeline/pipeline-step.js';
import { readCorpusStatistics } from '../src/pipeline/corpus-statistics.js';
import { embedderStateKey } from '../src/pipeline/steps/embed-chunks-step.js';
import { runCliCaptured } from './helpers/run-cli-captured.js';

const corpus = new URL('../examples/sample-corpus/', import.meta.url).pathname;
const documents: InputDocument[] = readdirSync(corpus)
  .filter((name) => name.endsWith('.md'))
  .sort()
  .map((name) => ({ title: name, text: readFileSync(join(corpus, name), 'utf8'), source: `sample:${name}` }));

const folders: string[] = [];
const opened: Kgrag[] = [];
async function open(config: Record<string, unknown> = {}): Promise<Kgrag> {
  const folder = mkdtempSync(join(tmpdir(), 'kgrag-frozen-statistics-'));
  folders.push(folder);
  const kgrag = await createKgrag({ workspace: folder, env: {}, config: { index: { mode: 'fast', ...config } } });
  opened.push(kgrag);
  return kgrag;
}

/** What the local embedder's frozen statistics decide: its stored state and the chunk vectors, by id. */
async function embedding(kgrag: Kgrag): Promise<{ state: string; vectors: Map<string, string> }> {
  const state = Buffer.from((await kgrag.store.getBlob(embedderStateKey)) ?? new Uint8Array()).toString('base64');
  const matrix = await kgrag.store.vectors('chunks').load();
  const vectors = new Map(
    matrix.ids.map((id, row) => [id, Buffer.from(matrix.matrix.buffer, matrix.matrix.byteOffset + row * matrix.dimensions * 4, matrix.dimensions * 4).toString('base64')]),
  );
  return { state, vectors };
}

const basicOnly = { methods: ['basic'] };

describe('frozen corpus statistics (index.refreshShare)', { timeout: 300_000 }, () => {
  after(async () => {
    for (const kgrag of opened) await kgrag.close();
    for (const folder of folders) rmSync(folder, { recursive: true, force: true });
  });

  it('keeps the fitted statistics for an update below the share: old vectors stay, new chunks use the stored state', async () => {
    const kgrag = await open();
    await kgrag.index(documents.slice(0, 30), basicOnly);
    const before = await embedding(kgrag);
    const fitted = await readCorpusStatistics(kgrag.store);
    assert.ok(fitted);
    const summary = await kgrag.index(documents.slice(30, 31), basicOnly);
    assert.equal(summary.counts['statistics']?.['refreshed'], 0);
    assert.equal(summary.counts['embed-chunks']?.['refitted'], 0);
    const afterUpdate = await embedding(kgrag);
    assert.equal(afterUpdate.state, before.state, 'the embedder state is the one fitted at the refresh');
    for (const [id, vector] of before.vectors) assert.equal(afterUpdate.vectors.get(id), vector, `chunk ${id} kept its vector`);
    assert.equal(afterUpdate.vectors.size, before.vectors.size + (summary.counts['chunk']?.['added'] ?? 0));
    const statistics = await readCorpusStatistics(kgrag.store);
    assert.equal(statistics?.epoch, fitted.epoch);
    assert.equal(statistics?.chunks, fitted.chunks);
    assert.equal(statistics?.changedChunks, summary.counts['chunk']?.['added']);
    const stats = await kgrag.stats();
    assert.equal(stats.statistics?.documents, 30);
    assert.ok(Math.abs((stats.statistics?.changedShare ?? 0) - (statistics?.changedChunks ?? 0) / fitted.chunks) < 1e-12);

    // A fresh build of the same documents fits other statistics: the frozen index is not one.
    const fresh = await open();
    await fresh.index(documents.slice(0, 31), basicOnly);
    assert.notEqual((await embedding(fresh)).state, afterUpdate.state);
  });

  it('refits once the drift passes the share, and then equals a fresh build', async () => {
    const kgrag = await open({ refreshShare: 0.1 });
    await kgrag.index(documents.slice(0, 25), basicOnly);
    const first = await kgrag.index(documents.slice(25, 27), basicOnly);
    assert.equal(first.counts['statistics']?.['refreshed'], 0, 'two of 25 documents stay below 10 %');
    const second = await kgrag.index(documents.slice(27, 29), basicOnly);
    assert.equal(second.counts['statistics']?.['refreshed'], 1, 'four of 25 pass 10 %');
    assert.equal(second.counts['embed-chunks']?.['refitted'], 1);
    assert.equal((await readCorpusStatistics(kgrag.store))?.changedChunks, 0);
    const fresh = await open();
    await fresh.index(documents.slice(0, 29), basicOnly);
    assert.deepEqual(await embedding(kgrag), await embedding(fresh));
  });

  it('deletions count as drift too', async () => {
    const kgrag = await open({ refreshShare: 0.1 });
    await kgrag.index(documents.slice(0, 20), basicOnly);
    const removed = await kgrag.delete(['sample:' + (documents[0] as InputDocument).title]);
    assert.equal(removed.run.counts['statistics']?.['refreshed'], 0);
    assert.ok(((await readCorpusStatistics(kgrag.store))?.changedChunks ?? 0) > 0);
  });

  it('--refresh refits now, whatever the drift: the index equals a fresh build', async () => {
    const workspace = mkdtempSync(join(tmpdir(), 'kgrag-frozen-statistics-cli-'));
    folders.push(workspace);
    const docs = join(workspace, 'docs');
    mkdirSync(docs);
    for (const document of documents.slice(0, 12)) writeFileSync(join(docs, document.title), document.text);
    const cli = (...args: string[]) => runCliCaptured(['--workspace', workspace, ...args], { cwd: workspace });
    assert.equal((await cli('index', docs, '--methods', 'basic')).code, 0);
    writeFileSync(join(docs, (documents[12] as InputDocument).title), (documents[12] as InputDocument).text);
    assert.equal((await cli('index', docs, '--methods', 'basic')).code, 0);
    const listed = await cli('documents');
    assert.match(listed.stderr, /statistics from 12 documents \(.+ UTC\); [\d.]+ % changed since, refit past 20 %/);
    const json = JSON.parse((await cli('documents', '--json')).stdout) as { statistics: { documents: number; changedChunks: number } };
    assert.equal(json.statistics.documents, 12);
    assert.ok(json.statistics.changedChunks > 0);
    const refreshed = await cli('index', docs, '--methods', 'basic', '--refresh', '--json');
    assert.equal(refreshed.code, 0, refreshed.stderr);
    const fresh = await open();
    await fresh.index([docs], basicOnly);
    const kgrag = await createKgrag({ workspace, env: {} });
    opened.push(kgrag);
    assert.equal((await readCorpusStatistics(kgrag.store))?.documents, 13);
    assert.deepEqual(await embedding(kgrag), await embedding(fresh));
  });
});
