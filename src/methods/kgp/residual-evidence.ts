import type { TermCountMatrix } from '../../text/term-count-matrix.js';
import type { QueryTermCounts } from '../../text/tfidf-ranker.js';

/**
 * The LLM-free stand-in for KGP's "next evidence": the question's words that the current passage does not
 * contain, stopwords left out. KGP's agent is trained to write the passage that comes next on the reasoning
 * path from question + current passage (YuWVandy/KG-LLM-MDQA `Pipeline/retriever.py`); what that passage must add is what
 * the question asks and the current one does not say — "the mother of the director of film X", given the
 * film's passage naming its director, leaves "mother" to look for among the passages linked to it. Ranking
 * the neighbours by this residual (the traversal's graph edge supplies the bridge entity) ranks them better
 * than the whole question does (docs/BENCHMARKS.md).
 *
 * Returns the residual's term counts in the matrix vocabulary; empty when the passage covers the question.
 */
export function residualEvidence(question: QueryTermCounts, terms: TermCountMatrix, passage: number, stopwords: ReadonlySet<string>): QueryTermCounts {
  const present = new Set<number>();
  for (let entry = terms.rowPointers[passage] as number; entry < (terms.rowPointers[passage + 1] as number); entry++) present.add(terms.termIds[entry] as number);
  const termIds: number[] = [];
  const counts: number[] = [];
  question.termIds.forEach((term, index) => {
    if (present.has(term) || stopwords.has(terms.vocabulary[term] as string)) return;
    termIds.push(term);
    counts.push(question.counts[index] as number);
  });
  return { termIds: Int32Array.from(termIds), counts: Int32Array.from(counts) };
}
