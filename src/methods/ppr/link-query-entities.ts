import { appendAll } from '../../core/append-all.js';
import { nameSimilarity, prepareName } from '../../extract/entity-resolution/name-similarity.js';
import { normalizePhrase } from '../../text/normalize-phrase.js';
import type { MethodContext } from '../query-method.js';
import type { PprGraph } from './build/ppr-graph.js';
import { phraseScorer } from './ppr-lookups.js';
import { topIndices } from '../../math/top-indices.js';

/** A query entity linked to a phrase node. */
export interface EntityLink {
  entity: string;
  phrase: number;
  /** The linking score: 1 for the same normalized text, else the mean of `cosine` and `name`. */
  score: number;
  /** Embedding cosine of entity and phrase (1 for the same normalized text when it was not searched). */
  cosine: number;
  /** Name similarity (word containment, typos, acronyms) of entity and phrase. */
  name: number;
}

/** Phrases by embedding similarity considered per entity before the name similarity re-scores them. */
const linkCandidates = 20;

/**
 * Links query entities to phrase nodes (HippoRAG 1 links each to its nearest phrase by embedding). The
 * embedding alone favours long phrases that repeat a name's words, and hashed embeddings miss rewordings,
 * so the candidates — the phrase with the same normalized text, and the `linkCandidates` nearest phrases —
 * are scored by the mean of cosine and name similarity; an exact text match scores 1. Each entity keeps its
 * best `topK` links scoring at least `minScore`, best first, ties by phrase index.
 */
export async function linkQueryEntities(
  context: MethodContext,
  entities: readonly string[],
  graph: PprGraph,
  options: { topK: number; minScore: number },
): Promise<EntityLink[]> {
  if (entities.length === 0 || options.topK === 0 || graph.phraseCount === 0) return [];
  const exactMatches = entities.map((entity) => graph.triples.phraseIndex.get(normalizePhrase(entity)));
  // An exact match scores 1, the most any link can: with one link per entity, such entities need no search.
  const searched = entities.flatMap((_, index) => (options.topK === 1 && exactMatches[index] !== undefined ? [] : [index]));
  const links: EntityLink[] = [];
  const candidatesOf = new Map<number, Map<number, number>>();
  if (searched.length > 0) {
    const [scorer, vectors] = await Promise.all([
      phraseScorer(context),
      context.embedder.embed(
        searched.map((index) => entities[index] as string),
        { inputType: 'document', ...(context.signal === undefined ? {} : { abortSignal: context.signal }) },
      ),
    ]);
    for (const [position, entityIndex] of searched.entries()) {
      const scores = await scorer.scores(vectors[position] as Float32Array);
      const cosines = new Map(topIndices(scores, linkCandidates).map((phrase) => [phrase, scores[phrase] as number]));
      const exact = exactMatches[entityIndex];
      if (exact !== undefined) cosines.set(exact, scores[exact] as number);
      candidatesOf.set(entityIndex, cosines);
    }
  }
  entities.forEach((entity, index) => {
    const exact = exactMatches[index];
    const cosines = candidatesOf.get(index) ?? new Map(exact === undefined ? [] : [[exact, 1]]);
    const prepared = prepareName(entity);
    const scored = [...cosines].map(([phrase, cosine]): EntityLink => {
      const name = nameSimilarity(prepared, prepareName(graph.triples.phraseTexts[phrase] as string));
      return { entity, phrase, cosine, name, score: phrase === exact ? 1 : (cosine + name) / 2 };
    });
    scored.sort((left, right) => right.score - left.score || left.phrase - right.phrase);
    appendAll(links, scored.filter((link) => link.score >= options.minScore).slice(0, options.topK));
  });
  return links;
}
