import { maxOf } from '../../core/max-of.js';
import type { TripleIndex } from '../../extract/triples/triple-index.js';
import type { QuerySubgraph } from '../query-method.js';
import type { RelationsRun } from './retrieve-relations.js';

/**
 * The explorer's view of a `relations` retrieval: the question; its entities and the phrases each matched
 * (`match` edges weighted by similarity); the seed facts (`seed` edges from the question, weighted by their
 * similarity); the reranked facts up to the last one that gave a passage; every fact node joined to its two
 * phrases (`subject`, `object`) and scored by the rerank when it was reranked that far, else by its
 * similarity; and the passages (labelled by `chunkLabel`), joined to the fact that reached them (`source`)
 * or, when filled by dense search, to the question (`dense`). Fact node ids are the facts' vector ids (their
 * first triple id), phrase node ids the phrase vector ids.
 */
export function relationsSubgraph(question: string, triples: TripleIndex, run: RelationsRun, chunkLabel: (chunkId: string) => string): QuerySubgraph {
  const nodes: QuerySubgraph['nodes'] = [{ id: 'query', label: question, kind: 'query' }];
  const edges: QuerySubgraph['edges'] = [];
  const present = new Set<string>(['query']);
  const addNode = (node: QuerySubgraph['nodes'][number]): void => {
    if (present.has(node.id)) return;
    present.add(node.id);
    nodes.push(node);
  };
  const phraseNode = (phrase: number, score?: number): string => {
    const id = triples.phraseIds[phrase] as string;
    addNode({ id, label: triples.phraseLabels[phrase] ?? '', kind: 'phrase', ...(score === undefined ? {} : { score }) });
    return id;
  };
  const lastRank = Math.max(-1, maxOf(run.passages.map((passage) => passage.factRank ?? -1)));
  const shown = run.rerank.facts.slice(0, lastRank + 1);
  const rerankScore = new Map(shown.map((item) => [item.fact, item.score]));
  const factNode = (fact: number, kind: string, score: number): string => {
    const id = triples.factIds[fact] as string;
    if (!present.has(id)) {
      addNode({ id, label: triples.factTexts[fact] ?? '', kind, score: rerankScore.get(fact) ?? score });
      edges.push({ source: id, target: phraseNode(triples.factSubject[fact] as number), kind: 'subject' });
      edges.push({ source: id, target: phraseNode(triples.factObject[fact] as number), kind: 'object' });
    }
    return id;
  };

  run.seeds.entities.forEach((entity, index) => {
    const mentionId = `query-entity:${index}`;
    addNode({ id: mentionId, label: entity.mention, kind: 'query-entity' });
    edges.push({ source: 'query', target: mentionId, kind: 'entity' });
    entity.phrases.forEach((phrase, rank) => {
      const score = entity.scores[rank] as number;
      edges.push({ source: mentionId, target: phraseNode(phrase, score), kind: 'match', weight: score });
    });
  });
  run.seeds.facts.forEach((fact, rank) => {
    const score = run.seeds.factScores[rank] as number;
    edges.push({ source: 'query', target: factNode(fact, 'seed-fact', score), kind: 'seed', weight: score });
  });
  for (const item of shown) factNode(item.fact, 'fact', item.score);
  for (const passage of run.passages) {
    addNode({ id: passage.chunkId, label: chunkLabel(passage.chunkId), kind: passage.source === 'fact' ? 'chunk' : 'chunk-dense', score: passage.score });
    if (passage.fact !== undefined) edges.push({ source: triples.factIds[passage.fact] as string, target: passage.chunkId, kind: 'source' });
    else edges.push({ source: 'query', target: passage.chunkId, kind: 'dense', weight: passage.score });
  }
  return { nodes, edges };
}
