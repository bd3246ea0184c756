import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { countTerms } from '../../text/term-count-matrix.js';
import { TfidfRanker } from '../../text/tfidf-ranker.js';
import { kgTfidfTraversal } from './kg-tfidf-traversal.js';
import { releaseRetrieveSchedule } from './config.js';

/** 60 passages: 0–19 mention the river, 20–59 the bridge; each also has its own word. */
const texts = Array.from({ length: 60 }, (_, passage) => `p${passage} ${passage < 20 ? 'river' : 'bridge'}`);
const ranker = new TfidfRanker(countTerms(texts));
const question = ranker.queryTerms('Which river?');
const everyOther = (passage: number): number[] => texts.map((_, other) => other).filter((other) => other !== passage);

describe('kgTfidfTraversal (KGP without an LLM)', () => {
  test('follows the release schedule 10, 5, 5, 5, 3, 2 and returns exactly K = 30 when the graph allows', () => {
    const result = kgTfidfTraversal({ ranker, query: question, neighbours: everyOther, schedule: releaseRetrieveSchedule, budget: 30 });
    assert.deepEqual(
      result.rounds.map((round) => round.picks.length),
      [10, 5, 5, 5, 3, 2],
    );
    assert.equal(result.passages.length, 30);
    assert.equal(new Set(result.passages).size, 30);
    // Round 0 ranks all passages: the river passages tie, lower numbers first. Later rounds refit on the
    // candidates: the remaining river passages first, then zero-score candidates in passage order.
    assert.deepEqual(result.rounds[0]?.picks, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    assert.equal(result.rounds[0]?.candidates, 60);
    assert.deepEqual(result.rounds[1]?.picks, [10, 11, 12, 13, 14]);
    assert.equal(result.rounds[1]?.candidates, 50);
    assert.deepEqual(result.rounds[2]?.picks, [15, 16, 17, 18, 19]);
    assert.deepEqual(result.rounds[3]?.picks, [20, 21, 22, 23, 24]);
    assert.deepEqual(result.rounds[5]?.picks, [28, 29]);
    assert.deepEqual(result.passages, Array.from({ length: 30 }, (_, index) => index));
    assert.deepEqual(result.roundOf.slice(8, 12), [0, 0, 1, 1]);
    assert.deepEqual(result.parents.slice(9, 12), [-1, 0, 0], 'a round-1 passage names the earliest round-0 pick linking to it');
  });

  test('returns fewer and stops when the last picks lead nowhere new', () => {
    // The ten seeds link only to 10 and 11; those link back to seeds only.
    const neighbours = (passage: number): number[] => (passage < 10 ? [10, 11] : passage < 12 ? [0, 1] : []);
    const result = kgTfidfTraversal({ ranker, query: question, neighbours, schedule: releaseRetrieveSchedule, budget: 30 });
    assert.deepEqual(
      result.rounds.map((round) => round.picks),
      [[0, 1, 2, 3, 4, 5, 6, 7, 8, 9], [10, 11], []],
    );
    assert.equal(result.passages.length, 12);
  });

  test('candidates come from the last round only: a dead end stops the walk even when earlier picks had more', () => {
    // Seed 0 links to 10 and 20; 10 (the river passage, picked first) links nowhere. 20 stays unvisited.
    const neighbours = (passage: number): number[] => (passage === 0 ? [10, 20] : []);
    const result = kgTfidfTraversal({ ranker, query: question, neighbours, schedule: [1, 1, 5], budget: 30 });
    assert.deepEqual(result.passages, [0, 10]);
    assert.equal(result.rounds.length, 3);
  });

  test('stops at the end of the schedule, and K cuts the last round (its other picks still seed the next candidates)', () => {
    const long = kgTfidfTraversal({ ranker, query: question, neighbours: everyOther, schedule: releaseRetrieveSchedule, budget: 100 });
    assert.equal(long.passages.length, 40, '10+5+5+5+3+2·6 = 40');
    assert.equal(long.rounds.length, releaseRetrieveSchedule.length);
    const cut = kgTfidfTraversal({ ranker, query: question, neighbours: everyOther, schedule: releaseRetrieveSchedule, budget: 12 });
    assert.deepEqual(cut.rounds[1]?.picks, [10, 11, 12, 13, 14]);
    assert.deepEqual(cut.passages, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
  });

  test('another retriever can seed round 0; the seed text (the question) never changes', () => {
    const seeds = [45, 50].map((passage) => ({ passage, score: 3 }));
    const result = kgTfidfTraversal({ ranker, query: question, neighbours: everyOther, schedule: [2, 3], budget: 30, seeds });
    assert.deepEqual(result.passages, [45, 50, 0, 1, 2]);
    assert.deepEqual(result.scores.slice(0, 2), [3, 3]);
  });
});
