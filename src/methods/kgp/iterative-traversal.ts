import type { QueryTermCounts, TfidfRanker } from '../../text/tfidf-ranker.js';
import type { ScoredPassage } from './one-hop-traversal.js';
import type { PassageNeighbours } from './passage-neighbours.js';
import { rankByScore } from './rank-by-score.js';

/** One expansion of the queue: the passage, the evidence generated for its path, what it added. */
export interface IterativeExpansion {
  passage: number;
  /** The reasoning path from its seed to it, seed first. */
  path: number[];
  evidence: string;
  added: Array<ScoredPassage & { kinds: number }>;
}

/** What {@link iterativeTraversal} retrieved. */
export interface IterativeTraversal {
  /** Seeds first, then passages in the order they were added. */
  passages: ScoredPassage[];
  /** The passage whose expansion added each passage; −1 for seeds. Aligned with `passages`. */
  parents: number[];
  /** Link kinds that reached each passage (0 for seeds). Aligned with `passages`. */
  kinds: number[];
  expansions: IterativeExpansion[];
}

/** Inputs of {@link iterativeTraversal}. */
export interface IterativeTraversalOptions {
  ranker: TfidfRanker;
  seeds: readonly ScoredPassage[];
  neighbours: (passage: number) => PassageNeighbours;
  /** Generates the next evidence for a reasoning path (seed first); called for several paths at once. */
  generate: (path: readonly number[]) => Promise<string>;
  /** Turns generated text into query terms. */
  termsOf: (text: string) => QueryTermCounts;
  /** Neighbours added per expanded passage (the branching factor). */
  branching: number;
  /** K. */
  budget: number;
}

/**
 * The paper's Algorithm 1 (Wang et al., AAAI'24), which the release does not run: the seeds are
 * retrieved and queued; each passage taken from the queue has the agent generate the next evidence for its
 * reasoning path, and its best `branching` unretrieved neighbours by TF-IDF against that evidence (fitted on
 * those neighbours) are retrieved and queued in turn, until K passages. The queue is served breadth first
 * in batches of as many passages as the remaining budget can still use (⌈(K − retrieved) / branching⌉),
 * generated in parallel; a batch's results are applied in queue order, so the outcome does not depend on
 * which call returns first.
 */
export async function iterativeTraversal(options: IterativeTraversalOptions): Promise<IterativeTraversal> {
  const { ranker, neighbours, generate, termsOf, branching, budget } = options;
  const seeds = options.seeds.slice(0, budget);
  const result: IterativeTraversal = { passages: [...seeds], parents: seeds.map(() => -1), kinds: seeds.map(() => 0), expansions: [] };
  const retrieved = new Set(seeds.map((seed) => seed.passage));
  const queue: number[][] = seeds.map((seed) => [seed.passage]);
  while (queue.length > 0 && result.passages.length < budget) {
    const batch = queue.splice(0, Math.ceil((budget - result.passages.length) / branching));
    const generated = await Promise.all(batch.map((path) => generate(path)));
    batch.forEach((path, index) => {
      const passage = path[path.length - 1] as number;
      const evidence = generated[index] ?? '';
      const expansion: IterativeExpansion = { passage, path, evidence, added: [] };
      result.expansions.push(expansion);
      if (result.passages.length >= budget) return;
      const linked = neighbours(passage);
      const open = linked.passages.map((candidate, position) => ({ candidate, position })).filter(({ candidate }) => !retrieved.has(candidate));
      if (open.length === 0) return;
      const query = termsOf(evidence);
      if (query.termIds.length === 0) return;
      const scores = ranker.scoreFitted(
        open.map(({ candidate }) => candidate),
        query,
      );
      for (const position of rankByScore(scores, Math.min(branching, budget - result.passages.length), true)) {
        const { candidate, position: linkPosition } = open[position] as { candidate: number; position: number };
        const added = { passage: candidate, score: scores[position] as number, kinds: linked.kinds[linkPosition] as number };
        expansion.added.push(added);
        retrieved.add(candidate);
        result.passages.push({ passage: candidate, score: added.score });
        result.parents.push(passage);
        result.kinds.push(added.kinds);
        queue.push([...path, candidate]);
      }
    });
  }
  return result;
}
