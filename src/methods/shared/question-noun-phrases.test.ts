import assert from 'node:assert/strict';
import { test } from 'node:test';
import { questionNounPhrases } from './question-noun-phrases.js';

test("a question's noun phrases are the same from the worker thread as from this one", async () => {
  const questions = [
    'Who is the mother of the director of film Polish-Russian War?',
    'Which film came out first, The Love Route or Ranjhe Di Heer?',
    'Where did Agent Alex Mercer take the team at Dulce Base?',
  ];
  for (const question of questions) {
    const fromWorker = await questionNounPhrases(question, { thread: 'worker' });
    assert.ok(fromWorker.length > 0, question);
    assert.deepEqual(fromWorker, await questionNounPhrases(question, { thread: 'this' }), question);
  }
});
