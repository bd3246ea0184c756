import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createRandom } from '../core/random.js';
import { createTokenizer } from '../text/tokenizer.js';
import type { Tokenizer } from '../text/tokenizer.js';
import type { ContextChunk } from './answer-types.js';
import { packSourcesTable } from './pack-context.js';

const header = '-----Sources-----\nid|title|text';

function chunk(hid: number, text: string, documentTitle = `Doc ${hid}`): ContextChunk {
  return { id: `chunk-${hid}`, hid, documentId: `doc-${hid}`, documentTitle, source: `doc-${hid}.txt`, text, score: 1 / hid, scores: {} };
}

const tokenizer: Tokenizer = await createTokenizer();

/** The rows of a packed table, without the two header lines. */
const rowsOf = (text: string): string[] => text.split('\n').slice(2);

describe('packSourcesTable', () => {
  test('renders a header and one id|title|text row per chunk, in rank order', () => {
    const chunks = [chunk(3, 'The weir was rebuilt in 1952.', 'Weir history'), chunk(1, 'Mara Ellison ran the ferry.', 'Ferry')];
    const packed = packSourcesTable(chunks, tokenizer, 1000);
    assert.equal(packed.text, `${header}\n3|Weir history|The weir was rebuilt in 1952.\n1|Ferry|Mara Ellison ran the ferry.`);
    assert.equal(packed.tokens, tokenizer.count(packed.text));
    assert.deepEqual(packed.included, chunks);
  });

  test('escapes | and collapses newlines so one row is one record', () => {
    const packed = packSourcesTable([chunk(7, 'a | b\n\nc\r\n  d\t|e  ', 'Title | with\nbreak')], tokenizer, 1000);
    assert.deepEqual(rowsOf(packed.text), ['7|Title / with break|a / b c d /e']);
  });

  test('skips a chunk that does not fit but still fits later smaller ones', () => {
    const small = (hid: number) => chunk(hid, `Short passage number ${hid}.`);
    const huge = chunk(2, 'word '.repeat(500));
    const chunks = [small(1), huge, small(3), small(4)];
    // Budget: the header and the three small rows, each row counted with its leading newline (8 + 3 × 13
    // tokens with o200k_base), far less than the 500-word row.
    const rows = ['1|Doc 1|Short passage number 1.', '3|Doc 3|Short passage number 3.', '4|Doc 4|Short passage number 4.'];
    const budget = tokenizer.count(header) + rows.reduce((sum, row) => sum + tokenizer.count(`\n${row}`), 0);
    assert.equal(budget, 47);
    const packed = packSourcesTable(chunks, tokenizer, budget);
    assert.deepEqual(
      packed.included.map((included) => included.hid),
      [1, 3, 4],
    );
    assert.equal(packed.text, [header, ...rows].join('\n'));
    // The whole table counts 45 tokens: ".\n" is one token where rows meet, so rows are slightly over-counted.
    assert.equal(packed.tokens, 45);
    // One token less and the last small row no longer fits.
    assert.deepEqual(
      packSourcesTable(chunks, tokenizer, budget - 1).included.map((included) => included.hid),
      [1, 3],
    );
  });

  test('a budget that fits only the header gives an empty table', () => {
    const budget = tokenizer.count(header);
    const packed = packSourcesTable([chunk(1, 'Some text here.')], tokenizer, budget);
    assert.equal(packed.text, header);
    assert.equal(packed.tokens, budget);
    assert.deepEqual(packed.included, []);
    assert.deepEqual(packSourcesTable([], tokenizer, 100).included, []);
  });

  test(
    'a budget smaller than the header is not exceeded',
    () => {
      const packed = packSourcesTable([chunk(1, 'Some text here.')], tokenizer, 3);
      assert.ok(packed.tokens <= 3, `tokens ${packed.tokens}`);
      assert.equal(tokenizer.count(packed.text), packed.tokens);
    },
  );

  test('property: never exceeds the budget, keeps rank order, one row per included chunk', () => {
    const random = createRandom(1234);
    const vocabulary = ['weir', 'bridge', 'Kestermouth', 'ferry', '1952', 'Mara', '|', '\n', '  ', 'é', 'naïve', '日本', '🙂', '--', 'x|y', '\r\n', 'ünïcödé', '...'];
    const headerTokens = tokenizer.count(header);
    for (let round = 0; round < 150; round++) {
      const chunks = Array.from({ length: Math.floor(random() * 12) }, (_, index) => {
        const words = Array.from({ length: Math.floor(random() * 80) }, () => vocabulary[Math.floor(random() * vocabulary.length)] as string);
        return chunk(index + 1 + Math.floor(random() * 3) * 100, words.join(random() < 0.5 ? ' ' : ''), random() < 0.3 ? 'Title|with\npipe' : `Doc ${index}`);
      });
      const budget = headerTokens + Math.floor(random() * 400);
      const packed = packSourcesTable(chunks, tokenizer, budget);
      const message = `round ${round}, budget ${budget}`;
      assert.ok(packed.tokens <= budget, message);
      assert.equal(packed.tokens, tokenizer.count(packed.text), message);
      // Included chunks are a subsequence of the input, in order.
      let cursor = 0;
      for (const included of packed.included) {
        while (cursor < chunks.length && chunks[cursor] !== included) cursor++;
        assert.ok(cursor < chunks.length, `${message}: included out of order`);
        cursor++;
      }
      // One row per included chunk, each "hid|title|text" with exactly two separators.
      const rows = rowsOf(packed.text);
      assert.ok(packed.text.startsWith(header), message);
      assert.equal(rows.length, packed.included.length, message);
      rows.forEach((row, index) => {
        assert.ok(row.startsWith(`${packed.included[index]?.hid}|`), message);
        assert.equal(row.split('|').length, 3, `${message}: row ${JSON.stringify(row)}`);
      });
      // Greedy: a chunk left out did not fit on top of the chunks included before it.
      const cellOf = (value: string) => value.replace(/\s+/g, ' ').replaceAll('|', '/').trim();
      const rowOf = (candidate: ContextChunk) => `${candidate.hid}|${cellOf(candidate.documentTitle)}|${cellOf(candidate.text)}`;
      chunks.forEach((candidate, index) => {
        if (packed.included.includes(candidate)) return;
        const before = packed.included.filter((included) => chunks.indexOf(included) < index);
        // Rows are counted one by one, each with its leading newline.
        const needed = [...before, candidate].reduce((sum, row) => sum + tokenizer.count(`\n${rowOf(row)}`), tokenizer.count(header));
        assert.ok(needed > budget, `${message}: chunk ${index} would have fitted`);
      });
    }
  });
});
