import type { Incidence } from './expand-relations.js';

/** The seeds as groups of phrases: one group per query entity (its matched phrases), one per seed fact (its two ends). */
export interface SeedGroups {
  groups: ReadonlyArray<readonly number[]>;
}

/** A reranked fact. */
export interface RankedFact {
  fact: number;
  score: number;
  similarity: number;
  support: number;
}

/** Most seed groups told apart; later groups share the last bit (a question rarely names more than a few entities). */
const maxGroups = 30;

/**
 * LLM-free rerank of the candidates: `score(f) = similarity(f, question) + pathWeight · support(f)`.
 *
 * `support(f)` counts the seeds that fact f = (s, o) links, along paths of at most two facts through f. Each
 * seed group g (a query entity's matched phrases, or the two ends of a seed fact) contains its phrases; a
 * phrase is next to g when a fact joins it to a phrase of g. With `at(p)` the groups containing phrase p and
 * `next(p)` the groups p is next to:
 *
 *   linked(f)  = at(s) ∪ at(o)                                           (paths s … f … o of one fact)
 *   bridged(f) = ((next(o) if at(s) ≠ ∅) ∪ (next(s) if at(o) ≠ ∅)) \ linked(f)   (a seed, f, then one more fact to another)
 *   support(f) = max(0, |linked(f)| + ½ · |bridged(f)| − 1)
 *
 * so a fact touching one group scores 0, one leading from a group to a phrase next to another group (the
 * bridge of a two-hop question) ½, one joining two groups directly 1, and so on. Ties keep the candidate order.
 */
export function rerankByPathSupport(
  graph: Incidence & { factSubject: Int32Array; factObject: Int32Array },
  seeds: SeedGroups,
  candidates: Int32Array,
  questionSimilarity: Float32Array,
  pathWeight: number,
): RankedFact[] {
  const phrases = graph.incidence.rows;
  const at = new Int32Array(phrases);
  seeds.groups.forEach((group, index) => {
    const bit = 1 << Math.min(index, maxGroups);
    for (const phrase of group) at[phrase] = (at[phrase] as number) | bit;
  });
  const next = new Int32Array(phrases);
  const done = new Uint8Array(phrases);
  const { rowPointers, columnIndices } = graph.incidence;
  // Computed on demand: only the ends of candidates are ever asked for, and a hub's facts are read once.
  const nextOf = (phrase: number): number => {
    if (done[phrase] === 1) return next[phrase] as number;
    let mask = 0;
    const end = rowPointers[phrase + 1] as number;
    for (let entry = rowPointers[phrase] as number; entry < end; entry++) {
      const fact = columnIndices[entry] as number;
      mask |= (at[graph.factSubject[fact] as number] as number) | (at[graph.factObject[fact] as number] as number);
    }
    next[phrase] = mask;
    done[phrase] = 1;
    return mask;
  };

  const ranked: RankedFact[] = [];
  for (const fact of candidates) {
    const subject = graph.factSubject[fact] as number;
    const object = graph.factObject[fact] as number;
    const atSubject = at[subject] as number;
    const atObject = at[object] as number;
    const linked = atSubject | atObject;
    const bridged = ((atSubject !== 0 ? nextOf(object) : 0) | (atObject !== 0 ? nextOf(subject) : 0)) & ~linked;
    const support = Math.max(0, bitCount(linked) + 0.5 * bitCount(bridged) - 1);
    const similarity = questionSimilarity[fact] as number;
    ranked.push({ fact, score: similarity + pathWeight * support, similarity, support });
  }
  // Stable: equal scores keep the candidate order.
  return ranked.sort((left, right) => right.score - left.score);
}

function bitCount(value: number): number {
  let count = 0;
  for (let rest = value >>> 0; rest !== 0; rest &= rest - 1) count++;
  return count;
}
