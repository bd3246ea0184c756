import type { QueryTermCounts, TfidfRanker } from '../../text/tfidf-ranker.js';
import { rankByScore } from './rank-by-score.js';

/** One round of the traversal: how many candidates it ranked and what it picked (with their scores). */
export interface KgTfidfRound {
  candidates: number;
  picks: number[];
  scores: number[];
}

/** What {@link kgTfidfTraversal} retrieved, in order, and how. */
export interface KgTfidfTraversal {
  passages: number[];
  /** The round (from 0) each passage was picked in, aligned with `passages`. */
  roundOf: number[];
  /** The TF-IDF score that picked each passage (in its round's fit), aligned with `passages`. */
  scores: number[];
  /** For passages of round ≥ 1, the earliest pick of the previous round that links to it; −1 in round 0. */
  parents: number[];
  rounds: KgTfidfRound[];
}

/** Inputs of {@link kgTfidfTraversal}. */
export interface KgTfidfTraversalOptions {
  ranker: TfidfRanker;
  /** The seed text's terms — the question, never updated. */
  query: QueryTermCounts;
  /** A passage's neighbours in the chosen graph, ascending. */
  neighbours: (passage: number) => readonly number[];
  /** Passages picked per round (`retrieve_num`). */
  schedule: readonly number[];
  /** K. */
  budget: number;
  /**
   * Round 0's picks when another retriever seeds the walk (e.g. BM25), best first. Without them round 0
   * ranks every passage by TF-IDF, as the release does, keeping only passages that share a term with the question.
   */
  seeds?: ReadonlyArray<{ passage: number; score: number }>;
}

/**
 * KGP without an LLM, the release's `KG_retriever` (YuWVandy/KG-LLM-MDQA `Pipeline/retriever.py`; the "TF-IDF" row of
 * the paper's Table 2): round r picks `schedule[r]` passages among the candidates by TF-IDF cosine to the
 * question, with a vectorizer fitted on the candidates' texts only; the next candidates are the
 * neighbours of this round's picks that were not retrieved yet. It stops at K passages, when a round adds
 * nothing, or when the schedule ends.
 *
 * Kept from the release because they are the algorithm: the seed is the question and never changes;
 * candidates come from the last round's picks only (a dead end ends the walk even if earlier picks had
 * other neighbours); a round ranks its top `schedule[r]` and drops the visited ones without replacing them;
 * the candidates of the next round are the neighbours of *all* of this round's picks, even those cut by K.
 * Changed: ties go to the lower passage number (numpy's `argsort` leaves them arbitrary); the walk stops
 * when the schedule runs out (the release would raise an IndexError); round 0 over the whole corpus never
 * picks passages that share no word with the question (the release fills its 10 with arbitrary ones).
 */
export function kgTfidfTraversal(options: KgTfidfTraversalOptions): KgTfidfTraversal {
  const { ranker, query, neighbours, schedule, budget } = options;
  const result: KgTfidfTraversal = { passages: [], roundOf: [], scores: [], parents: [], rounds: [] };
  const retrieved = new Set<number>();
  let candidates: number[] = [];
  let parentOf = new Map<number, number>();
  let previousLength = 0;
  for (let round = 0; result.passages.length < budget && round < schedule.length; round++) {
    const take = schedule[round] as number;
    let picks: number[];
    let pickScores: number[];
    let ranked: number;
    if (round === 0) {
      if (options.seeds) {
        const seeds = options.seeds.slice(0, take);
        picks = seeds.map((seed) => seed.passage);
        pickScores = seeds.map((seed) => seed.score);
        ranked = options.seeds.length;
      } else {
        const scores = ranker.scoreCorpus(query);
        picks = rankByScore(scores, take, true);
        pickScores = picks.map((passage) => scores[passage] as number);
        ranked = ranker.rows;
      }
    } else {
      // The release's tf_idf(seed, candidates, k, visited): the top k of the ranking, visited ones dropped.
      const scores = ranker.scoreFitted(candidates, query);
      const positions = rankByScore(scores, take).filter((position) => !retrieved.has(candidates[position] as number));
      picks = positions.map((position) => candidates[position] as number);
      pickScores = positions.map((position) => scores[position] as number);
      ranked = candidates.length;
    }
    result.rounds.push({ candidates: ranked, picks, scores: pickScores });
    picks.slice(0, Math.max(0, budget - result.passages.length)).forEach((passage, index) => {
      retrieved.add(passage);
      result.passages.push(passage);
      result.roundOf.push(round);
      result.scores.push(pickScores[index] as number);
      result.parents.push(parentOf.get(passage) ?? -1);
    });
    const next = new Map<number, number>();
    for (const pick of picks) {
      for (const neighbour of neighbours(pick)) if (!retrieved.has(neighbour) && !next.has(neighbour)) next.set(neighbour, pick);
    }
    candidates = [...next.keys()].sort((left, right) => left - right);
    parentOf = next;
    if (result.passages.length === previousLength) break;
    previousLength = result.passages.length;
  }
  return result;
}
