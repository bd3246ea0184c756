import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { rankTableFromBytes, rankTableFromRanks } from '../src/text/rank-table.js';
import { createTokenizer as sourceTokenizer, type TokenizerEncoding } from '../src/text/tokenizer.js';

/*
 * The compiled package reads its tokenizers' rank tables from the binary files the build wrote (a file read instead
 * of parsing gpt-tokenizer's JavaScript copies); they must tokenize exactly as the tables built from those copies
 * (src/text/byte-pair-encoder.test.ts checks those against gpt-tokenizer itself).
 */

const compiled = new URL('../dist/text/tokenizer.js', import.meta.url);
const corpus = fileURLToPath(new URL('../examples/sample-corpus', import.meta.url));

// The suite's compiled mirror links these files beside its tokenizer too (scripts/compile-test-tree.mjs), so the
// tokenizers compared below may both read them: the files themselves are compared with gpt-tokenizer's tables here.
test('each binary rank table holds exactly the table built from gpt-tokenizer\'s JavaScript copy', async () => {
  const rankModules = {
    o200k_base: () => import('gpt-tokenizer/esm/bpeRanks/o200k_base'),
    cl100k_base: () => import('gpt-tokenizer/esm/bpeRanks/cl100k_base'),
    p50k_base: () => import('gpt-tokenizer/esm/bpeRanks/p50k_base'),
    r50k_base: () => import('gpt-tokenizer/esm/bpeRanks/r50k_base'),
  } as const;
  for (const [encoding, load] of Object.entries(rankModules)) {
    const bytes = readFileSync(new URL(`../dist/text/tokenizer-ranks/${encoding}.bin`, import.meta.url));
    const fromFile = rankTableFromBytes(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength));
    assert.ok(fromFile, `${encoding}.bin is not a rank table`);
    const fromModule = rankTableFromRanks(((await load()) as { default: Array<string | number[]> }).default);
    assert.deepEqual(fromFile.offsets, fromModule.offsets, encoding);
    assert.deepEqual(fromFile.pool, fromModule.pool, encoding);
    assert.deepEqual(fromFile.slots, fromModule.slots, encoding);
  }
});

test('the compiled tokenizer (binary rank tables) encodes exactly as the one built from gpt-tokenizer\'s tables', async () => {
  assert.ok(existsSync(compiled), 'dist/ is missing: run `npm run build` (npm ci does it)');
  assert.ok(existsSync(new URL('../dist/text/tokenizer-ranks/o200k_base.bin', import.meta.url)), 'the build wrote no rank tables');
  const { createTokenizer: compiledTokenizer } = (await import(compiled.href)) as { createTokenizer: typeof sourceTokenizer };
  const texts = readdirSync(corpus).map((name) => readFileSync(`${corpus}/${name}`, 'utf8'));
  texts.push('Ünïcödé, 中文分词, 日本語のテキスト, 한국어 문장, emoji 🧭🚢, tabs\tand\r\nnewlines, <|endoftext|> as text.');
  for (const encoding of ['o200k_base', 'cl100k_base', 'p50k_base', 'r50k_base'] as TokenizerEncoding[]) {
    const [fromFile, fromModule] = await Promise.all([compiledTokenizer(encoding), sourceTokenizer(encoding)]);
    for (const text of texts) {
      assert.deepEqual(fromFile.encode(text), fromModule.encode(text), `${encoding} on ${text.slice(0, 40)}`);
      assert.equal(fromFile.decode(fromModule.encode(text)), text);
    }
  }
});
