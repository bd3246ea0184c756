import type { ContextChunk } from '../../answer/answer-types.js';
import type { QuerySubgraph } from '../query-method.js';
import type { AutokgLookups } from './autokg-lookups.js';
import type { HybridSearchResult } from './hybrid-search.js';

/** Node id of a keyword in the subgraph (keyword ids and chunk ids are both content hashes, so they are prefixed). */
const keywordNode = (lookups: AutokgLookups, keyword: number): string => `keyword:${lookups.keywordIds[keyword] ?? keyword}`;

/**
 * The query's temporary subgraph, as in the AutoKG paper's figures 2–3: the query node, its similar keywords
 * (`similar` edges weighted by cosine), their adjacent keywords (`adjacent` edges weighted by shared chunks),
 * and the retrieved chunks, linked to what found them (`query-text`, `keyword-text`, `adjacent-text`).
 */
export function autokgSubgraph(
  question: string,
  lookups: AutokgLookups,
  found: HybridSearchResult,
  keywordScores: ArrayLike<number>,
  chunks: readonly ContextChunk[],
): QuerySubgraph {
  const nodes: QuerySubgraph['nodes'] = [{ id: 'query', label: question, kind: 'query' }];
  const edges: QuerySubgraph['edges'] = [];
  for (const keyword of found.similarKeywords) {
    const score = keywordScores[keyword] as number;
    nodes.push({ id: keywordNode(lookups, keyword), label: lookups.keywordTexts[keyword] ?? '', kind: 'keyword', score });
    edges.push({ source: 'query', target: keywordNode(lookups, keyword), kind: 'similar', weight: score });
  }
  for (const adjacent of found.adjacentKeywords) {
    nodes.push({ id: keywordNode(lookups, adjacent.keyword), label: lookups.keywordTexts[adjacent.keyword] ?? '', kind: 'adjacent-keyword', score: keywordScores[adjacent.keyword] as number });
    for (const source of adjacent.from) {
      edges.push({ source: keywordNode(lookups, source.keyword), target: keywordNode(lookups, adjacent.keyword), kind: 'adjacent', weight: source.weight });
    }
  }
  const byId = new Map(chunks.map((chunk) => [chunk.id, chunk]));
  for (const { text, reasons } of found.texts) {
    const chunk = byId.get(lookups.chunkIds[text] ?? '');
    if (!chunk) continue;
    nodes.push({ id: chunk.id, label: chunk.documentTitle || chunk.id, kind: 'chunk', score: chunk.score });
    for (const reason of reasons) {
      if (reason.kind === 'query') edges.push({ source: 'query', target: chunk.id, kind: 'query-text' });
      else if (reason.kind === 'keyword') edges.push({ source: keywordNode(lookups, reason.keyword), target: chunk.id, kind: 'keyword-text' });
      else edges.push({ source: keywordNode(lookups, reason.keyword), target: chunk.id, kind: 'adjacent-text' });
    }
  }
  return { nodes, edges };
}
