import { sklearnWordTokens } from './sklearn-word-tokens.js';

/**
 * How often each term occurs in each text: a document-term count matrix in compressed sparse row form.
 * Row `r` lists `termIds[rowPointers[r] .. rowPointers[r + 1])` (ascending) with their `counts` alongside.
 * Term ids index `vocabulary`, which is sorted as scikit-learn sorts `vocabulary_` (by code point), so the
 * ids do not depend on the order the texts came in.
 */
export interface TermCountMatrix {
  readonly vocabulary: readonly string[];
  /** Length `rows + 1`. */
  readonly rowPointers: Int32Array;
  readonly termIds: Int32Array;
  readonly counts: Int32Array;
}

/** The number of rows (texts) of a term-count matrix. */
export function termCountRows(matrix: TermCountMatrix): number {
  return matrix.rowPointers.length - 1;
}

function byCodePoint(left: string, right: string): number {
  return left < right ? -1 : left > right ? 1 : 0;
}

/**
 * Counts the terms of every text (scikit-learn `CountVectorizer().fit_transform(texts)`), with
 * {@link sklearnWordTokens} unless another tokenizer is given.
 */
export function countTerms(texts: readonly string[], tokenize: (text: string) => string[] = sklearnWordTokens): TermCountMatrix {
  const tokenized = texts.map((text) => tokenize(text));
  const terms = new Set<string>();
  for (const tokens of tokenized) for (const token of tokens) terms.add(token);
  const vocabulary = [...terms].sort(byCodePoint);
  const idOf = new Map(vocabulary.map((term, id) => [term, id]));
  const rowPointers = new Int32Array(texts.length + 1);
  const termIds: number[] = [];
  const counts: number[] = [];
  const rowCounts = new Map<number, number>();
  tokenized.forEach((tokens, row) => {
    rowCounts.clear();
    for (const token of tokens) {
      const id = idOf.get(token) as number;
      rowCounts.set(id, (rowCounts.get(id) ?? 0) + 1);
    }
    for (const id of [...rowCounts.keys()].sort((left, right) => left - right)) {
      termIds.push(id);
      counts.push(rowCounts.get(id) as number);
    }
    rowPointers[row + 1] = termIds.length;
  });
  return { vocabulary, rowPointers, termIds: Int32Array.from(termIds), counts: Int32Array.from(counts) };
}
