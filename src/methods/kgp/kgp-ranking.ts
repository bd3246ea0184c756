/** One retrieved passage of a KGP variant, in rank order, with the scores that placed it. */
export interface KgpRankedPassage {
  passage: number;
  /** The score that chose it: its seed score, or its TF-IDF score against the evidence that reached it. */
  score: number;
  scores: Record<string, number>;
}

/** A traversed link of the passage graph. */
export interface KgpTraversedEdge {
  source: number;
  target: number;
  /** Bits of the kinds that link them (`passageEdgeBit`). */
  kinds: number;
  weight: number;
}

/** What every KGP variant produces before the passages are hydrated: ranking, seeds and traversed links. */
export interface KgpRanking {
  passages: KgpRankedPassage[];
  seeds: Array<{ passage: number; score: number }>;
  edges: KgpTraversedEdge[];
}
