// Issue 18: deleting a document means gone. Documents carrying unique marker strings are indexed with part of the
// sample corpus, queried, then deleted; afterwards no table row, no stored blob, and no byte of any file of the
// workspace (the index, its write-ahead log, the state file with the query cache) may hold a marker.
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inflateRawSync } from 'node:zlib';
import { after, describe, it } from 'node:test';
import { createKgrag, type Kgrag } from '../src/api/create-kgrag.js';
import type { TableName } from '../src/store/schema.js';
import { startMockOpenAiServer } from '../src/testing/index.js';
import { sampleLlmReply, type ResponderRequest } from './helpers/sample-llm-responder.js';
import { standardTestLlmConfig } from './helpers/standard-test-config.js';

const corpus = new URL('../examples/sample-corpus/', import.meta.url).pathname;
/**
 * The sample documents the marker documents are indexed with: the places and firms they name, so that their entities
 * merge with others and their communities and reports mix marked and unmarked text. The whole corpus would verify
 * nothing more and take four times as long.
 */
const companions = ['01-kestermouth.md', '02-river-kester.md', '03-kester-weir-bridge.md', '06-marle-boatworks.md', '18-sedley-mill.md', '20-the-ferry-inn.md'];
/** Words no tokenizer, stemmer or normalizer changes, and no other text holds. */
const markers = ['Qzvortlexq', 'Brimwaxtolk'];

const markerDocuments: Record<string, string> = {
  'marker-one.md': `# The ${markers[0]} Trust\n\nThe ${markers[0]} Trust bought the Ferry Inn in 1971 and restored the Kester Weir Bridge. Its founder, Ada ${markers[0]}, lived in Kestermouth.\n`,
  'marker-two.md': `# ${markers[1]} Mill\n\n${markers[1]} Mill stood on the River Kester above Sedley Mill. The ${markers[1]} family sold it to the Marle Boatworks in 1920.\n`,
};

/** The sample responder, and for the marker documents an extraction whose entities carry the marker. */
function reply(request: ResponderRequest): string {
  const prompt = request.messages.map((message) => message.content).join('\n');
  const marker = markers.find((candidate) => prompt.includes(`# The ${candidate} Trust`) || prompt.includes(`# ${candidate} Mill`));
  const isGraphExtraction = /entit/i.test(prompt) && /relationship/i.test(prompt) && !prompt.includes('-----Entities-----');
  if (marker !== undefined && isGraphExtraction) {
    const assistantTurns = request.messages.filter((message) => message.role === 'assistant').length;
    if (assistantTurns >= 2) return 'N';
    if (assistantTurns === 1) return JSON.stringify({ entities: [], relationships: [] });
    return JSON.stringify({
      entities: [
        { name: `${marker} Trust`, type: 'organization', description: `The ${marker} Trust is named after the ${marker} family.` },
        { name: 'Kestermouth', type: 'geo', description: `Kestermouth is where the ${marker} family lived.` },
      ],
      relationships: [{ source: `${marker} Trust`, target: 'Kestermouth', description: `The ${marker} Trust worked in Kestermouth.`, strength: 7 }],
    });
  }
  const answer = sampleLlmReply(request);
  // A real model's summaries and reports name what they were written from: so do these, so that a cached reply
  // left behind by the deletion would be found.
  if (marker === undefined && !markers.some((candidate) => prompt.includes(candidate))) return answer;
  const named = markers.find((candidate) => prompt.includes(candidate)) as string;
  if (prompt.includes('Description list:')) return `${answer} It concerns ${named}.`;
  if (prompt.includes('-----Entities-----') || prompt.includes('-----Reports-----')) {
    const report = JSON.parse(answer) as { summary: string };
    return JSON.stringify({ ...report, summary: `${report.summary} It concerns ${named}.` });
  }
  return answer;
}

const allTables: readonly TableName[] = [
  'documents',
  'chunks',
  'extractions',
  'entities',
  'relations',
  'claims',
  'communities',
  'reports',
  'triples',
  'keywords',
  'keywordChunks',
  'keywordEdges',
  'runs',
  'llmCache',
];

function findMarkers(text: string): string[] {
  const lower = text.toLowerCase();
  return markers.filter((marker) => lower.includes(marker.toLowerCase()));
}

