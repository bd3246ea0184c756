import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createWinkNlp, type WinkNlp } from '../src/extract/nlp-graph/create-wink-nlp.js';
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

test('a new wink-nlp instance parses as the first one did, whatever another instance learned before it', () => {
  // wink's tokenizer learns: once "Kester's" reached its unknown-word path whole, it is looked up whole.
  const tokens = (nlp: WinkNlp, text: string): string[] => nlp.readDoc(text).tokens().out() as string[];
  const text = "Kester's Mill was built in 1850.";
  const first = createWinkNlp(['sbd', 'pos', 'ner']);
  const expected = tokens(first, text);
  const learner = createWinkNlp(['sbd', 'pos', 'ner']);
  tokens(learner, "I saw Kester's.");
  assert.notDeepEqual(tokens(learner, text), expected, 'the instance that read the name learned it');
  assert.deepEqual(tokens(createWinkNlp(['sbd', 'pos', 'ner']), text), expected);
  assert.deepEqual(tokens(first, text), expected, 'nor did the first instance learn it');
});
