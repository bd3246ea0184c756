import { appendAll } from '../../core/append-all.js';
import { contentId } from '../../core/ids.js';
import type { ChunkRecord } from '../../core/types.js';
import type { ChunkingConfig } from '../../core/config/config-schema.js';
import { chunkBySentences } from '../../text/chunk/chunk-by-sentences.js';
import { chunkBySeparators } from '../../text/chunk/chunk-by-separators.js';
import { chunkByTokens } from '../../text/chunk/chunk-by-tokens.js';
import type { Tokenizer } from '../../text/tokenizer.js';
import type { PipelineStep } from '../pipeline-step.js';

/** Splits one document's text with the configured chunker. */
export function chunkDocument(documentId: string, text: string, tokenizer: Tokenizer, chunking: ChunkingConfig): ChunkRecord[] {
  const options = { size: chunking.size, overlap: chunking.overlap };
  const slices =
    chunking.strategy === 'sentences'
      ? chunkBySentences(text, tokenizer, options)
      : chunking.strategy === 'separators'
        ? chunkBySeparators(text, tokenizer, { size: chunking.size })
        : chunkByTokens(text, tokenizer, options);
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

    const created: ChunkRecord[] = [];
    let done = 0;
    const totalCharacters = pending.reduce((sum, document) => sum + document.text.length, 0);
    let characters = 0;
    for (const document of pending) {
      appendAll(created, chunkDocument(document.id, document.text, tokenizer, config.chunking));
      characters += document.text.length;
      done++;
      if (done % 200 === 0 || done === pending.length) context.progress(characters, totalCharacters, 'characters');
    }
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
