import { rankOf, type RankTable } from './rank-table.js';

/**
 * Byte-pair encoding over a {@link RankTable}, token for token what tiktoken and gpt-tokenizer produce: the text is
 * split by the encoding's pre-tokenization pattern, a piece that is a token is one token, and any other piece is
 * merged from its bytes, always joining the adjacent pair of lowest rank (tiktoken's `byte_pair_merge`). Special-token
 * strings are ordinary text. `test/byte-pair-encoder.test.ts` checks every encoding against gpt-tokenizer.
 */
export class BytePairEncoder {
  private readonly textEncoder = new TextEncoder();
  private buffer = new Uint8Array(1024);
  /** Tokens of pieces that needed merging, by piece: text repeats its words, and a long run repeats its pieces. */
  private readonly merged = new Map<string, readonly number[]>();

  constructor(
    private readonly table: RankTable,
    /** The encoding's pre-tokenization pattern (global, unicode). */
    private readonly split: RegExp,
  ) {}

  encode(text: string): number[] {
    const tokens: number[] = [];
    this.forEachToken(text, (rank) => tokens.push(rank));
    return tokens;
  }

  count(text: string): number {
    let count = 0;
    this.forEachToken(text, () => count++);
    return count;
  }

  /** The text of the tokens (bytes that do not form UTF-8 become U+FFFD). */
  decode(tokens: readonly number[]): string {
    const { offsets, pool } = this.table;
    let length = 0;
    for (const token of tokens) length += this.tokenLength(token);
    const bytes = new Uint8Array(length);
    let filled = 0;
    for (const token of tokens) {
      const piece = pool.subarray(offsets[token] as number, offsets[token + 1] as number);
      bytes.set(piece, filled);
      filled += piece.length;
    }
    return new TextDecoder().decode(bytes);
  }

  /**
   * Where each token starts in the text it encodes (UTF-16 offsets, `tokens.length + 1` of them, the last the text's
   * length): the tokens that complete a character all start at it, so a token ending inside a character covers
   * nothing and the one that finishes it covers the whole character. Read from the tokens' UTF-8 bytes: a token
   * starts after the characters completed before its first byte.
   */
  tokenOffsets(tokens: readonly number[]): Int32Array {
    const { offsets: starts, pool } = this.table;
    const offsets = new Int32Array(tokens.length + 1);
    let position = 0;
    let remaining = 0;
    let units = 0;
    for (const [index, token] of tokens.entries()) {
      offsets[index] = position;
      const start = starts[token] as number;
      const end = start + this.tokenLength(token);
      for (let at = start; at < end; at++) {
        const byte = pool[at] as number;
        if ((byte & 0xc0) === 0x80) {
          if (remaining > 0 && --remaining === 0) position += units;
          continue;
        }
        // A lead byte: 0xxxxxxx (1 byte), 110xxxxx (2), 1110xxxx (3), 11110xxx (4, a surrogate pair in UTF-16).
        const length = byte < 0x80 ? 1 : byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : 2;
        units = length === 4 ? 2 : 1;
        remaining = length - 1;
        if (remaining === 0) position += units;
      }
    }
    offsets[tokens.length] = position;
    return offsets;
  }

  private tokenLength(token: number): number {
    const { offsets } = this.table;
    if (!Number.isInteger(token) || token < 0 || token >= offsets.length - 1 || offsets[token + 1] === offsets[token]) {
      throw new RangeError(`token ${token} is not in the byte-pair encoding`);
    }
    return (offsets[token + 1] as number) - (offsets[token] as number);
  }

  private forEachToken(text: string, emit: (rank: number) => void): void {
    for (const match of text.matchAll(this.split)) {
      const piece = match[0];
      if (this.buffer.length < piece.length * 3) this.buffer = new Uint8Array(piece.length * 3);
      const { written } = this.textEncoder.encodeInto(piece, this.buffer);
      const whole = rankOf(this.table, this.buffer, 0, written);
      if (whole >= 0) {
        emit(whole);
        continue;
      }
      let ranks = this.merged.get(piece);
      if (ranks === undefined) {
        const found: number[] = [];
        this.merge(this.buffer.subarray(0, written), (rank) => found.push(rank));
        if (this.merged.size >= mergedPiecesKept) this.merged.clear();
        this.merged.set(piece, (ranks = found));
      }
      for (const rank of ranks) emit(rank);
    }
  }

  /** tiktoken's merge of one piece's bytes: join the adjacent pair of lowest rank until no pair is a token. */
  private merge(piece: Uint8Array, emit: (rank: number) => void): void {
    const pairRank = (starts: readonly number[], index: number): number => {
      const end = starts[index + 2];
      if (end === undefined) return Number.POSITIVE_INFINITY;
      const rank = rankOf(this.table, piece, starts[index] as number, end);
      return rank < 0 ? Number.POSITIVE_INFINITY : rank;
    };
    const starts: number[] = [];
    for (let index = 0; index <= piece.length; index++) starts.push(index);
    const ranks: number[] = [];
    for (let index = 0; index < starts.length; index++) ranks.push(pairRank(starts, index));
    while (starts.length > 1) {
      let lowest = Number.POSITIVE_INFINITY;
      let at = -1;
      for (let index = 0; index < ranks.length - 1; index++) {
        if ((ranks[index] as number) < lowest) {
          lowest = ranks[index] as number;
          at = index;
        }
      }
      if (at < 0) break;
      starts.splice(at + 1, 1);
      ranks.splice(at, 1);
      ranks[at] = pairRank(starts, at);
      if (at > 0) ranks[at - 1] = pairRank(starts, at - 1);
    }
    for (let index = 0; index < starts.length - 1; index++) {
      const rank = rankOf(this.table, piece, starts[index] as number, starts[index + 1] as number);
      if (rank < 0) throw new RangeError('a byte is missing from the byte-pair encoding');
      emit(rank);
    }
  }
}

/** How many merged pieces an encoder remembers before it starts over (bounded memory for a long-lived process). */
const mergedPiecesKept = 50_000;
