// The query engine reads the documents' titles and sources once per index generation: a chunk retrieved after an
// update carries the title its document has in the new generation, in the same process.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { createKgrag } from '../src/api/create-kgrag.js';

const root = mkdtempSync(join(tmpdir(), 'kgrag-labels-'));
after(() => rmSync(root, { recursive: true, force: true }));

test('chunks carry the title of their document in the generation queried, after an added and a retitled document', async () => {
  const inputs = join(root, 'documents');
  const kgrag = await createKgrag({ workspace: join(root, 'workspace'), env: {}, config: { index: { mode: 'fast' } } });
  try {
    const write = (name: string, text: string): void => {
      writeFileSync(join(inputs, name), text);
    };
    const titlesFor = async (question: string): Promise<string[]> =>
      (await kgrag.retrieve(question, { method: 'basic:bm25', params: { k: 1 } })).retrieval.chunks.map((chunk) => chunk.documentTitle);
    mkdirSync(inputs, { recursive: true });
    write('mill.md', '# Sedley Mill\n\nThe mill on the Kester ground flour for the valley until the flood of 1947.\n');
    await kgrag.index([inputs]);
    assert.deepEqual(await titlesFor('flour mill flood'), ['Sedley Mill']);

    write('inn.md', '# The Ferry Inn\n\nThe inn by the crossing served ferrymen and drovers with ale and stew.\n');
    await kgrag.index([inputs]);
    assert.deepEqual(await titlesFor('ferrymen ale stew'), ['The Ferry Inn'], 'a document added after the first query');

    write('mill.md', '# Old Sedley Mill\n\nThe mill on the Kester ground flour for the valley until the flood of 1947.\n');
    await kgrag.index([inputs]);
    assert.deepEqual(await titlesFor('flour mill flood'), ['Old Sedley Mill'], 'a retitled document');
  } finally {
    await kgrag.close();
  }
});
