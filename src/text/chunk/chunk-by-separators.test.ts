import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { KgragError } from '../../core/errors.js';
import { randomText, seededRandom } from '../../../test/fixtures/text/seeded-random.js';
import { createTokenizer, type Tokenizer } from '../tokenizer.js';
import { chunkBySeparators } from './chunk-by-separators.js';
import type { TextSlice } from './text-slice.js';

/**
 * The splitter's invariants: exact substrings in order without overlap, only whitespace between them, every
 * chunk within `size` tokens unless it is one character that alone takes more, exact token counts.
 */
function assertSplitterInvariants(text: string, slices: TextSlice[], tokenizer: Tokenizer, size: number): void {
  let covered = 0;
  for (const slice of slices) {
    assert.equal(slice.text, text.slice(slice.start, slice.end), 'offsets point into the text');
    assert.ok(slice.start >= covered, 'chunks are in order and do not overlap');
    assert.match(text.slice(covered, slice.start), /^\s*$/u, 'only whitespace is left between chunks');
    assert.match(slice.text, /\S/u, 'no whitespace-only chunk');
    assert.equal(slice.nTokens, tokenizer.count(slice.text), 'the token count is of the chunk itself');
    // Only a single character that alone takes more than `size` tokens can be over.
    assert.ok(slice.nTokens <= size || [...slice.text].length === 1, `chunk of ${slice.nTokens} tokens over size ${size}`);
    covered = slice.end;
  }
  assert.match(text.slice(covered), /^\s*$/u, 'the end of the text is covered');
}

describe('chunkBySeparators', () => {
  let tokenizer: Tokenizer;
  before(async () => {
    tokenizer = await createTokenizer('cl100k_base');
  });

  it('keeps a text within size as one chunk', () => {
    const text = 'One paragraph.\n\nAnother one.';
    assert.deepEqual(chunkBySeparators(text, tokenizer, { size: 200 }), [{ text, start: 0, end: text.length, nTokens: tokenizer.count(text) }]);
  });

  it('splits on blank lines first and keeps each separator with the piece it ends', () => {
    const paragraph = (index: number): string => `Paragraph ${index} talks about the river, the weir and the flood wall.`;
    const text = Array.from({ length: 12 }, (_, index) => paragraph(index)).join('\n\n');
    const slices = chunkBySeparators(text, tokenizer, { size: 40 });
    assertSplitterInvariants(text, slices, tokenizer, 40);
    assert.ok(slices.length > 1);
    assert.equal(slices.map((slice) => slice.text).join(''), text, 'the chunks tile the text');
    for (const slice of slices.slice(0, -1)) assert.ok(slice.text.endsWith('flood wall.\n\n'), 'a chunk ends after a whole paragraph and its separator');
    for (const slice of slices) assert.equal(slice.nTokens, tokenizer.count(slice.text));
  });

  it('splits an over-long paragraph into sentences without losing ". "', () => {
    const sentences = Array.from({ length: 30 }, (_, index) => `Sentence ${index} is about the market square`);
    const text = `${sentences.join('. ')}.`;
    const slices = chunkBySeparators(text, tokenizer, { size: 50 });
    assertSplitterInvariants(text, slices, tokenizer, 50);
    assert.equal(slices.map((slice) => slice.text).join(''), text);
    for (const slice of slices.slice(0, -1)) assert.ok(slice.text.endsWith('square. '), `"${slice.text}" keeps its ". "`);
  });

  it('cuts a word longer than size into token windows instead of dropping it', () => {
    const word = 'x'.repeat(3000);
    const text = `Before the word. ${word} After the word.`;
    const slices = chunkBySeparators(text, tokenizer, { size: 200 });
    assertSplitterInvariants(text, slices, tokenizer, 200);
    const joined = slices.map((slice) => slice.text).join('');
    assert.equal(joined, text, 'the long word is covered');
    assert.ok(slices.filter((slice) => /^x+ ?$/.test(slice.text)).length >= 2, 'the word became several windows');
  });

  it('emits the chunks of an over-long piece as they are, then starts a fresh chunk (the reference order)', () => {
    const long = Array.from({ length: 60 }, (_, index) => `word${index}`).join(' ');
    const text = `Short head.\n${long}\nShort tail.`;
    const slices = chunkBySeparators(text, tokenizer, { size: 30 });
    assertSplitterInvariants(text, slices, tokenizer, 30);
    assert.equal(slices[0]?.text, 'Short head.\n');
    assert.equal(slices.at(-1)?.text, 'Short tail.');
    assert.equal(slices.map((slice) => slice.text).join(''), text);
  });

  it('handles empty, whitespace-only, CJK and emoji texts', () => {
    assert.deepEqual(chunkBySeparators('', tokenizer, { size: 10 }), []);
    assert.deepEqual(chunkBySeparators('\n\n\n \n', tokenizer, { size: 10 }), []);
    for (const text of ['知识图谱。检索增强生成！'.repeat(60), '🚀👨‍👩‍👧🇫🇷'.repeat(40)]) {
      assertSplitterInvariants(text, chunkBySeparators(text, tokenizer, { size: 9 }), tokenizer, 9);
    }
  });

  it('keeps the invariants on random texts', () => {
    const random = seededRandom(33);
    for (let round = 0; round < 200; round += 1) {
      const text = randomText(random, 200);
      const size = random.integer(1, 80);
      assertSplitterInvariants(text, chunkBySeparators(text, tokenizer, { size }), tokenizer, size);
    }
  });

  it('is deterministic and rejects an invalid size', () => {
    const text = randomText(seededRandom(4), 600);
    assert.deepEqual(chunkBySeparators(text, tokenizer, { size: 60 }), chunkBySeparators(text, tokenizer, { size: 60 }));
    assert.throws(
      () => chunkBySeparators('text', tokenizer, { size: 0 }),
      (error: unknown) => KgragError.isInstance(error) && error.code === 'CHUNKING_INVALID_OPTIONS',
    );
  });
});
