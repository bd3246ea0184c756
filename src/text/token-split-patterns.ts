/*
 * The pre-tokenization patterns of OpenAI's encodings (tiktoken's `pat_str`), as JavaScript regular expressions.
 * tiktoken writes them with possessive quantifiers and a case-insensitive group, which JavaScript lacks: the
 * contractions are spelled out in both cases and `\s+$` keeps trailing whitespace in one piece, which gives the same
 * pieces. They live here rather than being imported from gpt-tokenizer so that an installed kgrag needs only the
 * binary rank tables its build wrote (dist/text/tokenizer-ranks), not gpt-tokenizer's 30 MB of JavaScript tables;
 * src/text/byte-pair-encoder.test.ts checks the tokens against gpt-tokenizer's.
 */

/** Byte-pair encodings of OpenAI models that kgrag can count and chunk with. */
export type TokenizerEncoding = 'o200k_base' | 'cl100k_base' | 'p50k_base' | 'r50k_base';

const contraction = String.raw`'(?:[sS]|[dD]|[mM]|[tT]|[lL][lL]|[vV][eE]|[rR][eE])`;
const upper = String.raw`[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]`;
const lower = String.raw`[\p{Ll}\p{Lm}\p{Lo}\p{M}]`;

const r50kPattern = String.raw`'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+`;
const cl100kPattern = String.raw`${contraction}|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s+$|\s*[\r\n]|\s+(?!\S)|\s`;
const o200kPattern = [
  String.raw`[^\r\n\p{L}\p{N}]?${upper}*${lower}+(?:${contraction})?`,
  String.raw`[^\r\n\p{L}\p{N}]?${upper}+${lower}*(?:${contraction})?`,
  String.raw`\p{N}{1,3}`,
  String.raw` ?[^\s\p{L}\p{N}]+[\r\n/]*`,
  String.raw`\s*[\r\n]+`,
  String.raw`\s+(?!\S)`,
  String.raw`\s+`,
].join('|');

/** The regular expression that splits text into the pieces `encoding` merges byte pairs within (flags `gu`). */
export function tokenSplitPattern(encoding: TokenizerEncoding): RegExp {
  switch (encoding) {
    case 'o200k_base':
      return new RegExp(o200kPattern, 'gu');
    case 'cl100k_base':
      return new RegExp(cl100kPattern, 'gu');
    case 'p50k_base':
    case 'r50k_base':
      return new RegExp(r50kPattern, 'gu');
  }
}
