/*
 * Rows of a float32 matrix grouped by their bytes. A corpus can hold thousands of copies of one chunk (a log of one
 * repeated line, a boilerplate page), and every all-pairs algorithm then pays for each pair of copies although they
 * all score alike; grouping first lets it work on one representative per group. Rows are hashed (FNV-1a over their
 * 32-bit words) and a row joins a group only when its words equal the representative's, so a hash collision never
 * merges two different rows. Equal bytes, not equal values: +0 and −0 (or two NaN payloads) make different groups,
 * which costs only a missed merge, never a wrong one. Linear in the matrix.
 */

/** Identical rows of a matrix; groups are numbered by their first row, so representatives ascend. */
export interface IdenticalRowGroups {
  /** Number of groups (distinct rows). */
  readonly count: number;
  /** Group of every row. */
  readonly groupOf: Int32Array;
  /** First (lowest) row of every group. */
  readonly representatives: Int32Array;
  /** Rows of group g are `members[starts[g] .. starts[g + 1])`, ascending. */
  readonly starts: Int32Array;
  readonly members: Int32Array;
}

const fnvOffset = 0x811c9dc5;
const fnvPrime = 0x01000193;

/** Groups the `rows` rows of `dimensions` values in `matrix` (row-major) that are byte for byte equal. */
export function identicalRowGroups(matrix: Float32Array, rows: number, dimensions: number): IdenticalRowGroups {
  const words = new Uint32Array(matrix.buffer, matrix.byteOffset, rows * dimensions);
  const groupOf = new Int32Array(rows);
  const representativeList = new Int32Array(rows);
  // Groups of one hash chained through `nextWithHash`; keys cut to 30 bits stay small integers in V8's maps.
  const firstWithHash = new Map<number, number>();
  const nextWithHash = new Int32Array(rows).fill(-1);
  let count = 0;
  for (let row = 0; row < rows; row++) {
    const offset = row * dimensions;
    let hash = fnvOffset;
    for (let dim = 0; dim < dimensions; dim++) hash = Math.imul(hash ^ (words[offset + dim] as number), fnvPrime);
    const key = hash & 0x3fffffff;
    let group = firstWithHash.get(key) ?? -1;
    let last = -1;
    while (group !== -1 && !equalRows(words, (representativeList[group] as number) * dimensions, offset, dimensions)) {
      last = group;
      group = nextWithHash[group] as number;
    }
    if (group === -1) {
      group = count++;
      representativeList[group] = row;
      if (last === -1) firstWithHash.set(key, group);
      else nextWithHash[last] = group;
    }
    groupOf[row] = group;
  }
  const starts = new Int32Array(count + 1);
  for (let row = 0; row < rows; row++) starts[(groupOf[row] as number) + 1]! += 1;
  for (let group = 0; group < count; group++) starts[group + 1]! += starts[group] as number;
  const members = new Int32Array(rows);
  const cursor = starts.slice(0, count);
  for (let row = 0; row < rows; row++) {
    const group = groupOf[row] as number;
    members[cursor[group] as number] = row;
    cursor[group]! += 1;
  }
  return { count, groupOf, representatives: representativeList.slice(0, count), starts, members };
}

function equalRows(words: Uint32Array, first: number, second: number, dimensions: number): boolean {
  for (let dim = 0; dim < dimensions; dim++) if (words[first + dim] !== words[second + dim]) return false;
  return true;
}
