/*
 * Postings as compact blobs, for both backends: ascending row numbers are stored as LEB128 varints of their gaps,
 * one or two bytes per entry instead of eight. Bytes are what a Postgres round trip pays for (a 14 MB blob of a
 * 6,000-row sparse space took longer to send than to write), and what a SQLite file holds.
 */

/** Appends `value` (a whole number below 2^53) as a LEB128 varint; returns the offset after it. */
function writeVarint(buffer: Buffer, offset: number, value: number): number {
  let rest = value;
  while (rest >= 0x80) {
    buffer[offset++] = (rest % 0x80) | 0x80;
    rest = Math.floor(rest / 0x80);
  }
  buffer[offset++] = rest;
  return offset;
}

/** Reads consecutive varints from `blob` at `cursor.offset`, advancing it. */
function readVarint(blob: Uint8Array, cursor: { offset: number }): number {
  let value = 0;
  let scale = 1;
  let byte: number;
  do {
    byte = blob[cursor.offset++] as number;
    value += (byte & 0x7f) * scale;
    scale *= 0x80;
  } while (byte & 0x80);
  return value;
}

/** Full-text postings: per row holding a term, its hid, the term's frequency and the row's length; hids ascending. */
export interface TermPostings {
  hids: Float64Array;
  frequencies: Uint32Array;
  lengths: Uint32Array;
}

/** Count, then per entry the hid's gap to the previous one, the frequency and the length, all varints. */
export function encodeTermPostings(hids: ArrayLike<number>, frequencies: ArrayLike<number>, lengths: ArrayLike<number>): Buffer {
  const count = hids.length;
  const buffer = Buffer.allocUnsafe(8 + count * 24);
  let offset = writeVarint(buffer, 0, count);
  let previous = 0;
  for (let entry = 0; entry < count; entry++) {
    const hid = hids[entry] as number;
    offset = writeVarint(buffer, offset, hid - previous);
    offset = writeVarint(buffer, offset, frequencies[entry] as number);
    offset = writeVarint(buffer, offset, lengths[entry] as number);
    previous = hid;
  }
  return buffer.subarray(0, offset);
}

export function decodeTermPostings(blob: Uint8Array): TermPostings {
  const cursor = { offset: 0 };
  const count = readVarint(blob, cursor);
  const hids = new Float64Array(count);
  const frequencies = new Uint32Array(count);
  const lengths = new Uint32Array(count);
  let previous = 0;
  for (let entry = 0; entry < count; entry++) {
    previous += readVarint(blob, cursor);
    hids[entry] = previous;
    frequencies[entry] = readVarint(blob, cursor);
    lengths[entry] = readVarint(blob, cursor);
  }
  return { hids, frequencies, lengths };
}

/** One coordinate of a sparse vector space: the rows (positions in `ids()` order, ascending) non-zero there, and the values. */
export interface CoordinatePostings {
  rows: Int32Array;
  values: Float32Array;
}

/** The SQLite backend's layout: u32 count, f32 values[count] (little-endian), then the rows as varints of their gaps. */
export function encodeCoordinatePostings(rows: Int32Array, values: Float32Array): Buffer {
  const count = rows.length;
  const buffer = Buffer.allocUnsafe(4 + 4 * count + 5 * count);
  buffer.writeUInt32LE(count, 0);
  buffer.set(new Uint8Array(values.buffer, values.byteOffset, values.byteLength), 4);
  let offset = 4 + 4 * count;
  let previous = -1;
  for (let entry = 0; entry < count; entry++) {
    const row = rows[entry] as number;
    offset = writeVarint(buffer, offset, row - previous - 1);
    previous = row;
  }
  return buffer.subarray(0, offset);
}

/**
 * The postings of a sparse space whose rows are `rows` (row number = position), coordinate by coordinate in
 * ascending order, each encoded; coordinates no row touches are skipped. A counting sort: two passes over the entries.
 */
