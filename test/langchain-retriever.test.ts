// Issue 41: kgrag as a LangChain.js retriever, used through the real @langchain/core.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Document } from '@langchain/core/documents';
import { RunnableLambda } from '@langchain/core/runnables';
import { KgragRetriever } from '../src/adapters/langchain.js';
import { createKgrag } from '../src/api/create-kgrag.js';
import type { Kgrag } from '../src/api/kgrag.js';
import { sampleWorkspace } from './helpers/test-server.js';

let kgrag: Kgrag;
before(async () => {
  kgrag = await createKgrag({ workspace: await sampleWorkspace(), env: {} });
});
after(async () => kgrag?.close());

test('the retriever returns any method’s passages as Documents with their citations, and runs in a chain', async () => {
  const retriever = new KgragRetriever({ kgrag, method: 'ppr', k: 3 });
  const documents = await retriever.invoke('Who designed the Kester Weir Bridge?');
  assert.equal(documents.length, 3);
  const [first] = documents;
  assert.equal(first?.metadata['method'], 'ppr:v2');
  assert.match(String(first?.metadata['citation']), /^\[Data: Sources \(\d+\)\]$/);
  assert.equal(first?.metadata['rank'], 1);
  assert.equal(first?.metadata['ranking'], 'native');
  assert.ok(documents.some((document) => document.metadata['title'] === 'Kester Weir Bridge'));
  const direct = await kgrag.retrieve('Who designed the Kester Weir Bridge?', { method: 'ppr' });
  assert.deepEqual(
    documents.map((document) => document.id),
    direct.retrieval.chunks.slice(0, 3).map((chunk) => chunk.id),
    'the same passages, in the same order, as kgrag.retrieve',
  );

  // LangChain's expression language: the retriever piped into a step that writes the context with citations.
  const chain = retriever.pipe(RunnableLambda.from((found: Document[]) => found.map((document) => `${document.pageContent.replace(/\s+/g, ' ').slice(0, 40)} ${document.metadata['citation']}`).join('\n')));
  const context = await chain.invoke('Who designed the Kester Weir Bridge?');
  assert.equal(context.split('\n').length, 3);
  assert.match(context, /\[Data: Sources \(\d+\)\]$/m);
});
