import { restoreNameCasing } from '../../extract/llm-graph/restore-name-casing.js';
import { mergeExtractedGraphs, type MergedGraph } from '../../extract/merge-extracted-graphs.js';
import type { Store } from '../../store/store.js';
import { storedGraphExtractions } from './stored-graph-extractions.js';

/**
 * The entity graph `llm-extract` wrote, rebuilt from the extractions it keeps: every current chunk's reply, names
 * cased as the chunk writes them, merged in chunk order. The `entities` and `relations` tables hold it only until
 * `resolve-entities` and `summarize` rewrite them, so a step that runs again on llm-extract's output — while
 * llm-extract is up to date — reads it from here.
 */
export async function extractedLlmGraph(store: Store): Promise<MergedGraph> {
  const texts = new Map((await store.table('chunks').pick(['id', 'text'])).map((chunk) => [chunk.id, chunk.text]));
  const extractions = (await storedGraphExtractions(store)).map(({ chunkId, graph }) => ({ chunkId, graph: restoreNameCasing(graph, texts.get(chunkId) ?? '') }));
  return mergeExtractedGraphs(extractions);
}
