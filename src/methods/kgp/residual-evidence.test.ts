import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { englishStopwords } from '../../text/stopwords.js';
import { countTerms } from '../../text/term-count-matrix.js';
import { TfidfRanker } from '../../text/tfidf-ranker.js';
import { residualEvidence } from './residual-evidence.js';

describe('residualEvidence', () => {
  test('keeps the question words the passage lacks, without stopwords, with their counts', () => {
    const terms = countTerms(['Redwater is a 1961 film directed by Maria Olsen.', 'Maria Olsen was born in Bergen; her mother was a painter.']);
    const ranker = new TfidfRanker(terms);
    const question = ranker.queryTerms('Who is the mother of the director of the film Redwater? Mother!');
    const residual = residualEvidence(question, terms, 0, englishStopwords);
    assert.deepEqual(
      Array.from(residual.termIds, (term) => terms.vocabulary[term]),
      ['mother'],
    );
    assert.deepEqual(Array.from(residual.counts), [2]);
    assert.equal(residualEvidence(ranker.queryTerms('Redwater film'), terms, 0, englishStopwords).termIds.length, 0);
  });
});
