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
 * {@link sklearnWordTokens} unless another tokenizer is given. Each token is kept as its term's number, not as a
 * string: a 50 MB corpus of never-repeating words is millions of them.
 */
export function countTerms(texts: readonly string[], tokenize: (text: string) => string[] = sklearnWordTokens): TermCountMatrix {
  const numberOf = new Map<string, number>();
  const terms: string[] = [];
  let tokens = new Int32Array(1024);
  let filled = 0;
  const rowEnds = new Int32Array(texts.length);
  texts.forEach((text, row) => {
    for (const token of tokenize(text)) {
      let number = numberOf.get(token);
      if (number === undefined) {
        number = terms.length;
        numberOf.set(token, number);
        terms.push(token);
      }
      if (filled === tokens.length) {
        const grown = new Int32Array(tokens.length * 2);
        grown.set(tokens);
        tokens = grown;
      }
      tokens[filled++] = number;
    }
    rowEnds[row] = filled;
  });
  numberOf.clear();
  const byTerm = Int32Array.from(terms.keys()).sort((left, right) => byCodePoint(terms[left] as string, terms[right] as string));
  const vocabulary = Array.from(byTerm, (number) => terms[number] as string);
  const idOf = new Int32Array(terms.length);
  byTerm.forEach((number, id) => (idOf[number] = id));
  terms.length = 0;
  const rowPointers = new Int32Array(texts.length + 1);
  const termIds = new Int32Array(filled);
  const counts = new Int32Array(filled);
  let entries = 0;
  for (let row = 0, start = 0; row < texts.length; start = rowEnds[row] as number, row++) {
    const ids = tokens.subarray(start, rowEnds[row]).map((number) => idOf[number] as number).sort();
    for (let at = 0; at < ids.length; at++) {
      if (at > 0 && ids[at] === ids[at - 1]) counts[entries - 1] = (counts[entries - 1] as number) + 1;
      else {
        termIds[entries] = ids[at] as number;
        counts[entries++] = 1;
      }
    }
    rowPointers[row + 1] = entries;
  }
  return { vocabulary, rowPointers, termIds: termIds.slice(0, entries), counts: counts.slice(0, entries) };
}
