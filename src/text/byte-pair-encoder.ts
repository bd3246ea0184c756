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
      bytes.set(pool.subarray(offsets[token] as number, offsets[token + 1] as number), filled);
      filled += this.tokenLength(token);
    }
    return new TextDecoder().decode(bytes);
  }

  /**
   * Where each token starts in the text it encodes (UTF-16 offsets, `tokens.length + 1` of them, the last the text's
   * length): the tokens that complete a character all start at it, so a token ending inside a character covers
   * nothing and the one that finishes it covers the whole character.
   */
  tokenOffsets(tokens: readonly number[]): Int32Array {
    const { offsets: starts, pool } = this.table;
    const offsets = new Int32Array(tokens.length + 1);
    const decoder = new TextDecoder();
    let pending = '';
    let position = 0;
    let assigned = 0;
    for (const [index, token] of tokens.entries()) {
      const start = starts[token] as number;
      pending += decoder.decode(pool.subarray(start, start + this.tokenLength(token)), { stream: true });
      if (pending.length === 0 || isHighSurrogate(pending.charCodeAt(pending.length - 1))) continue;
      offsets.fill(position, assigned, index + 1);
      assigned = index + 1;
      position += pending.length;
      pending = '';
    }
    if (pending.length > 0) {
      offsets.fill(position, assigned, tokens.length);
      assigned = tokens.length;
      position += pending.length;
    }
    offsets.fill(position, assigned);
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
      if (whole >= 0) emit(whole);
      else this.merge(this.buffer.subarray(0, written), emit);
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

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}
