import assert from 'node:assert/strict';
import { test } from 'node:test';
import { extractNounPhrases } from '../src/extract/nlp-graph/noun-phrase-extractor.js';
import { createNlpTripleExtractor } from '../src/extract/triples/nlp-triples.js';

// Its own file, so that this process has created no wink-nlp instance before the triple extractor's.
test('the noun-phrase extractor still finds names after the triple extractor created its wink instance first', () => {
  createNlpTripleExtractor();
  const question = 'Who was the first president of the association which published Journal of Psychotherapy Integration?';
  assert.deepEqual(
    extractNounPhrases(question).mentions.map((mention) => mention.surface),
    ['Journal of Psychotherapy Integration'],
  );
});