export function* encodedCoordinatePostings(
  rows: ReadonlyArray<{ columns: ArrayLike<number>; values: ArrayLike<number> }>,
  dimensions: number,
): Generator<{ coordinate: number; blob: Buffer }> {
  const { pointers, ids: positions, values } = transposed(
    rows.map((row, index) => [index, row.columns, row.values] as const),
    dimensions,
  );
  for (let coordinate = 0; coordinate < dimensions; coordinate++) {
    const start = pointers[coordinate] as number;
    const end = pointers[coordinate + 1] as number;
    if (end > start) yield { coordinate, blob: encodeCoordinatePostings(positions.subarray(start, end), values.subarray(start, end)) };
  }
}

export function decodeCoordinatePostings(blob: Buffer): CoordinatePostings {
  const count = blob.readUInt32LE(0);
  const values = new Float32Array(count);
  new Uint8Array(values.buffer).set(blob.subarray(4, 4 + 4 * count));
  const rows = new Int32Array(count);
  const cursor = { offset: 4 + 4 * count };
  let previous = -1;
  for (let entry = 0; entry < count; entry++) {
    previous += readVarint(blob, cursor) + 1;
    rows[entry] = previous;
  }
  return { rows, values };
}

/** Where {@link scatterCoordinatePostings} writes: a row-major matrix, and each posting row's matrix row (-1: none). */
export interface DenseScatterTarget {
  matrix: Float32Array;
  dimensions: number;
  slot: Int32Array;
  /** Posting rows left out (1), when given: rows whose stored entries a tail replaces. */
  skip?: Uint8Array;
}

/**
 * Writes the postings of one coordinate, as {@link encodeCoordinatePostings} stores them, into a dense matrix straight
 * from the bytes: no row and value arrays per coordinate. Filling a matrix from 2Wiki's chunk space made two such
 * arrays for each of its coordinates, and a tail as many again, for values copied once more into the matrix.
 */
export function scatterCoordinatePostings(blob: Uint8Array, coordinate: number, target: DenseScatterTarget): void {
  const count = new DataView(blob.buffer, blob.byteOffset, 4).getUint32(0, true);
  // A view of the values where they are 4-aligned (SQLite's blobs each start a buffer of their own), else a copy.
  const start = blob.byteOffset + 4;
  const values = start % 4 === 0 ? new Float32Array(blob.buffer, start, count) : new Float32Array(blob.slice(4, 4 + 4 * count).buffer);
  const { matrix, dimensions, slot, skip } = target;
  walkPostingRows(blob, count, (row, entry) => {
    if (skip !== undefined && skip[row] === 1) return false;
    const at = row < slot.length ? (slot[row] as number) : -1;
    if (at >= 0) matrix[at * dimensions + coordinate] = values[entry] as number;
    return false;
  });
}

/**
 * Visits the rows of a coordinate's stored postings in order, decoded from the bytes as they are read: `visit(row,
 * entry)`, until a visit returns true. Returns whether one did.
 */
function walkPostingRows(blob: Uint8Array, count: number, visit: (row: number, entry: number) => boolean): boolean {
  const cursor = { offset: 4 + 4 * count };
  let row = -1;
  for (let entry = 0; entry < count; entry++) {
    row += readVarint(blob, cursor) + 1;
    if (visit(row, entry)) return true;
  }
  return false;
}

/**
 * A coordinate's postings with rows appended: `blob` (its stored postings, if any) followed by `rows` and `values`,
 * whose rows all come after the stored ones. The same bytes as encoding the whole posting list at once.
 */
export function appendedCoordinatePostings(blob: Buffer | undefined, rows: Int32Array, values: Float32Array): Buffer {
  if (blob === undefined) return encodeCoordinatePostings(rows, values);
  const all = concatenatedCoordinatePostings(decodeCoordinatePostings(blob), { rows, values });
  return encodeCoordinatePostings(all.rows, all.values);
}

/** One coordinate's postings followed by more of its postings, whose rows all come after the first's. */
export function concatenatedCoordinatePostings(first: CoordinatePostings, then: CoordinatePostings): CoordinatePostings {
  const rows = new Int32Array(first.rows.length + then.rows.length);
  rows.set(first.rows);
  rows.set(then.rows, first.rows.length);
  const values = new Float32Array(rows.length);
  values.set(first.values);
  values.set(then.values, first.values.length);
  return { rows, values };
}

