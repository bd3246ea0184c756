import { finishTask, type CooperativeTask } from '../../core/cooperative-task.js';
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

/** {@link chunkByTokens} as a task that pauses between blocks of the text (see {@link CooperativeTask}). */
export function* chunkByTokensTask(text: string, tokenizer: Tokenizer, options: ChunkOptions): CooperativeTask<TextSlice[]> {
  assertValidChunkOptions(options);
  const { tokens, offsets } = yield* tokenizer.tokenizeTask(text);
  const stride = options.size - options.overlap;
  const slices: TextSlice[] = [];
  let previousEnd = 0;
  for (let first = 0; first < tokens.length; first += stride) {
    const last = Math.min(first + options.size, tokens.length);
    const start = offsets[first]!;
    const end = offsets[last]!;
    // NOTE: the tokens of a character split across tokens have no width but the last, so a window made of
    // them adds no text: it is empty or ends where the previous one did, and is dropped.
    if (end > previousEnd) {
      slices.push({ text: text.slice(start, end), start, end, nTokens: last - first });
      previousEnd = end;
      if (slices.length % 256 === 0) yield;
    }
    if (last === tokens.length) break;
  }
  return slices;
}
