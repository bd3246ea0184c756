import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { appendAll } from '../core/append-all.js';
import { finishTask, type CooperativeTask } from '../core/cooperative-task.js';
import { KgragError } from '../core/errors.js';
import { BytePairEncoder } from './byte-pair-encoder.js';
import { encodingBlocks, maxRunLength } from './encoding-blocks.js';
import { rankTableFromBytes, type RankTable } from './rank-table.js';
import { tokenSplitPattern, type TokenizerEncoding } from './token-split-patterns.js';

export type { TokenizerEncoding } from './token-split-patterns.js';

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

const supportedEncodings: readonly TokenizerEncoding[] = ['o200k_base', 'cl100k_base', 'p50k_base', 'r50k_base'];

/** Process-wide on purpose: a tokenizer is immutable (its rank table read once), one per supported encoding. */
const cache = new Map<TokenizerEncoding, Promise<Tokenizer>>();

/**
 * Returns the tokenizer of `encoding`: kgrag's byte-pair encoder over the encoding's rank table (gpt-tokenizer's
 * copy of OpenAI's), which gives tiktoken's tokens. The rank table is loaded on first use and shared by all later calls.
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
    tokenizer = loadEncoder(encoding).then((encoder) => wrapEncoding(encoding, encoder));
    cache.set(encoding, tokenizer);
  }
  return tokenizer;
}

/**
 * The encoder of `encoding`, over the rank table the build wrote as a binary file (`scripts/build.mjs`, from
 * gpt-tokenizer, a devDependency): beside this module in the package, and in the checkout's `dist/` when running
 * from source (`npm ci` builds it). The file is read as views on its bytes: a 4 MB read instead of parsing a
 * JavaScript copy of the table into a Map at every command's start.
 */
async function loadEncoder(encoding: TokenizerEncoding): Promise<BytePairEncoder> {
  return new BytePairEncoder(await loadRankTable(encoding), tokenSplitPattern(encoding));
}

const rankTableFolders = [new URL('./tokenizer-ranks/', import.meta.url), new URL('../../dist/text/tokenizer-ranks/', import.meta.url)];

async function loadRankTable(encoding: TokenizerEncoding): Promise<RankTable> {
  for (const folder of rankTableFolders) {
    const bytes = await readFile(new URL(`${encoding}.bin`, folder)).catch(() => undefined);
    const table = bytes && rankTableFromBytes(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength));
    if (table) return table;
  }
  const expected = fileURLToPath(new URL(`${encoding}.bin`, rankTableFolders[0]));
  throw new KgragError(`The ${encoding} tokenizer table is missing or damaged: ${expected} was not built.`, {
    code: 'TOKENIZER_TABLE_MISSING',
    category: 'environment',
    hint: 'Reinstall kgrag (npm install kgrag); in a checkout of kgrag, run `npm ci` or `npm run build`.',
    details: { encoding, file: expected },
  });
}

function wrapEncoding(encoding: TokenizerEncoding, encoder: BytePairEncoder): Tokenizer {
  function* countTask(text: string): CooperativeTask<number> {
    let total = 0;
    for (const [start, end] of encodingBlocks(text)) {
      total += encoder.count(text.slice(start, end));
      yield;
    }
    return total;
  }
  function* tokenizeTask(text: string): CooperativeTask<TokenizedText> {
    const tokens: number[] = [];
    const blockOffsets: Int32Array[] = [];
    for (const [start, end] of encodingBlocks(text)) {
      const block = text.slice(start, end);
      const blockTokens = encoder.encode(block);
      const offsets = tokenOffsets(encoder, blockTokens, block.length);
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
      for (const [start, end] of encodingBlocks(text)) appendAll(tokens, encoder.encode(text.slice(start, end)));
      return tokens;
    },
    decode: (tokens) => encoder.decode(tokens),
    count: (text) => finishTask(countTask(text)),
    tokenize: (text) => finishTask(tokenizeTask(text)),
    tokenizeTask,
    countTask,
  };
}

/** Where each token of a block starts, checked to cover the block exactly. */
function tokenOffsets(encoder: BytePairEncoder, tokens: number[], textLength: number): Int32Array {
  const offsets = encoder.tokenOffsets(tokens);
  const position = offsets[tokens.length] as number;
  if (position !== textLength) {
    throw new KgragError(`Tokenizer offsets cover ${position} characters of a ${textLength}-character text.`, {
      code: 'TOKENIZER_OFFSET_MISMATCH',
      category: 'internal',
      details: { position, textLength },
    });
  }
  return offsets;
}
