import { appendAll } from '../../core/append-all.js';
import { runTask, type CooperativeTask } from '../../core/cooperative-task.js';
import { contentId } from '../../core/ids.js';
import type { ChunkRecord } from '../../core/types.js';
import type { ChunkingConfig } from '../../core/config/config-schema.js';
import { chunkBySentencesTask } from '../../text/chunk/chunk-by-sentences.js';
import { chunkBySeparatorsTask } from '../../text/chunk/chunk-by-separators.js';
import { chunkByTokensTask } from '../../text/chunk/chunk-by-tokens.js';
import type { Tokenizer } from '../../text/tokenizer.js';
import type { PipelineStep } from '../pipeline-step.js';

/** Splits one document's text with the configured chunker, as a task that pauses between pieces of the text. */
export function* chunkDocumentTask(documentId: string, text: string, tokenizer: Tokenizer, chunking: ChunkingConfig): CooperativeTask<ChunkRecord[]> {
  const options = { size: chunking.size, overlap: chunking.overlap };
  const slices =
    chunking.strategy === 'sentences'
      ? yield* chunkBySentencesTask(text, tokenizer, options)
      : chunking.strategy === 'separators'
        ? yield* chunkBySeparatorsTask(text, tokenizer, { size: chunking.size })
        : yield* chunkByTokensTask(text, tokenizer, options);
  return slices.map((slice, ordinal) => ({
    id: contentId('chunk', documentId, slice.start, slice.end),
    documentId,
    ordinal,
    text: slice.text,
    nTokens: slice.nTokens,
    start: slice.start,
    end: slice.end,
  }));
}

const settingsKey = 'chunk:settings';

/**
 * Splits documents into text units. Incremental: only documents without chunks are chunked, and
 * chunks of removed documents are dropped — unless the chunking settings changed, which rechunks all.
 */
export const chunkStep: PipelineStep = {
  name: 'chunk',
  version: 1,
  reads: ['load'],
  settings: (config) => ({ chunking: config.chunking, encoding: config.tokenizer.encoding }),

  async run(context) {
    const { store, config, tokenizer } = context;
    const settings = contentId('chunk-settings', JSON.stringify({ chunking: config.chunking, encoding: config.tokenizer.encoding }));
    const rechunkAll = (await store.getMeta<string>(settingsKey)) !== settings;
    const documentIds = new Set((await store.table('documents').pick(['id'])).map((document) => document.id));
    const existing = rechunkAll ? [] : await store.table('chunks').pick(['id', 'documentId']);
    const chunked = new Set(existing.map((chunk) => chunk.documentId));
    const orphanDocuments = [...new Set(existing.map((chunk) => chunk.documentId).filter((id) => !documentIds.has(id)))];
    const pending = await store.table('documents').get([...documentIds].filter((id) => !chunked.has(id)));

    const totalCharacters = pending.reduce((sum, document) => sum + document.text.length, 0);
    function* chunkPending(): CooperativeTask<ChunkRecord[]> {
      const chunks: ChunkRecord[] = [];
      let characters = 0;
      for (const [done, document] of pending.entries()) {
        appendAll(chunks, yield* chunkDocumentTask(document.id, document.text, tokenizer, config.chunking));
        characters += document.text.length;
        if ((done + 1) % 200 === 0 || done + 1 === pending.length) context.progress(characters, totalCharacters, 'characters');
        yield;
      }
      return chunks;
    }
    // Chunking a large file is seconds of CPU work: it gives the event loop turns, so Ctrl-C and progress get through.
    const created = await runTask(chunkPending(), { signal: context.signal });
    const kept = existing.filter((chunk) => documentIds.has(chunk.documentId));
    const allIds = [...kept, ...created].map((chunk) => chunk.id);
    return {
      counts: { chunks: allIds.length, added: created.length, removed: existing.length - kept.length },
      outputVersion: contentId('chunks', allIds.sort()),
      async write(tx) {
        if (rechunkAll) await tx.table('chunks').clear();
        else await tx.table('chunks').deleteWhere('documentId', orphanDocuments);
        await tx.table('chunks').upsert(created);
        await tx.setMeta(settingsKey, settings);
      },
    };
  },
};
