import type { IndexList } from '../../extract/triples/triple-index.js';

/** A passage reached from a fact. */
export interface FactPassage {
  /** Chunk index of the triple index. */
  chunk: number;
  /** Position (0-based) in the ranked fact list of the fact that first reached it. */
  factRank: number;
  fact: number;
}

/**
 * The passage step of Graph RAG with Milvus (milvus-io/bootcamp `tutorials/quickstart/graph_rag_with_milvus.ipynb` step 6): walk the ranked facts in
 * order, take each fact's passages in the order they were extracted, skip passages already taken, stop at
 * `limit`. Facts not in `factChunks` give nothing (the notebook's defaultdict).
 */
export function walkFactPassages(rankedFacts: readonly number[], factChunks: ReadonlyArray<IndexList>, limit: number): FactPassage[] {
  const passages: FactPassage[] = [];
  const taken = new Set<number>();
  for (const [factRank, fact] of rankedFacts.entries()) {
    if (passages.length >= limit) break;
    for (const chunk of factChunks[fact] ?? []) {
      if (taken.has(chunk)) continue;
      taken.add(chunk);
      passages.push({ chunk, factRank, fact });
      if (passages.length >= limit) break;
    }
  }
  return passages;
}
