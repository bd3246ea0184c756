import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { KgragError } from '../core/errors.js';
import { seededRandom, randomText } from '../../test/fixtures/text/seeded-random.js';
import { createTokenizer, type TokenizerEncoding } from './tokenizer.js';

/** Checks the offset contract of `tokenize` and returns the pieces each token covers. */
function assertOffsetsValid(text: string, tokens: number[], offsets: Int32Array): string[] {
  assert.equal(offsets.length, tokens.length + 1);
  assert.equal(offsets[0], 0);
  assert.equal(offsets[tokens.length], text.length);
  const pieces: string[] = [];
  for (let index = 0; index < tokens.length; index += 1) {
    const start = offsets[index]!;
    const end = offsets[index + 1]!;
    assert.ok(end >= start, `offsets decrease at token ${index}`);
    const previous = text.charCodeAt(start - 1);
    assert.ok(!(previous >= 0xd800 && previous <= 0xdbff), `token ${index} starts inside a surrogate pair`);
    pieces.push(text.slice(start, end));
  }
  assert.equal(pieces.join(''), text);
  return pieces;
}

describe('createTokenizer', () => {
  it('returns one shared instance per encoding', async () => {
    assert.equal(await createTokenizer(), await createTokenizer('o200k_base'));
    assert.notEqual(await createTokenizer('cl100k_base'), await createTokenizer('o200k_base'));
  });

  it('rejects an unknown encoding with a config error', async () => {
    await assert.rejects(createTokenizer('gpt9_base' as TokenizerEncoding), (error: unknown) => {
      assert.ok(KgragError.isInstance(error));
      assert.equal(error.code, 'TOKENIZER_UNKNOWN_ENCODING');
      assert.equal(error.category, 'config');
      return true;
    });
  });

  for (const encoding of ['o200k_base', 'cl100k_base', 'p50k_base', 'r50k_base'] as const) {
    it(`round-trips and counts with ${encoding}`, async () => {
      const tokenizer = await createTokenizer(encoding);
      const text = 'Knowledge graphs, 知识图谱, and émojis 🚀.';
      const tokens = tokenizer.encode(text);
      assert.equal(tokenizer.decode(tokens), text);
      assert.equal(tokenizer.count(text), tokens.length);
      assert.equal(tokenizer.encoding, encoding);
    });
  }
});

describe('Tokenizer.tokenize', () => {
  it('gives offsets on character boundaries for emoji, CJK and combining marks', async () => {
    const tokenizer = await createTokenizer();
    const text = 'Hello 👋🏽 world — 日本語のテキスト. e\u0301 café 🇫🇷 👨‍👩‍👧 𝔘𝔫𝔦 한국어';
    const { tokens, offsets } = tokenizer.tokenize(text);
    assert.deepEqual(tokens, tokenizer.encode(text));
    const pieces = assertOffsetsValid(text, tokens, offsets);
    assert.ok(pieces.includes(''), 'a character split across tokens gives an empty piece');
  });

  it('treats special-token text as ordinary text', async () => {
    const tokenizer = await createTokenizer();
    const text = 'before <|endoftext|> after';
    const { tokens, offsets } = tokenizer.tokenize(text);
    assertOffsetsValid(text, tokens, offsets);
    assert.equal(tokenizer.count(text), tokens.length);
    assert.ok(tokens.length > 5);
  });

  it('handles empty text, one token and a lone surrogate', async () => {
    const tokenizer = await createTokenizer();
    assert.deepEqual(tokenizer.tokenize(''), { tokens: [], offsets: new Int32Array([0]) });
    const one = tokenizer.tokenize('a');
    assert.deepEqual([...one.offsets], [0, 1]);
    const lone = 'x\uD800y';
    const { tokens, offsets } = tokenizer.tokenize(lone);
    assert.equal(offsets[tokens.length], lone.length);
  });

  it('keeps the offset contract on random texts', async () => {
    const random = seededRandom(7);
    for (const encoding of ['o200k_base', 'cl100k_base'] as const) {
      const tokenizer = await createTokenizer(encoding);
      for (let round = 0; round < 100; round += 1) {
        const text = randomText(random, 60);
        const { tokens, offsets } = tokenizer.tokenize(text);
        assertOffsetsValid(text, tokens, offsets);
        assert.equal(tokens.length, tokenizer.count(text));
      }
    }
  });
});

describe('Tokenizer on ordinary text', () => {
  const corpus = new URL('../../examples/sample-corpus/', import.meta.url);
  const files = readdirSync(corpus).filter((name) => /\.(md|txt)$/.test(name)).sort();
  const texts = files.map((name) => readFileSync(new URL(name, corpus), 'utf8'));
  const random = seededRandom(21);
  // More than one block of the tokenizer (about 16,000 characters each), so block boundaries are crossed too.
  const generated = Array.from({ length: 300 }, () => randomText(random, 60)).join('\n\n');
  for (const encoding of ['o200k_base', 'cl100k_base', 'p50k_base', 'r50k_base'] as const) {
    it(`gives exactly gpt-tokenizer's tokens with ${encoding}`, async () => {
      const tokenizer = await createTokenizer(encoding);
      const direct = await import(`gpt-tokenizer/encoding/${encoding}`);
      const plainText = { disallowedSpecial: new Set<string>() };
      assert.ok(files.length >= 10 && generated.length > 40_000);
      for (const text of [...texts, texts.join('\n\n'), generated]) {
        const expected = direct.encode(text, plainText) as number[];
        assert.deepEqual(tokenizer.encode(text), expected);
        assert.deepEqual(tokenizer.tokenize(text).tokens, expected);
        assert.equal(tokenizer.count(text), expected.length);
      }
    });
  }
});

describe('Tokenizer on long runs', () => {
  const runs = ['a', 'Z', '*', '=', '7', ' ', '\n', '\t', 'ACGT', '🚀', '👋🏽', '日本', 'e\u0301', '\u0301', '한', '𝔘', '-|', '\u00a0'];

  it('keeps offsets exact on random mixes of long runs, multi-byte characters, emoji and CJK', async () => {
    const random = seededRandom(13);
    for (const encoding of ['o200k_base', 'cl100k_base', 'r50k_base'] as const) {
      const tokenizer = await createTokenizer(encoding);
      for (let round = 0; round < 40; round += 1) {
        let text = '';
        for (let part = 0; part < 8; part += 1) text += random.pick(runs).repeat(random.integer(0, 700)) + randomText(random, 10);
        const { tokens, offsets } = tokenizer.tokenize(text);
        assertOffsetsValid(text, tokens, offsets);
        assert.equal(tokenizer.decode(tokens), text);
        assert.equal(tokenizer.count(text), tokens.length);
        assert.deepEqual(tokenizer.encode(text), tokens);
      }
    }
  });

  it('tokenizes a 2 MB line without spaces', async () => {
    const tokenizer = await createTokenizer();
    const random = seededRandom(17);
    const letters = 'abcdefghijklmnopqrstuvwxyz';
    let text = '';
    while (text.length < 2_000_000) text += Array.from({ length: 1000 }, () => letters[random.integer(0, 25)]).join('');
    const { tokens, offsets } = tokenizer.tokenize(text);
    assert.equal(offsets[tokens.length], text.length);
    let decreasing = 0;
    for (let index = 0; index < tokens.length; index += 1) if (offsets[index]! > offsets[index + 1]!) decreasing += 1;
    assert.equal(decreasing, 0);
    assert.equal(tokenizer.count(text), tokens.length);
  });
});
