import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { randomText, seededRandom, type SeededRandom } from '../../test/fixtures/text/seeded-random.js';
import { encodingBlocks, maxRunLength, nextTokenNeutralBoundary } from './encoding-blocks.js';

const encodings = {
  o200k_base: await import('gpt-tokenizer/encoding/o200k_base'),
  cl100k_base: await import('gpt-tokenizer/encoding/cl100k_base'),
  p50k_base: await import('gpt-tokenizer/encoding/p50k_base'),
  r50k_base: await import('gpt-tokenizer/encoding/r50k_base'),
};
const plainText = { disallowedSpecial: new Set<string>() };

/** Prose with the characters that make pre-tokenizers differ: line breaks after punctuation, digits, slashes, odd spaces. */
function trickyText(random: SeededRandom, words: number): string {
  const pieces = ['word', 'Word', 'WORD', '42', '1999', 'a/b', 'end.', 'x:', '—', '"q"', "it's", 'café', 'e\u0301', '日本語', '🚀', '/', '*', '#'];
  const gaps = [' ', ' ', ' ', '\n', '\n\n', '  ', ' \n', '\t', '\u00a0', '', '\r\n'];
  let text = '';
  for (let index = 0; index < words; index += 1) text += random.pick(pieces) + random.pick(gaps);
  return text;
}

describe('nextTokenNeutralBoundary', () => {
  it('finds only positions where encoding the two sides apart gives the tokens of the whole, in every encoding', () => {
    const random = seededRandom(11);
    let boundaries = 0;
    for (let round = 0; round < 150; round += 1) {
      const text = round % 2 === 0 ? trickyText(random, 40) : randomText(random, 40);
      for (let at = nextTokenNeutralBoundary(text, 0); at < text.length; at = nextTokenNeutralBoundary(text, at + 1)) {
        boundaries += 1;
        for (const [name, encoding] of Object.entries(encodings)) {
          const whole = encoding.encode(text, plainText);
          const apart = [...encoding.encode(text.slice(0, at), plainText), ...encoding.encode(text.slice(at), plainText)];
          assert.deepEqual(apart, whole, `${name} at ${at} of ${JSON.stringify(text)}`);
        }
      }
    }
    assert.ok(boundaries > 1000, `${boundaries} boundaries checked`);
  });
});

describe('encodingBlocks', () => {
  it('covers the text in order, cuts runs longer than maxRunLength, and never splits a surrogate pair', () => {
    const random = seededRandom(5);
    const runs = ['a', '*', '7', ' ', '\n', '🚀', '日', 'e\u0301', 'ACGT', '-=', ''];
    for (let round = 0; round < 60; round += 1) {
      let text = '';
      for (let part = 0; part < 12; part += 1) text += random.pick(runs).repeat(random.integer(0, 400)) + randomText(random, 8);
      const blocks = encodingBlocks(text);
      let position = 0;
      for (const [start, end] of blocks) {
        assert.equal(start, position);
        assert.ok(end > start);
        const code = text.charCodeAt(end);
        assert.ok(!(code >= 0xdc00 && code <= 0xdfff), 'a block ends inside a surrogate pair');
        assert.ok(!new RegExp(`(.)\\1{${maxRunLength}}`, 'su').test(text.slice(start, end)), 'a repeated character runs past maxRunLength');
        position = end;
      }
      assert.equal(position, text.length);
    }
    assert.deepEqual(encodingBlocks(''), []);
    assert.deepEqual(encodingBlocks('short'), [[0, 5]]);
  });

  it('ends blocks of long texts only at token-neutral boundaries', () => {
    const random = seededRandom(9);
    const text = Array.from({ length: 12 }, () => randomText(random, 2000)).join('\n');
    const blocks = encodingBlocks(text);
    assert.ok(blocks.length > 2, `${blocks.length} blocks`);
    for (const [start] of blocks.slice(1)) assert.equal(nextTokenNeutralBoundary(text, start, start + 2), start);
  });
});
