import { readFile } from 'node:fs/promises';
import { appendAll } from '../core/append-all.js';
import { finishTask, type CooperativeTask } from '../core/cooperative-task.js';
import { KgragError } from '../core/errors.js';
import { encodingBlocks, maxRunLength } from './encoding-blocks.js';

/** Byte-pair encodings of OpenAI models that kgrag can count and chunk with. */
export type TokenizerEncoding = 'o200k_base' | 'cl100k_base' | 'p50k_base' | 'r50k_base';

/** Token ids of a text and where each token starts in it. */
export interface TokenizedText {
  tokens: number[];
  /**
   * `offsets[i]` is the UTF-16 offset in the text where token `i` starts, and
   * `offsets[tokens.length] === text.length`, so token `i` covers `text.slice(offsets[i], offsets[i + 1])`.
   * Non-decreasing, and always on a code-point boundary: the tokens of a character whose UTF-8 bytes are
   * split across tokens all start at that character, the last one covers it and the others are empty.
   */
  offsets: Int32Array;
}

/**
 * Counts, encodes and decodes text with one byte-pair encoding. Special-token strings such as
 * `<|endoftext|>` in documents are treated as ordinary text, never as control tokens, so any input is accepted.
 *
 * Time is linear in the length of the text. Byte-pair merging is quadratic in the length of one pre-tokenized
 * piece, so a run of more than {@link maxRunLength} characters of one class (letters, digits, other symbols,
 * whitespace) — a line of `*`, a DNA sequence, a text without spaces — is encoded in pieces of at most that
 * many characters. Such runs may get other tokens than the encoding's own tokenizer would give them; all
 * other text gets exactly its tokens.
 */
export interface Tokenizer {
  readonly encoding: TokenizerEncoding;
  encode(text: string): number[];
  decode(tokens: readonly number[]): string;
  /** Number of tokens of `text`; faster than `encode(text).length` because no array is built. */
  count(text: string): number;
  /** Token ids plus the character offset where each token starts (see {@link TokenizedText}). */
  tokenize(text: string): TokenizedText;
  /** {@link Tokenizer.tokenize} as a task that pauses between blocks of the text (see {@link CooperativeTask}). */
  tokenizeTask(text: string): CooperativeTask<TokenizedText>;
  /** {@link Tokenizer.count} as a task that pauses between blocks of the text. */
  countTask(text: string): CooperativeTask<number>;
}

/** The functions kgrag uses from one `gpt-tokenizer/encoding/*` module. */
interface EncodingModule {
  encode(text: string, options: { disallowedSpecial: Set<string> }): number[];
  decode(tokens: Iterable<number>): string;
  decodeGenerator(tokens: Iterable<number>): Generator<string, void, void>;
  countTokens(text: string, options: { disallowedSpecial: Set<string> }): number;
}

const supportedEncodings: readonly TokenizerEncoding[] = ['o200k_base', 'cl100k_base', 'p50k_base', 'r50k_base'];

const cache = new Map<TokenizerEncoding, Promise<Tokenizer>>();

/**
 * Returns the tokenizer of `encoding` (gpt-tokenizer, identical to tiktoken). The encoding's rank table
 * is loaded on first use and shared by all later calls.
 * @throws KgragError `TOKENIZER_UNKNOWN_ENCODING` for an encoding kgrag does not ship.
 */
export function createTokenizer(encoding: TokenizerEncoding = 'o200k_base'): Promise<Tokenizer> {
  if (!supportedEncodings.includes(encoding)) {
    return Promise.reject(
      new KgragError(`Unknown tokenizer encoding "${String(encoding)}".`, {
        code: 'TOKENIZER_UNKNOWN_ENCODING',
        category: 'config',
        hint: `Set tokenizer.encoding to one of ${supportedEncodings.join(', ')}.`,
        details: { encoding },
      }),
    );
  }
  let tokenizer = cache.get(encoding);
  if (tokenizer === undefined) {
    tokenizer = importEncoding(encoding).then((module) => wrapEncoding(encoding, module));
    cache.set(encoding, tokenizer);
  }
  return tokenizer;
}

/**
 * The encoding built from the rank table the build wrote as JSON beside this file (`scripts/build.mjs`), which
 * parses three times faster than gpt-tokenizer's JavaScript copy of the same table; the package's own module
 * when there is none (running from source).
 */
