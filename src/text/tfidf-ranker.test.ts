import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { countTerms } from './term-count-matrix.js';
import { TfidfRanker } from './tfidf-ranker.js';

const near = (actual: number | undefined, expected: number): void => assert.ok(actual !== undefined && Math.abs(actual - expected) < 1e-12, `expected ${expected}, got ${actual}`);

/*
 * The texts, as TfidfVectorizer() tokenizes them ("a" is one character, so dropped):
 *   0 "the cat sat"       → the, cat, sat
 *   1 "the dog sat down"  → the, dog, sat, down
 *   2 "a cat and a dog"   → cat, and, dog
 * Fitted on all three (n = 3): df = 2 for the/cat/sat/dog, 1 for down/and, so with smooth idf
 *   a = idf(df 2) = ln(4/3) + 1,   b = idf(df 1) = ln(4/2) + 1.
 * Query "cat dog dog": q = (cat a, dog 2a), |q| = a√5.
 *   row 0 = (the a, cat a, sat a), |row| = a√3, q·row = a²               → cos = 1/√15
 *   row 1 = (the a, dog a, sat a, down b), |row| = √(3a² + b²), q·row = 2a² → cos = 2a / (√5 √(3a² + b²))
 *   row 2 = (cat a, and b, dog a), |row| = √(2a² + b²), q·row = 3a²       → cos = 3a / (√5 √(2a² + b²))
 */
const texts = ['the cat sat', 'the dog sat down', 'a cat and a dog'];
const a = Math.log(4 / 3) + 1;
const b = Math.log(2) + 1;
const expectedAll = [1 / Math.sqrt(15), (2 * a) / (Math.sqrt(5) * Math.sqrt(3 * a * a + b * b)), (3 * a) / (Math.sqrt(5) * Math.sqrt(2 * a * a + b * b))];

describe('TfidfRanker (scikit-learn TfidfVectorizer defaults)', () => {
  test('smooth idf, raw tf, l2 norms: cosine scores fitted on every row', () => {
    const ranker = new TfidfRanker(countTerms(texts));
    const query = ranker.queryTerms('Cat dog DOG');
    const fitted = ranker.scoreFitted([0, 1, 2], query);
    const corpus = ranker.scoreCorpus(query);
    expectedAll.forEach((expected, row) => {
      near(fitted[row], expected);
      near(corpus[row], expected);
    });
    // 0.2582 < 0.3849 < 0.6025: the text with both words wins.
    assert.ok((fitted[2] as number) > (fitted[1] as number) && (fitted[1] as number) > (fitted[0] as number));
  });

  test('fitting on a subset counts n and df over that subset only', () => {
    // Rows 1 and 2 (n = 2): dog is in both (idf ln(3/3) + 1 = 1), every other term in one (c = ln(3/2) + 1).
    //   q = (cat c, dog 2), |q| = √(c² + 4)
    //   row 1 = (the c, dog 1, sat c, down c): q·row = 2        → cos = 2 / (√(3c² + 1) √(c² + 4))
    //   row 2 = (cat c, and c, dog 1):         q·row = c² + 2   → cos = (c² + 2) / (√(2c² + 1) √(c² + 4))
    const c = Math.log(3 / 2) + 1;
    const ranker = new TfidfRanker(countTerms(texts));
    const scores = ranker.scoreFitted([1, 2], ranker.queryTerms('cat dog dog'));
    near(scores[0], 2 / (Math.sqrt(3 * c * c + 1) * Math.sqrt(c * c + 4)));
    near(scores[1], (c * c + 2) / (Math.sqrt(2 * c * c + 1) * Math.sqrt(c * c + 4)));
    // Scratch state is reset: the full fit afterwards is unchanged.
    near(ranker.scoreFitted([0, 1, 2], ranker.queryTerms('cat dog dog'))[0], expectedAll[0] as number);
  });

  test('query words outside the fitted vocabulary are ignored; a query with none scores 0 everywhere', () => {
    const ranker = new TfidfRanker(countTerms(texts));
    // "sat" is not in row 2, so fitted on row 2 alone the query has no known word.
    assert.deepEqual(Array.from(ranker.scoreFitted([2], ranker.queryTerms('sat'))), [0]);
    assert.deepEqual(Array.from(ranker.scoreCorpus(ranker.queryTerms('zebra'))), [0, 0, 0]);
    assert.deepEqual(Array.from(ranker.scoreFitted([], ranker.queryTerms('cat'))), []);
    // Extra unknown words change nothing (they are not in the vocabulary, so not in |q| either).
    const plain = ranker.scoreCorpus(ranker.queryTerms('cat dog dog'));
    const noisy = ranker.scoreCorpus(ranker.queryTerms('cat zebra dog dog okapi'));
    plain.forEach((score, row) => near(noisy[row], score));
  });

  test('an empty text scores 0 and does not break the fit', () => {
    const ranker = new TfidfRanker(countTerms([...texts, '']));
    const scores = ranker.scoreFitted([0, 3], ranker.queryTerms('cat'));
    assert.equal(scores[1], 0);
    assert.ok((scores[0] as number) > 0);
  });
});
