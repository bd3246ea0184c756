import { sklearnWordTokens } from './sklearn-word-tokens.js';
import { termCountRows, type TermCountMatrix } from './term-count-matrix.js';
import { positionsOf } from '../core/positions-of.js';

/** A query's terms that are in the vocabulary, with their counts (ids ascending). */
export interface QueryTermCounts {
  readonly termIds: Int32Array;
  readonly counts: Int32Array;
}

/**
 * TF-IDF cosine ranking with scikit-learn's `TfidfVectorizer()` defaults, as KGP's retrievers use it
 * (YuWVandy/KG-LLM-MDQA `Pipeline/retriever.py`: `fit_transform(candidate texts)`, `transform([query])`,
 * `cosine_similarity`):
 *
 * - tf is the raw count; idf is smoothed, `idf(t) = ln((1 + n) / (1 + df(t))) + 1`, with n and df counted
 *   over the texts the vectorizer is fitted on;
 * - every vector is l2-normalized, so the score is the dot product; a vector with no known term stays zero
 *   and scores 0 against everything;
 * - query words outside the fitted vocabulary (df = 0 in the fitted texts) are ignored.
 *
 * Fitting on a subset (`scoreFitted`) costs one pass over the subset's entries; fitting on every row
 * (`scoreCorpus`) is done once and scored through postings. Scratch arrays are reused, so one ranker
 * must not be used by two computations at once (JavaScript's single thread guarantees it while the
 * methods stay synchronous).
 */
export class TfidfRanker {
  readonly matrix: TermCountMatrix;
  readonly rows: number;
  private readonly idOf: Map<string, number>;
  private readonly documentFrequency: Int32Array;
  private readonly idf: Float64Array;
  private readonly queryWeight: Float64Array;
  private corpus: { idf: Float64Array; inverseNorms: Float64Array; postingPointers: Int32Array; postingRows: Int32Array; postingCounts: Int32Array } | undefined;

  constructor(matrix: TermCountMatrix) {
    this.matrix = matrix;
    this.rows = termCountRows(matrix);
    this.idOf = positionsOf(matrix.vocabulary);
    this.documentFrequency = new Int32Array(matrix.vocabulary.length);
    this.idf = new Float64Array(matrix.vocabulary.length);
    this.queryWeight = new Float64Array(matrix.vocabulary.length);
  }

  /** The vocabulary terms of `text` and their counts, tokenized as the texts were. */
  queryTerms(text: string, tokenize: (text: string) => string[] = sklearnWordTokens): QueryTermCounts {
    const counts = new Map<number, number>();
    for (const token of tokenize(text)) {
      const id = this.idOf.get(token);
      if (id !== undefined) counts.set(id, (counts.get(id) ?? 0) + 1);
    }
    const termIds = Int32Array.from([...counts.keys()].sort((left, right) => left - right));
    return { termIds, counts: Int32Array.from(termIds, (id) => counts.get(id) as number) };
  }