/**
 * The inverse of {@link encodedCoordinatePostings}: the postings of a sparse space (coordinate ascending) transposed
 * back into CSR rows of `rows` rows; since coordinates ascend, each row's entries come out ascending. A counting sort.
 */
export function csrRowsFromCoordinatePostings(
  postings: ReadonlyArray<readonly [number, CoordinatePostings]>,
  rows: number,
): { rowPointers: Int32Array; columnIndices: Int32Array; values: Float32Array } {
  const { pointers: rowPointers, ids: columnIndices, values } = transposed(
    postings.map(([coordinate, posting]) => [coordinate, posting.rows, posting.values] as const),
    rows,
  );
  return { rowPointers, columnIndices, values };
}

/**
 * A counting-sort transposition: each group (its id, the targets its entries go to, their values) becomes entries of
 * those targets, `pointers[t] … pointers[t + 1]` holding target t's (group id, value) pairs in group order.
 */
function transposed(
  groups: ReadonlyArray<readonly [id: number, targets: ArrayLike<number>, values: ArrayLike<number>]>,
  targetCount: number,
): { pointers: Int32Array; ids: Int32Array; values: Float32Array } {
  const pointers = new Int32Array(targetCount + 1);
  for (const [, targets] of groups) for (let entry = 0; entry < targets.length; entry++) pointers[(targets[entry] as number) + 1] = (pointers[(targets[entry] as number) + 1] as number) + 1;
  for (let target = 0; target < targetCount; target++) pointers[target + 1] = (pointers[target + 1] as number) + (pointers[target] as number);
  const ids = new Int32Array(pointers[targetCount] as number);
  const values = new Float32Array(ids.length);
  const cursor = pointers.slice(0, targetCount);
  for (const [id, targets, groupValues] of groups) {
    for (let entry = 0; entry < targets.length; entry++) {
      const target = targets[entry] as number;
      const at = cursor[target] as number;
      ids[at] = id;
      values[at] = groupValues[entry] as number;
      cursor[target] = at + 1;
    }
  }
  return { pointers, ids, values };
}

/**
 * A coordinate's postings after a deletion, from its stored bytes: `blobs` are its stored list and then its appended
 * tail (if any), `positions[row]` a kept row's new position (ascending with the row) or −1 for a deleted row, and
 * `firstChanged` the first row whose position changes or whose stored entry goes. The entries before `firstChanged`
 * are copied as bytes; the others are read as bytes, without decoding the list into arrays, and the list is written
 * once: the same bytes as encoding the kept rows. Undefined when the list stays as it is (one list whose rows all come
 * before `firstChanged`), null when no row of it is kept.
 *
 * `tailPositions`, when given, are the tail's: a stale row (one whose current vector the tail holds, see
 * `SqliteVectorIndex.replaceInTails`) is −1 in `positions`, so its stored entry goes, and kept in `tailPositions`. The
 * tail's entries are then merged in among the stored ones by position, instead of following them, so that a space's
 * stale rows and its deleted rows go in one rewrite of each list.
 */
