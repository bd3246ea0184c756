import { finishTask, type CooperativeTask } from '../../core/cooperative-task.js';
import { encodingBlocks } from '../encoding-blocks.js';
import type { Tokenizer } from '../tokenizer.js';
import { assertValidChunkOptions, type ChunkOptions } from './chunk-options.js';
import type { TextSlice } from './text-slice.js';

/**
 * Microsoft GraphRAG's token chunker (`graphrag_chunking/token_chunker.py`): a window of `size` tokens moved
 * by `size - overlap` tokens, so consecutive chunks share `overlap` tokens. Unlike GraphRAG, which decodes
 * each window, every chunk is the exact substring of `text` its tokens came from (offsets from
 * {@link Tokenizer.tokenize}), so chunk offsets and texts never drift from the document. The last window ends
 * at the end of the text and no window lies entirely inside the previous one. Starts never decrease (two
 * chunks can start at the same character only when the window boundary falls inside a character's bytes).
 *
 * `nTokens` is the number of tokens in the window: `size` for every chunk but the last. Re-encoding a chunk
 * on its own can differ by a token where the window cut through a word.
 * @throws KgragError `CHUNKING_INVALID_OPTIONS` (see {@link assertValidChunkOptions}).
 */
export function chunkByTokens(text: string, tokenizer: Tokenizer, options: ChunkOptions): TextSlice[] {
  return finishTask(chunkByTokensTask(text, tokenizer, options));
}

/**
 * {@link chunkByTokens} as a task that pauses between blocks of the text (see {@link CooperativeTask}). The text is
 * encoded block by block (`encodingBlocks`: cuts that change no token), and only the token offsets of the window
 * being filled are kept, so memory does not grow with the text's tokens (a 50 MB file is 20–30 million of them).
 */
export function* chunkByTokensTask(text: string, tokenizer: Tokenizer, options: ChunkOptions): CooperativeTask<TextSlice[]> {
  assertValidChunkOptions(options);
  const stride = options.size - options.overlap;
  const slices: TextSlice[] = [];
  let previousEnd = 0;
  /** Where each token from the current window's first one on starts: `starts[0 … count)`. */
  const starts = new Int32Array(options.size + 1);
  let count = 0;
  /** Adds the window of the first `tokens` tokens of `starts`, which ends at `end`, unless it adds no text. */
  const emit = (tokens: number, end: number): void => {
    const start = starts[0]!;
    // NOTE: the tokens of a character split across tokens have no width but the last, so a window made of
    // them adds no text: it is empty or ends where the previous one did, and is dropped.
    if (end > previousEnd) {
      slices.push({ text: text.slice(start, end), start, end, nTokens: tokens });
      previousEnd = end;
    }
  };
  for (const [blockStart, blockEnd] of encodingBlocks(text)) {
    const { tokens, offsets } = tokenizer.tokenize(text.slice(blockStart, blockEnd));
    for (let index = 0; index < tokens.length; index++) {
      starts[count++] = blockStart + offsets[index]!;
      // A full window and the start of the token after it: the window ends there, and more text follows.
      if (count === options.size + 1) {
        emit(options.size, starts[options.size]!);
        starts.copyWithin(0, stride, count);
        count -= stride;
      }
    }
    yield;
  }
  if (count > 0) emit(count, text.length);
  return slices;
}
