import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createRandom } from '../core/random.js';
import { BytePairEncoder } from './byte-pair-encoder.js';
import { rankTableBytes, rankTableFromBytes, rankTableFromRanks } from './rank-table.js';
import { tokenSplitPattern } from './token-split-patterns.js';

/*
 * kgrag's byte-pair encoder against gpt-tokenizer (identical to tiktoken), the implementation it replaced: the same
 * tokens, counts, decoded text and token offsets for every encoding, over real prose (the sample corpus, the Dulce
 * novella and A Christmas Carol when ../shared is present), Chinese, Japanese, Korean and Cyrillic text, and seeded
 * random strings of every kind of character (combining marks, emoji with modifiers, control characters, lone
 * surrogates, special-token strings, digits, runs of spaces and line breaks).
 */

const encodings = ['o200k_base', 'cl100k_base', 'p50k_base', 'r50k_base'] as const;

function realTexts(): string[] {
  const corpus = fileURLToPath(new URL('../../examples/sample-corpus/', import.meta.url));
  const texts = readdirSync(corpus).map((name) => readFileSync(`${corpus}${name}`, 'utf8'));
  for (const name of ['dulce.txt', 'christmas-carol.txt']) {
    const path = fileURLToPath(new URL(`../../../shared/datasets/texts/${name}`, import.meta.url));
    if (existsSync(path)) texts.push(readFileSync(path, 'utf8').slice(0, 60_000));
  }
  texts.push(
    '北京是中华人民共和国的首都，也是全国的政治、文化中心。東京は日本の首都であり、世界最大級の都市圏を形成している。서울은 대한민국의 수도이다.',
    'Москва — столица России. Ελληνικά: η Αθήνα είναι η πρωτεύουσα. עברית וערבית: مرحبا بالعالم.',
  );
  return texts;
}

function randomTexts(count: number): string[] {
  const random = createRandom(16);
  const pieces = [
    () => String.fromCodePoint(0x20 + Math.floor(random() * 0x5f)),
    () => String.fromCodePoint(0xa0 + Math.floor(random() * 0x2000)),
    () => String.fromCodePoint(0x4e00 + Math.floor(random() * 0x5000)),
    () => String.fromCodePoint(0x1f300 + Math.floor(random() * 0x300)),
    () => '\u0301\u0308',
    () => '👍🏽',
    () => String.fromCharCode(0xd800 + Math.floor(random() * 0x800)),
    () => String.fromCharCode(Math.floor(random() * 0x20)),
    () => ['<|endoftext|>', '<|fim_prefix|>', '<|im_start|>'][Math.floor(random() * 3)] as string,
    () => String(Math.floor(random() * 1e7)),
    () => ' '.repeat(1 + Math.floor(random() * 5)),
    () => '\r\n\n',
    () => ["'s", "'LL", "n't", "'Re"][Math.floor(random() * 4)] as string,
    () => 'Gaußstraße ÉCOLE naïve ﬁnance',
  ];
  return Array.from({ length: count }, () => {
    let text = '';
    const length = 1 + Math.floor(random() * 60);
    for (let index = 0; index < length; index++) text += (pieces[Math.floor(random() * pieces.length)] as () => string)();
    return text;
  });
}

/** gpt-tokenizer's token offsets, computed as kgrag computed them before: walking its decode generator. */
function referenceOffsets(decodeGenerator: (tokens: Iterable<number>) => Generator<string>, tokens: number[]): Int32Array {
  const offsets = new Int32Array(tokens.length + 1);
  let consumed = 0;
  const feed: Iterable<number> = {
    [Symbol.iterator]: () => ({
      next: () => (consumed < tokens.length ? { value: tokens[consumed++] as number, done: false } : { value: undefined, done: true }),
    }),
  };
  let position = 0;
  let assigned = 0;
  for (const piece of decodeGenerator(feed)) {
    offsets.fill(position, assigned, consumed);
    assigned = consumed;
    position += piece.length;
  }
  offsets.fill(position, assigned);
  return offsets;
}

const texts = [...realTexts(), ...randomTexts(400)];

for (const encoding of encodings) {
  test(`${encoding}: the same tokens, counts, text and offsets as gpt-tokenizer`, async () => {
    const reference = (await import(`gpt-tokenizer/encoding/${encoding}`)) as {
      encode(text: string, options: { disallowedSpecial: Set<string> }): number[];
      decode(tokens: number[]): string;
      decodeGenerator(tokens: Iterable<number>): Generator<string>;
    };
    const { default: ranks } = (await import(`gpt-tokenizer/esm/bpeRanks/${encoding}`)) as { default: Array<string | number[]> };
    const built = rankTableFromRanks(ranks);
    const table = rankTableFromBytes(rankTableBytes(built));
    assert.ok(table, 'the table reads back from its bytes');
    const encoder = new BytePairEncoder(table, tokenSplitPattern(encoding));
    let tokens = 0;
    for (const text of texts) {
      const expected = reference.encode(text, { disallowedSpecial: new Set() });
      const actual = encoder.encode(text);
      assert.deepEqual(actual, expected, JSON.stringify(text.slice(0, 80)));
      assert.equal(encoder.count(text), expected.length);
      assert.equal(encoder.decode(actual), reference.decode(expected));
      assert.deepEqual(encoder.tokenOffsets(actual), referenceOffsets(reference.decodeGenerator, expected));
      tokens += actual.length;
    }
    assert.ok(tokens > 20_000, `${tokens} tokens compared`);
    assert.throws(() => encoder.decode([ranks.length + 5]), RangeError);
  });
}

test('a file that is not a rank table is refused', () => {
  assert.equal(rankTableFromBytes(new Uint8Array(64)), undefined);
  const bytes = rankTableBytes(rankTableFromRanks(['a', 'b', 'ab']));
  assert.equal(rankTableFromBytes(bytes.subarray(0, bytes.length - 1)), undefined);
});
