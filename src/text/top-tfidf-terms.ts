import { termCountRows, type TermCountMatrix } from './term-count-matrix.js';

/**
 * The `count` highest TF-IDF terms of every row (raw count × smoothed idf, `ln((1 + n) / (1 + df)) + 1`,
 * as scikit-learn's `TfidfVectorizer()`; the l2 norm does not change a row's order), best first, ties by
 * term id. Terms for which `skip` returns true (stopwords, numbers) are never chosen. These are the
 * keywords of KGP's TF-IDF passage graph (YuWVandy/KG-LLM-MDQA `Data-Collect/graph_construct.py`, with the top terms taken per
 * passage rather than from the first passage only).
 */
export function topTfidfTerms(matrix: TermCountMatrix, count: number, skip: (term: string) => boolean = () => false): Int32Array[] {
  const rows = termCountRows(matrix);
  const documentFrequency = new Int32Array(matrix.vocabulary.length);
  for (const term of matrix.termIds) documentFrequency[term] = (documentFrequency[term] as number) + 1;
  const skipped = matrix.vocabulary.map((term) => skip(term));
  const result: Int32Array[] = [];
  for (let row = 0; row < rows; row++) {
    const scored: Array<{ term: number; weight: number }> = [];
    for (let entry = matrix.rowPointers[row] as number; entry < (matrix.rowPointers[row + 1] as number); entry++) {
      const term = matrix.termIds[entry] as number;
      if (skipped[term]) continue;
      scored.push({ term, weight: (matrix.counts[entry] as number) * (Math.log((1 + rows) / (1 + (documentFrequency[term] as number))) + 1) });
    }
    scored.sort((left, right) => right.weight - left.weight || left.term - right.term);
    result.push(Int32Array.from(scored.slice(0, count), (item) => item.term));
  }
  return result;
}