async function importEncoding(encoding: TokenizerEncoding): Promise<EncodingModule> {
  let ranks: string | undefined;
  try {
    ranks = await readFile(new URL(`./tokenizer-ranks/${encoding}.json`, import.meta.url), 'utf8');
  } catch {
    return importEncodingModule(encoding);
  }
  const { GptEncoding } = await import('gpt-tokenizer/GptEncoding');
  const parsed = JSON.parse(ranks) as Array<string | number[] | null>;
  // JSON writes the table's holes (p50k_base has one unused rank) as null; the encoder counts only real entries.
  for (let rank = 0; rank < parsed.length; rank++) if (parsed[rank] === null) delete parsed[rank];
  return GptEncoding.getEncodingApi(encoding, () => parsed as Array<string | number[]>);
}

/** Literal import specifiers, so bundlers and the type checker can see every module. */
async function importEncodingModule(encoding: TokenizerEncoding): Promise<EncodingModule> {
  switch (encoding) {
    case 'o200k_base':
      return import('gpt-tokenizer/encoding/o200k_base');
    case 'cl100k_base':
      return import('gpt-tokenizer/encoding/cl100k_base');
    case 'p50k_base':
      return import('gpt-tokenizer/encoding/p50k_base');
    case 'r50k_base':
      return import('gpt-tokenizer/encoding/r50k_base');
  }
}

function wrapEncoding(encoding: TokenizerEncoding, module: EncodingModule): Tokenizer {
  const plainText = { disallowedSpecial: new Set<string>() };
  function* countTask(text: string): CooperativeTask<number> {
    let total = 0;
    for (const [start, end] of encodingBlocks(text)) {
      total += module.countTokens(text.slice(start, end), plainText);
      yield;
    }
    return total;
  }
  function* tokenizeTask(text: string): CooperativeTask<TokenizedText> {
    const tokens: number[] = [];
    const blockOffsets: Int32Array[] = [];
    for (const [start, end] of encodingBlocks(text)) {
      const block = text.slice(start, end);
      const blockTokens = module.encode(block, plainText);
      const offsets = tokenOffsets(module, blockTokens, block.length);
      for (let index = 0; index < blockTokens.length; index += 1) offsets[index]! += start;
      appendAll(tokens, blockTokens);
      blockOffsets.push(offsets.subarray(0, blockTokens.length));
      yield;
    }
    const offsets = new Int32Array(tokens.length + 1);
    let filled = 0;
    for (const block of blockOffsets) {
      offsets.set(block, filled);
      filled += block.length;
    }
    offsets[tokens.length] = text.length;
    return { tokens, offsets };
  }
  return {
    encoding,
    encode(text) {
      const tokens: number[] = [];
      for (const [start, end] of encodingBlocks(text)) appendAll(tokens, module.encode(text.slice(start, end), plainText));
      return tokens;
    },
    decode: (tokens) => module.decode(tokens),
    count: (text) => finishTask(countTask(text)),
    tokenize: (text) => finishTask(tokenizeTask(text)),
    tokenizeTask,
    countTask,
  };
}

/**
 * Walks the decoder once, feeding it one token at a time. The decoder yields text only when a character is
 * complete, so the tokens consumed since the previous yield all start where that text starts.
 */
function tokenOffsets(module: EncodingModule, tokens: number[], textLength: number): Int32Array {
  const offsets = new Int32Array(tokens.length + 1);
  const feed = new CountingIterator(tokens);
  let position = 0;
  let assigned = 0;
  for (const piece of module.decodeGenerator(feed)) {
    offsets.fill(position, assigned, feed.consumed);
    assigned = feed.consumed;
    position += piece.length;
  }
  offsets.fill(position, assigned);
  if (position !== textLength) {
    throw new KgragError(`Tokenizer offsets cover ${position} characters of a ${textLength}-character text.`, {
      code: 'TOKENIZER_OFFSET_MISMATCH',
      category: 'internal',
      details: { position, textLength },
    });
  }
  return offsets;
}

/** An iterator over token ids that records how many the consumer has pulled. */
class CountingIterator implements Iterable<number>, Iterator<number> {
  consumed = 0;

  constructor(private readonly tokens: number[]) {}

  [Symbol.iterator](): Iterator<number> {
    return this;
  }

  next(): IteratorResult<number> {
    const token = this.tokens[this.consumed];
    if (token === undefined) return { value: undefined, done: true };
    this.consumed += 1;
    return { value: token, done: false };
  }
}
