import type { ChunkExtraction } from '../../extract/merge-extracted-graphs.js';
import type { Store } from '../../store/store.js';
import { llmGraphExtractor, type StoredGraphExtraction } from './llm-extract-step.js';

/** The LLM graph extractions of the current chunks, in chunk order (what llm-extract kept). */
export async function storedGraphExtractions(store: Store): Promise<ChunkExtraction[]> {
  const chunkOrder = new Map((await store.table('chunks').pick(['id'])).map((chunk, index) => [chunk.id, index]));
  return (await store.table('extractions').where('extractor', [llmGraphExtractor]))
    .filter((record) => chunkOrder.has(record.chunkId))
    .sort((left, right) => (chunkOrder.get(left.chunkId) ?? 0) - (chunkOrder.get(right.chunkId) ?? 0))
    .map((record) => ({ chunkId: record.chunkId, graph: (record.parsed as StoredGraphExtraction).graph }));
}