export function coordinatePostingsAfterDeletion(blobs: readonly Buffer[], positions: Int32Array, firstChanged: number, tailPositions?: Int32Array): Buffer | null | undefined {
  if (blobs.length === 0 || blobs.length > 2) throw new Error('coordinatePostingsAfterDeletion: a list and its tail at most');
  const first = blobs[0] as Buffer;
  const firstCount = first.readUInt32LE(0);
  // The unchanged prefix of the first list: its entry count, the byte where its gaps end, and its last row. Here the
  // gaps are read by direct calls, not through `walkPostingRows`: a deletion walks every entry of every list of a space
  // (6 million for 2Wiki's entities), and a callback per entry cost more than the decoding.
  let prefix = 0;
  let prefixEnd = 4 + 4 * firstCount;
  let prefixRow = -1;
  const cursor = { offset: prefixEnd };
  while (prefix < firstCount) {
    const row = prefixRow + readVarint(first, cursor) + 1;
    if (row >= firstChanged) break;
    prefix++;
    prefixRow = row;
    prefixEnd = cursor.offset;
  }
  if (prefix === firstCount && blobs.length === 1) return undefined;
  let total = -prefix;
  for (const blob of blobs) total += blob.readUInt32LE(0);
  // The kept entries after the prefix: their new rows, and where their values are (index in the list, then the list).
  let rows: Int32Array = new Int32Array(total);
  let sources: Int32Array = new Int32Array(total);
  let entries = 0;
  const listEnds: number[] = [];
  for (let list = 0; list < blobs.length; list++) {
    const blob = blobs[list] as Buffer;
    const count = blob.readUInt32LE(0);
    const listPositions = list === 1 && tailPositions !== undefined ? tailPositions : positions;
    cursor.offset = list === 0 ? prefixEnd : 4 + 4 * count;
    let row = list === 0 ? prefixRow : -1;
    for (let entry = list === 0 ? prefix : 0; entry < count; entry++) {
      row += readVarint(blob, cursor) + 1;
      const position = listPositions[row] as number;
      if (position < 0) continue;
      rows[entries] = position;
      sources[entries++] = entry * 2 + list;
    }
    listEnds.push(entries);
  }
  const split = listEnds[0] as number;
  // A tail holding no stale row's entry follows the stored entries already.
  if (tailPositions !== undefined && split > 0 && split < entries && (rows[split - 1] as number) > (rows[split] as number)) ({ rows, sources } = mergedByRow(rows, sources, split, entries));
  const kept = prefix + entries;
  if (kept === 0) return null;
  const prefixGapBytes = prefixEnd - (4 + 4 * firstCount);
  const buffer = Buffer.allocUnsafe(4 + 4 * kept + prefixGapBytes + 5 * entries);
  buffer.writeUInt32LE(kept, 0);
  first.copy(buffer, 4, 4, 4 + 4 * prefix);
  // The values of consecutive kept entries of one list are copied as one run of bytes.
  for (let entry = 0; entry < entries; ) {
    const source = sources[entry] as number;
    let end = entry + 1;
    while (end < entries && (sources[end] as number) === source + 2 * (end - entry)) end++;
    const at = 4 + 4 * (source >> 1);
    (blobs[source & 1] as Buffer).copy(buffer, 4 + 4 * (prefix + entry), at, at + 4 * (end - entry));
    entry = end;
  }
  let offset = 4 + 4 * kept;
  first.copy(buffer, offset, 4 + 4 * firstCount, prefixEnd);
  offset += prefixGapBytes;
  let previous = prefixRow;
  for (let entry = 0; entry < entries; entry++) {
    const row = rows[entry] as number;
    offset = writeVarint(buffer, offset, row - previous - 1);
    previous = row;
  }
  return buffer.subarray(0, offset);
}

/** Entries `0 … split` and `split … end` of `rows` (each run ascending) and their `sources`, merged in row order. */
function mergedByRow(rows: Int32Array, sources: Int32Array, split: number, end: number): { rows: Int32Array; sources: Int32Array } {
  const mergedRows = new Int32Array(end);
  const mergedSources = new Int32Array(end);
  let left = 0;
  let right = split;
  for (let at = 0; at < end; at++) {
    const takeLeft = right >= end || (left < split && (rows[left] as number) < (rows[right] as number));
    const from = takeLeft ? left++ : right++;
    mergedRows[at] = rows[from] as number;
    mergedSources[at] = sources[from] as number;
  }
  return { rows: mergedRows, sources: mergedSources };
}

/** Whether a coordinate's stored postings hold a row flagged 1 in `rows` (a row past its end is not flagged), read as bytes. */
export function coordinatePostingsHoldAny(blob: Buffer, rows: Uint8Array): boolean {
  return walkPostingRows(blob, blob.readUInt32LE(0), (row) => rows[row] === 1);
}