/** Where in the index's tables and blobs a marker still is, read through the store. */
async function markersInIndex(kgrag: Kgrag): Promise<string[]> {
  const found: string[] = [];
  for (const table of allTables) {
    for (const row of await kgrag.store.table(table).all()) {
      const hits = findMarkers(JSON.stringify(row));
      if (hits.length > 0) found.push(`${table}: ${hits.join(', ')} in ${JSON.stringify(row).slice(0, 160)}`);
    }
  }
  for (const key of await kgrag.store.blobKeys()) {
    const blob = await kgrag.store.getBlob(key);
    if (blob === undefined) continue;
    const bytes = Buffer.from(blob.buffer, blob.byteOffset, blob.byteLength);
    let text = bytes.toString('latin1');
    // Blobs stored deflated ("kgz1" and the like) are searched inflated too.
    for (const skip of [0, 4]) {
      try {
        text += inflateRawSync(bytes.subarray(skip)).toString('latin1');
      } catch {
        // Not deflated from this offset.
      }
    }
    const hits = findMarkers(text);
    if (hits.length > 0) found.push(`blob ${key}: ${hits.join(', ')}`);
  }
  return found;
}

/** Every file of the workspace folder whose raw bytes hold a marker (free pages, WAL frames, the state file). */
function markersInFiles(folder: string): string[] {
  const found: string[] = [];
  const visit = (path: string): void => {
    if (statSync(path).isDirectory()) {
      for (const entry of readdirSync(path)) visit(join(path, entry));
      return;
    }
    const bytes = readFileSync(path);
    const hits = findMarkers(bytes.toString('latin1'));
    const wide = findMarkers(bytes.toString('utf16le'));
    if (hits.length + wide.length > 0) found.push(`${path}: ${[...new Set([...hits, ...wide])].join(', ')}`);
  };
  visit(folder);
  return found;
}

async function indexQueryDelete(mode: 'fast' | 'standard', folders: string[]): Promise<{ workspace: string; before: string[]; after: string[]; files: string[] }> {
  const workspace = mkdtempSync(join(tmpdir(), `kgrag-delete-${mode}-`));
  folders.push(workspace);
  const documents = join(workspace, 'documents');
  for (const name of companions) cpSync(join(corpus, name), join(documents, name));
  for (const [name, text] of Object.entries(markerDocuments)) writeFileSync(join(documents, name), text);
  const server = mode === 'standard' ? await startMockOpenAiServer({ reply }) : undefined;
  try {
    const kgrag = await createKgrag({
      workspace,
      env: {},
      // Standard mode with claims: every LLM step of the pipeline sees the marker documents.
      config: { index: { mode }, ...(server === undefined ? {} : { llm: standardTestLlmConfig(server.url), extract: { claims: { enabled: true } } }) },
    });
    try {
      await kgrag.index([documents]);
      const before = await markersInIndex(kgrag);
      // A query whose context holds the marker documents fills the query-time cache (standard) with them.
      await kgrag.query(`Who founded the ${markers[0]} Trust, and who owned ${markers[1]} Mill?`, { method: 'basic' });
      const deleted = await kgrag.delete([join(documents, 'marker-one.md'), join(documents, 'marker-two.md')]);
      assert.equal(deleted.deleted.length, 2);
      assert.equal(deleted.cache.kept, false);
      if (mode === 'standard') assert.ok(deleted.cache.removedEntries > 0, 'the marker documents’ cached replies are removed');
      if (mode === 'standard') {
        const cached = before.filter((place) => place.startsWith('llmCache')).length;
        assert.ok(cached >= 3, `cached extraction, summary and report replies held the markers (${cached})`);
      }
      const afterDelete = await markersInIndex(kgrag);
      await kgrag.close();
      return { workspace, before, after: afterDelete, files: markersInFiles(workspace).filter((path) => !path.includes(`${join(workspace, 'documents')}/`)) };
    } catch (error) {
      await kgrag.close();
      throw error;
    }
  } finally {
    await server?.close();
  }
}

describe('a deleted document leaves no trace', { timeout: 600_000 }, () => {
  const folders: string[] = [];
  after(() => {
    for (const folder of folders) rmSync(folder, { recursive: true, force: true });
  });

  for (const mode of ['fast', 'standard'] as const) {
    it(`${mode} mode: no table, blob or file byte holds a marker after the delete`, async () => {
      const result = await indexQueryDelete(mode, folders);
      assert.ok(result.before.length > 5, `the markers were indexed (${result.before.length} places) before the delete`);
      assert.ok(
        ['chunks', 'extractions', 'relations', 'triples'].every((table) => result.before.some((place) => place.startsWith(table))),
        `the markers reached the chunks and the entity graph: ${result.before.map((place) => place.split(':')[0]).join(' ')}`,
      );
      assert.deepEqual(result.after, [], 'rows or blobs still hold a marker');
      assert.deepEqual(result.files, [], 'file bytes still hold a marker');
    });
  }
});
