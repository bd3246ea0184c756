import { decodeChunkKnnGraph } from '../../pipeline/steps/chunk-knn-graph-codec.js';
import { chunkKnnGraphBlobKey } from './build/chunk-graph-step.js';
import { createSimilarityIndex, type SimilarityIndex } from '../../math/similarity-index.js';
import type { MethodContext } from '../query-method.js';
import { vectorsInOrder } from '../shared/space-vectors.js';
import { positionsOf } from '../../core/positions-of.js';

/** The keyword graph of the index in typed rows, built on the first `autokg` query. */
export interface AutokgLookups {
  /** Chunk ids in `chunks` table order; text rows of the search. */
  chunkIds: string[];
  /** Chunk vectors in that order (undefined while the space is empty). */
  chunkVectors: SimilarityIndex | undefined;
  /**
   * Per chunk row: 1 when the chunk is not in AutoKG's chunk graph — a near-duplicate of a shorter chunk
   * (the chunk-graph step's `remove_same_text`) — so it is never retrieved; its twin stands for it.
   */
  excluded: Uint8Array;
  keywordIds: string[];
  keywordTexts: string[];
  /** Keyword vectors in keyword order, row-major, and as an index for query scores. */
  keywordMatrix: Float32Array;
  keywordVectors: SimilarityIndex | undefined;
  dimensions: number;
  /** Per keyword: its member chunk rows by Laplace score u, highest first (ties by lower row), and the scores. */
  members: Array<Array<{ chunk: number; score: number }>>;
  /** Per keyword: neighbours by edge weight (shared chunks), heaviest first, ties by lower keyword row. */
  neighbours: Array<Array<{ keyword: number; weight: number }>>;
}

/** Loads (once per index) the chunks, keywords, keyword–chunk scores and keyword edges `autokg` searches. */
export function autokgLookups(context: MethodContext): Promise<AutokgLookups> {
  return context.memo('autokg:lookups', async () => {
    const { store } = context;
    const chunks = await store.table('chunks').pick(['id']);
    const chunkIds = chunks.map((chunk) => chunk.id);
    const chunkRow = positionsOf(chunkIds);
    const chunkMatrix = await vectorsInOrder(store, 'chunks', chunkIds);
    const blob = await store.getBlob(chunkKnnGraphBlobKey);
    const excluded = new Uint8Array(chunkIds.length);
    if (blob) {
      const inGraph = new Set(decodeChunkKnnGraph(blob).chunkIds);
      chunkIds.forEach((id, row) => {
        if (!inGraph.has(id)) excluded[row] = 1;
      });
    }
    const chunkVectors = chunkMatrix.empty ? undefined : createSimilarityIndex(chunkIds.length, chunkMatrix.dimensions, chunkMatrix.data);

    const keywords = await store.table('keywords').all();
    const keywordIds = keywords.map((keyword) => keyword.id);
    const keywordRow = positionsOf(keywordIds);
    const keywordStored = await vectorsInOrder(store, 'keywords', keywordIds);
    const { dimensions, data: keywordMatrix } = keywordStored;
    const keywordVectors = keywordStored.empty ? undefined : createSimilarityIndex(keywordIds.length, dimensions, keywordMatrix);

    const members: AutokgLookups['members'] = keywordIds.map(() => []);
    for (const membership of await store.table('keywordChunks').all()) {
      const keyword = keywordRow.get(membership.keywordId);
      const chunk = chunkRow.get(membership.chunkId);
      if (keyword !== undefined && chunk !== undefined) members[keyword]?.push({ chunk, score: membership.score });
    }
    for (const list of members) list.sort((a, b) => b.score - a.score || a.chunk - b.chunk);

    const neighbours: AutokgLookups['neighbours'] = keywordIds.map(() => []);
    for (const edge of await store.table('keywordEdges').all()) {
      const a = keywordRow.get(edge.a);
      const b = keywordRow.get(edge.b);
      if (a === undefined || b === undefined || a === b || !(edge.weight > 0)) continue;
      neighbours[a]?.push({ keyword: b, weight: edge.weight });
      neighbours[b]?.push({ keyword: a, weight: edge.weight });
    }
    for (const [row, list] of neighbours.entries()) {
      list.sort((x, y) => y.weight - x.weight || x.keyword - y.keyword);
      // An edge stored in both directions would list a neighbour twice: keep the first.
      const seen = new Set<number>();
      neighbours[row] = list.filter((item) => !seen.has(item.keyword) && seen.add(item.keyword));
    }
    return { chunkIds, chunkVectors, excluded, keywordIds, keywordTexts: keywords.map((keyword) => keyword.text), keywordMatrix, keywordVectors, dimensions, members, neighbours };
  });
}
