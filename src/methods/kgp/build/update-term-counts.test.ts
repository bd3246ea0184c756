import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createRandom } from '../../../core/random.js';
import { countTerms, type TermCountMatrix } from '../../../text/term-count-matrix.js';
import { updateTermCounts } from './update-term-counts.js';

function plain(matrix: TermCountMatrix): unknown {
  return { vocabulary: matrix.vocabulary, rowPointers: Array.from(matrix.rowPointers), termIds: Array.from(matrix.termIds), counts: Array.from(matrix.counts) };
}

test('counting only the new texts gives what counting all of them gives, over adds and deletes', () => {
  const random = createRandom(3);
  // Words of every case and some accents, so that code-point order and terms only in removed texts both matter.
  const words = ['weir', 'Weir', 'kester', 'ferry', 'inn', 'élan', 'zebra', 'a1', '1947', 'marle', 'boat', 'ledger', 'flood', 'Ünter', 'bridge'];
  const text = (): string => Array.from({ length: 1 + Math.floor(random() * 12) }, () => words[Math.floor(random() * words.length)]).join(' ');
  let texts = Array.from({ length: 20 }, text);
  let counts = countTerms(texts);
  for (let round = 0; round < 30; round++) {
    const previous = texts;
    const kept = previous.map((_, row) => row).filter(() => random() >= 0.2);
    const rows: number[] = [];
    const next: string[] = [];
    for (const row of kept) {
      if (random() < 0.2) {
        rows.push(-1);
        next.push(text());
      }
      rows.push(row);
      next.push(previous[row] as string);
    }
    if (random() < 0.5) {
      rows.push(-1);
      next.push(text());
    }
    const updated = updateTermCounts(counts, Int32Array.from(rows), (row) => next[row] as string);
    assert.deepEqual(plain(updated), plain(countTerms(next)), `round ${round}`);
    texts = next;
    counts = updated;
  }
});
