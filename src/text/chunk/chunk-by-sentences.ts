import { finishTask, type CooperativeTask } from '../../core/cooperative-task.js';
import { splitSentences, type TextSpan } from '../sentences.js';
import type { Tokenizer } from '../tokenizer.js';
import { chunkByTokensTask } from './chunk-by-tokens.js';
import { assertValidChunkOptions, type ChunkOptions } from './chunk-options.js';
import type { TextSlice } from './text-slice.js';

const markdownHeading = /^#{1,6}(?:[ \t]|$)/;

/**
 * Packs whole sentences ({@link splitSentences}) into chunks of at most `size` tokens. Each chunk runs from
 * the start of its first sentence to the end of its last, as an exact substring of `text`.
 *
 * - Overlap: a chunk begins with the trailing sentences of the previous one that fit in `overlap` tokens
 *   (never all of them, so every chunk adds new text).
 * - A sentence longer than `size` becomes chunks of its own, cut by {@link chunkByTokens}.
 * - Heading-aware: a Markdown heading starts a new chunk, without overlap, once the current chunk is at
 *   least half full, and a heading is never left as the last sentence of a chunk when the next one has room.
 *
 * `nTokens` is the exact token count of the chunk's text (of the window, for pieces of a long sentence).
 * @throws KgragError `CHUNKING_INVALID_OPTIONS` (see {@link assertValidChunkOptions}).
 */
export function chunkBySentences(text: string, tokenizer: Tokenizer, options: ChunkOptions): TextSlice[] {
  return finishTask(chunkBySentencesTask(text, tokenizer, options));
}

/** {@link chunkBySentences} as a task that pauses between sentences and chunks (see {@link CooperativeTask}). */
export function* chunkBySentencesTask(text: string, tokenizer: Tokenizer, options: ChunkOptions): CooperativeTask<TextSlice[]> {
  assertValidChunkOptions(options);
  return yield* new SentencePacker(text, tokenizer, options).pack();
}

class SentencePacker {
  private readonly sentences: TextSpan[];
  private readonly counts: Int32Array;
  private readonly slices: TextSlice[] = [];
  /** First sentence of the chunk being built, carried overlap included. */
  private first = 0;
  /** First sentence of that chunk that no earlier chunk holds; everything before it is emitted. */
  private fresh = 0;
  /** Next sentence to consider. */
  private next = 0;
  /** Estimated tokens of sentences `[first, next)`. */
  private estimated = 0;

  constructor(
    private readonly text: string,
    private readonly tokenizer: Tokenizer,
    private readonly options: ChunkOptions,
  ) {
    this.sentences = splitSentences(text);
    this.counts = new Int32Array(this.sentences.length);
  }

  *pack(): CooperativeTask<TextSlice[]> {
    const { size } = this.options;
    const total = this.sentences.length;
    for (let index = 0; index < total; index += 1) {
      this.counts[index] = yield* this.tokenizer.countTask(this.sentenceText(index));
    }
    while (this.fresh < total) {
      const next = this.next;
      if (next === total) {
        yield* this.close(next);
        continue;
      }
      const count = this.counts[next]!;
      if (count > size) {
        if (next > this.fresh) {
          yield* this.close(next);
          continue;
        }
        yield* this.emitLongSentence(next);
        this.next = next + 1;
        this.first = this.next;
        this.fresh = this.next;
        this.estimated = 0;
        continue;
      }
      if (next > this.fresh && this.isHeading(next) && this.estimated >= size / 2) {
        yield* this.close(next);
        continue;
      }
      if (this.estimated + count + this.joinCost(this.first, next) > size) {
        if (next > this.fresh) {
          let end = next;
          while (end - 1 > this.fresh && this.isHeading(end - 1)) end -= 1;
          yield* this.close(end);
          continue;
        }
        while (this.first < next && this.estimated + count + this.joinCost(this.first, next) > size) {
          this.first += 1;
          this.estimated = this.estimate(this.first, next);
        }
      }
      this.estimated += count + this.joinCost(this.first, next);
      this.next = next + 1;
    }
    return this.slices;
  }

  /** Emits the chunk being built, up to sentence `end`, and starts the next one with its overlap. */
  private *close(end: number): CooperativeTask<void> {
    const emitted = yield* this.emit(this.first, end, this.fresh);
    const total = this.sentences.length;
    this.next = emitted.end;
    this.fresh = this.next;
    this.first = this.next < total && !this.isHeading(this.next) ? this.overlapStart(emitted.first, this.next) : this.next;
    this.estimated = this.estimate(this.first, this.next);
  }

  /**
   * Emits sentences `[first, end)` as one chunk, first dropping carried sentences and then trailing ones while
   * the exact count is over `size` (the per-sentence estimate ignores how tokens merge across sentences).
   * Returns the sentences actually emitted; those after them go to the next chunk.
   */
  private *emit(first: number, end: number, fresh: number): CooperativeTask<{ first: number; end: number }> {
    let start = this.sentences[first]!.start;
    let stop = this.sentences[end - 1]!.end;
    let nTokens = yield* this.tokenizer.countTask(this.text.slice(start, stop));
    while (nTokens > this.options.size && end - first > 1) {
      if (first < fresh) first += 1;
      else end -= 1;
      start = this.sentences[first]!.start;
      stop = this.sentences[end - 1]!.end;
      nTokens = yield* this.tokenizer.countTask(this.text.slice(start, stop));
    }
    this.slices.push({ text: this.text.slice(start, stop), start, end: stop, nTokens });
    return { first, end };
  }

  private *emitLongSentence(index: number): CooperativeTask<void> {
    const sentence = this.sentences[index]!;
    for (const piece of yield* chunkByTokensTask(this.sentenceText(index), this.tokenizer, this.options)) {
      this.slices.push({
        text: piece.text,
        start: sentence.start + piece.start,
        end: sentence.start + piece.end,
        nTokens: piece.nTokens,
      });
    }
  }

  /** First of the trailing sentences of `[first, end)` that fit in `overlap` tokens, leaving at least one out. */
  private overlapStart(first: number, end: number): number {
    let start = end;
    let tokens = 0;
    while (start - 1 > first) {
      const added = tokens + this.counts[start - 1]! + (start < end ? this.joinCost(start - 1, start) : 0);
      if (added > this.options.overlap) break;
      tokens = added;
      start -= 1;
    }
    return start;
  }

  private estimate(first: number, end: number): number {
    let tokens = 0;
    for (let index = first; index < end; index += 1) tokens += this.counts[index]! + this.joinCost(first, index);
    return tokens;
  }

  /**
   * Estimated tokens added by the gap before sentence `index` when it follows sentence `first`..`index - 1`:
   * a single space merges into the next word's token, any other gap (line breaks) is usually one token.
   */
  private joinCost(first: number, index: number): number {
    if (index <= first) return 0;
    const gapStart = this.sentences[index - 1]!.end;
    const gapEnd = this.sentences[index]!.start;
    return gapEnd - gapStart === 1 && this.text.charCodeAt(gapStart) === 0x20 ? 0 : 1;
  }

  private isHeading(index: number): boolean {
    const sentence = this.sentences[index];
    return sentence !== undefined && markdownHeading.test(this.text.slice(sentence.start, sentence.start + 8));
  }

  private sentenceText(index: number): string {
    const sentence = this.sentences[index]!;
    return this.text.slice(sentence.start, sentence.end);
  }
}
