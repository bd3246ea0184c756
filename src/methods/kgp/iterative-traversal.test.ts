import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { countTerms } from '../../text/term-count-matrix.js';
import { TfidfRanker } from '../../text/tfidf-ranker.js';
import { iterativeTraversal } from './iterative-traversal.js';

/** 40 passages "p<i> w<i mod 4>"; every passage links to the next six. */
const texts = Array.from({ length: 40 }, (_, passage) => `p${passage} w${passage % 4}`);
const ranker = new TfidfRanker(countTerms(texts));
const neighbours = (passage: number) => {
  const passages = Array.from({ length: 6 }, (_, step) => passage + step + 1).filter((next) => next < 40);
  return { passages, kinds: passages.map(() => 2) };
};

describe('iterativeTraversal (Algorithm 1)', () => {
  test('expands the queue breadth first until exactly K passages, generating in batches the budget can use', async () => {
    const calls: string[] = [];
    const result = await iterativeTraversal({
      ranker,
      seeds: [0, 20].map((passage) => ({ passage, score: 1 })),
      neighbours,
      // Evidence asks for the passages whose word is w<depth mod 4>; later calls finish first.
      generate: async (path) => {
        calls.push(path.join('>'));
        await delay(path.length === 1 ? 5 : 0);
        return `w${path.length % 4}`;
      },
      termsOf: (text) => ranker.queryTerms(text),
      branching: 2,
      budget: 9,
    });
    assert.equal(result.passages.length, 9);
    assert.equal(new Set(result.passages.map((item) => item.passage)).size, 9);
    // Batch 1: ⌈(9 − 2) / 2⌉ = 4 → both seeds. Seed 0's neighbours 1–6 against "w1": 1 and 5; seed 20's: 21 and 25.
    // Batch 2: ⌈(9 − 6) / 2⌉ = 2 → paths 0>1 and 0>5 ("w2"): 1 adds 2 and 6; 5 adds 10 only (K reached).
    assert.deepEqual(calls.slice(0, 2), ['0', '20']);
    assert.deepEqual(calls.slice(2).sort(), ['0>1', '0>5']);
    assert.deepEqual(
      result.passages.map((item) => item.passage),
      [0, 20, 1, 5, 21, 25, 2, 6, 10],
    );
    assert.deepEqual(result.parents, [-1, -1, 0, 0, 20, 20, 1, 1, 5]);
    assert.deepEqual(
      result.expansions.map((expansion) => expansion.path.join('>')),
      ['0', '20', '0>1', '0>5'],
    );
  });

  test('stops when the queue runs dry, and never exceeds K with the seeds alone', async () => {
    const lonely = await iterativeTraversal({
      ranker,
      seeds: [{ passage: 39, score: 1 }],
      neighbours,
      generate: async () => 'w3',
      termsOf: (text) => ranker.queryTerms(text),
      branching: 3,
      budget: 30,
    });
    assert.deepEqual(lonely.passages.map((item) => item.passage), [39]);
    const many = await iterativeTraversal({
      ranker,
      seeds: Array.from({ length: 12 }, (_, passage) => ({ passage, score: 1 })),
      neighbours,
      generate: async () => {
        throw new Error('no call should be needed');
      },
      termsOf: (text) => ranker.queryTerms(text),
      branching: 3,
      budget: 10,
    });
    assert.equal(many.passages.length, 10);
  });
});
