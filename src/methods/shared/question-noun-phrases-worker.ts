import { parentPort } from 'node:worker_threads';
import { extractNounPhrases } from '../../extract/nlp-graph/noun-phrase-extractor.js';

/*
 * The worker of `questionNounPhrases`: loads the noun-phrase extractor (wink-nlp's English model) in its own thread
 * and answers one question's noun phrases.
 */
parentPort?.once('message', (question: string) => {
  parentPort?.postMessage(extractNounPhrases(question).mentions.map((mention) => mention.surface));
});