  /**
   * Cosine similarity of the query to each of `rows` (aligned with `rows`), with the vectorizer fitted on
   * exactly those rows — KGP's `tf_idf(seed, candidates, …)`.
   */
  scoreFitted(rows: ArrayLike<number>, query: QueryTermCounts): Float64Array {
    const { rowPointers, termIds, counts } = this.matrix;
    const { documentFrequency, idf, queryWeight } = this;
    const scores = new Float64Array(rows.length);
    if (rows.length === 0) return scores;
    const touched: number[] = [];
    for (let position = 0; position < rows.length; position++) {
      const row = rows[position] as number;
      for (let entry = rowPointers[row] as number; entry < (rowPointers[row + 1] as number); entry++) {
        const term = termIds[entry] as number;
        if (documentFrequency[term] === 0) touched.push(term);
        documentFrequency[term] = (documentFrequency[term] as number) + 1;
      }
    }
    const smoothedTotal = 1 + rows.length;
    for (const term of touched) idf[term] = Math.log(smoothedTotal / (1 + (documentFrequency[term] as number))) + 1;
    let queryNorm = 0;
    for (let index = 0; index < query.termIds.length; index++) {
      const term = query.termIds[index] as number;
      if (documentFrequency[term] === 0) continue;
      const weight = (query.counts[index] as number) * (idf[term] as number);
      queryWeight[term] = weight;
      queryNorm += weight * weight;
    }
    if (queryNorm > 0) {
      queryNorm = Math.sqrt(queryNorm);
      for (let position = 0; position < rows.length; position++) {
        const row = rows[position] as number;
        let dot = 0;
        let norm = 0;
        for (let entry = rowPointers[row] as number; entry < (rowPointers[row + 1] as number); entry++) {
          const term = termIds[entry] as number;
          const weight = (counts[entry] as number) * (idf[term] as number);
          norm += weight * weight;
          dot += weight * (queryWeight[term] as number);
        }
        scores[position] = dot === 0 ? 0 : dot / (Math.sqrt(norm) * queryNorm);
      }
    }
    for (const term of touched) documentFrequency[term] = 0;
    for (const term of query.termIds) queryWeight[term] = 0;
    return scores;
  }

  /** Cosine similarity of the query to every row, with the vectorizer fitted on all rows (fitted once). */
  scoreCorpus(query: QueryTermCounts): Float64Array {
    const corpus = (this.corpus ??= this.fitCorpus());
    const scores = new Float64Array(this.rows);
    let queryNorm = 0;
    for (let index = 0; index < query.termIds.length; index++) {
      const weight = (query.counts[index] as number) * (corpus.idf[query.termIds[index] as number] as number);
      queryNorm += weight * weight;
    }
    if (queryNorm === 0) return scores;
    queryNorm = Math.sqrt(queryNorm);
    for (let index = 0; index < query.termIds.length; index++) {
      const term = query.termIds[index] as number;
      const termIdf = corpus.idf[term] as number;
      const queryPart = ((query.counts[index] as number) * termIdf) / queryNorm;
      for (let posting = corpus.postingPointers[term] as number; posting < (corpus.postingPointers[term + 1] as number); posting++) {
        const row = corpus.postingRows[posting] as number;
        scores[row] = (scores[row] as number) + queryPart * (corpus.postingCounts[posting] as number) * termIdf * (corpus.inverseNorms[row] as number);
      }
    }
    return scores;
  }

  private fitCorpus() {
    const { rowPointers, termIds, counts, vocabulary } = this.matrix;
    const terms = vocabulary.length;
    const postingPointers = new Int32Array(terms + 1);
    for (const term of termIds) postingPointers[term + 1] = (postingPointers[term + 1] as number) + 1;
    for (let term = 0; term < terms; term++) postingPointers[term + 1] = (postingPointers[term + 1] as number) + (postingPointers[term] as number);
    const idf = new Float64Array(terms);
    for (let term = 0; term < terms; term++) {
      idf[term] = Math.log((1 + this.rows) / (1 + (postingPointers[term + 1] as number) - (postingPointers[term] as number))) + 1;
    }
    const cursor = postingPointers.slice(0, terms);
    const postingRows = new Int32Array(termIds.length);
    const postingCounts = new Int32Array(termIds.length);
    const inverseNorms = new Float64Array(this.rows);
    for (let row = 0; row < this.rows; row++) {
      let norm = 0;
      for (let entry = rowPointers[row] as number; entry < (rowPointers[row + 1] as number); entry++) {
        const term = termIds[entry] as number;
        const weight = (counts[entry] as number) * (idf[term] as number);
        norm += weight * weight;
        const slot = cursor[term] as number;
        postingRows[slot] = row;
        postingCounts[slot] = counts[entry] as number;
        cursor[term] = slot + 1;
      }
      inverseNorms[row] = norm === 0 ? 0 : 1 / Math.sqrt(norm);
    }
    return { idf, inverseNorms, postingPointers, postingRows, postingCounts };
  }
}
