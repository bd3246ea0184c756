// `kgrag documents`, `kgrag delete` and `kgrag index --prune` through the command line (issue 18).
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runCliCaptured } from './helpers/run-cli-captured.js';

const texts: Record<string, string> = {
  'harbour.md': '# Harbour\n\nThe harbour of Kestermouth was dredged in 1901 by the Kester Navigation Company.',
  'mill.md': '# Sedley Mill\n\nSedley Mill ground corn on the River Kester until 1954, when the Marle family closed it.',
  'drafts/fair.md': '# Lantern Fair\n\nThe Lantern Fair is held on the quay of Kestermouth every October since 1988.',
  'drafts/ferry.md': '# Ferry\n\nThe chain ferry crossed the Kester below the weir until the bridge opened in 1931.',
};

interface DocumentJson {
  id: string;
  title: string;
  source: string;
  chunks: number;
  indexedAt: string;
  status: string;
}

describe('kgrag documents, delete and index --prune', () => {
  let workspace: string;
  let docs: string;
  const cli = (...args: string[]) => runCliCaptured([...args, '-w', workspace, '-q'], { cwd: workspace });
  const listed = async (): Promise<DocumentJson[]> => (JSON.parse((await cli('documents', '--json')).stdout) as { documents: DocumentJson[] }).documents;

  before(async () => {
    workspace = mkdtempSync(join(tmpdir(), 'kgrag-cli-delete-'));
    docs = join(workspace, 'docs');
    mkdirSync(join(docs, 'drafts'), { recursive: true });
    for (const [name, text] of Object.entries(texts)) writeFileSync(join(docs, name), text);
    const indexed = await cli('index', 'docs', '--methods', 'basic');
    assert.equal(indexed.code, 0, indexed.stderr);
  });
  after(() => rmSync(workspace, { recursive: true, force: true }));

  it('lists every document with its id, chunks, source and status', async () => {
    const documents = await listed();
    assert.deepEqual(documents.map((document) => document.title).sort(), ['Harbour', 'Lantern Fair', 'Sedley Mill', 'Ferry'].sort());
    for (const document of documents) {
      assert.equal(document.status, 'indexed');
      assert.equal(document.chunks, 1);
      assert.ok(document.source.startsWith(docs), 'sources are absolute paths');
    }
    const table = await cli('documents');
    assert.match(table.stdout, /^id\s+chunks\s+indexed \(UTC\)\s+title {2}source/m);
  });

  it('refuses a selector that matches nothing, removing nothing', async () => {
    const run = await cli('delete', 'docs/harbour.md', 'no-such-document');
    assert.equal(run.code, 1);
    assert.match(run.stderr, /selector "no-such-document" matches none of the 4 indexed documents, so nothing was deleted/);
    assert.equal((await listed()).length, 4);
  });

  it('--dry-run lists what a glob chooses and changes nothing', async () => {
    const run = await cli('delete', 'drafts/*.md', '--dry-run');
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /would delete 2 documents:/);
    assert.match(run.stdout, /Lantern Fair/);
    // After the list, what the index keeps and what the update costs; nothing about how an index is built.
    assert.match(run.stdout, /\nthe index would keep 2 documents, \d+ chunks of \d+ tokens\nfast mode: 0 LLM calls, 0 tokens, \$0\n$/);
    assert.doesNotMatch(run.stdout, /note:|removed\)/);
    assert.equal(run.stderr, '', 'nothing stray on stderr either');
    assert.equal((await listed()).length, 4);
  });

  it('deletes by path and by id prefix, and says so', async () => {
    const ferry = (await listed()).find((document) => document.title === 'Ferry') as DocumentJson;
    const run = await cli('delete', 'docs/mill.md', ferry.id.slice(0, 10), '--json');
    assert.equal(run.code, 0, run.stderr);
    const summary = JSON.parse(run.stdout) as { deleted: DocumentJson[]; documents: number; cache: { kept: boolean }; ran: string[] };
    assert.ok(!summary.ran.includes('nlp-extract') && !summary.ran.includes('triples'), `a deletion builds nothing the index was not built for: ${summary.ran.join(' ')}`);
    assert.deepEqual(summary.deleted.map((document) => document.title).sort(), ['Ferry', 'Sedley Mill']);
    assert.equal(summary.documents, 2);
    assert.equal(summary.cache.kept, false);
    const query = await cli('query', 'When did Sedley Mill close?', '-m', 'basic:bm25', '--json');
    const sources = (JSON.parse(query.stdout) as { context: { chunks?: Array<{ documentId: string }> } }).context;
    assert.ok(!JSON.stringify(sources).includes('Sedley Mill ground corn'), 'a deleted document is no longer retrieved');
  });

  it('keeps a document whose file is gone unless --prune, and names what --prune removes', async () => {
    rmSync(join(docs, 'harbour.md'));
    const kept = await runCliCaptured(['index', 'docs', '-w', workspace], { cwd: workspace });
    assert.equal(kept.code, 0, kept.stderr);
    assert.match(kept.stderr, /1 indexed document was not found under the given paths \(.*harbour\.md\) and is kept; run the same command with --prune/);
    assert.equal((await listed()).find((document) => document.title === 'Harbour')?.status, 'source-missing');
    const pruned = await runCliCaptured(['index', 'docs', '--prune', '-w', workspace], { cwd: workspace });
    assert.equal(pruned.code, 0, pruned.stderr);
    assert.match(pruned.stderr, /removed \(--prune\): .*harbour\.md "Harbour"/);
    // The documents deleted above are indexed again: their files are still in the folder.
    assert.deepEqual((await listed()).map((document) => document.title).sort(), ['Ferry', 'Lantern Fair', 'Sedley Mill']);
  });

  it('refuses to delete every document', async () => {
    const run = await cli('delete', 'docs');
    assert.equal(run.code, 1);
    assert.match(run.stderr, /would remove all 3 documents of the index, leaving it empty; nothing was removed/);
    assert.equal((await listed()).length, 3);
  });
});
