import { finishTask, type CooperativeTask } from '../core/cooperative-task.js';
import { createRandom } from '../core/random.js';
import { identicalRowGroups } from './identical-row-groups.js';

/**
 * Rows of a unit-vector matrix that nearly duplicate a preferred row: AutoKG's `remove_same_text`
 * (wispcarey/AutoKG `autoKG_full.py`), which drops a chunk whose cosine distance to another is below 1e-6 and
 * keeps the one with fewer tokens. Unlike the reference (a 25-nearest-neighbour search and a Python set),
 * the check is exact and the choice deterministic: rows are visited by `length` ascending, then index, and a
 * row is dropped for the lowest-numbered row within `maxCosineDistance` of it that was kept before it.
 *
 * Identical rows first: rows with the same bytes are grouped (math/identical-row-groups.ts) and only one row per
 * group is compared with the others, since every copy has the same neighbours. A log of one repeated line is
 * thousands of copies of one chunk; compared pair by pair they cost n² dot products (and, with the neighbour lists
 * this code kept before, n³ copying: 85 s for 2,000 chunks).
 *
 * Exact without comparing all pairs of distinct rows: for unit vectors a and b and any unit direction p,
 * |⟨a − b, p⟩| ≤ ‖a − b‖ = √(2 · cosine distance), so only rows whose projections on p lie that close can be
 * duplicates. Distinct rows are sorted by their projection on their normalized mean (a fixed direction, so the
 * result depends only on the input), and each is compared with the rows in that window. Sparse embeddings
 * project into a narrow band, where the window holds a few per cent of all rows (at 100,000 rows, 10¹¹ multiply-adds
 * of dot products); so a pair must also lie that close on a few more directions (seeded Gaussian, fixed) before its
 * dot product is computed. The bound holds on every direction, so this filter drops no duplicate.
 *
 * The choice then visits rows in order and asks each neighbouring group (and its own, when copies are within the
 * distance of each other: a zero row is not) for its lowest kept row: work proportional to the rows times their
 * neighbouring groups, which for copies of one vector is linear.
 */

/** Directions besides the mean on which a pair must lie within the window before it is compared. */
const filterDirections = 4;
/** Pairs visited or scored between two pauses of the task. */
const workPerPause = 1 << 14;
/** Distinct rows searched between two pauses at most, so that progress moves on sparse windows too. */
const rowsPerPause = 1024;

/** Work done by {@link nearDuplicateRows}, added to the counts given (tests check that it stays near-linear). */
export interface NearDuplicateRowsWork {
  /** Pairs of distinct rows visited in a projection window. */
  pairsVisited: number;
  /** Pairs of distinct rows whose dot product was computed. */
  pairsScored: number;
  /** Groups asked for their lowest kept row while choosing the rows to keep. */
  neighbourLookups: number;
}

/** Options of {@link nearDuplicateRows}. */
export interface NearDuplicateRowsOptions {
  /** Counts of the work done, incremented. */
  work?: NearDuplicateRowsWork;
  /** Called at each pause with the distinct rows whose window was searched, out of all distinct rows. */
  onProgress?: (done: number, total: number) => void;
}

/**
 * {@link nearDuplicateRowsTask} run to its end.
 * @returns `duplicateOf[row]`: the kept row it duplicates, or −1 for a kept row.
 */
export function nearDuplicateRows(
  matrix: Float32Array,
  rows: number,
  dimensions: number,
  lengths: ArrayLike<number>,
  maxCosineDistance: number,
  options: NearDuplicateRowsOptions = {},
): Int32Array {
  return finishTask(nearDuplicateRowsTask(matrix, rows, dimensions, lengths, maxCosineDistance, options));
}

/**
 * The near-duplicate rows (see the description above) as a cooperative task that pauses every few thousand pairs,
 * so a caller can run it in turns of the event loop and stop it (`runTask`).
 */
export function* nearDuplicateRowsTask(
  matrix: Float32Array,
  rows: number,
  dimensions: number,
  lengths: ArrayLike<number>,
  maxCosineDistance: number,
  options: NearDuplicateRowsOptions = {},
): CooperativeTask<Int32Array> {
  const duplicateOf = new Int32Array(rows).fill(-1);
  if (rows < 2 || dimensions === 0) return duplicateOf;
  const work = options.work;
  const groups = identicalRowGroups(matrix, rows, dimensions);
  const { count, representatives, starts, groupOf } = groups;
  yield;

  const dot = (first: number, second: number): number => {
    let sum = 0;
    for (let dim = 0; dim < dimensions; dim++) sum += matrix[first * dimensions + dim]! * matrix[second * dimensions + dim]!;
    return sum;
  };
  // Copies of a row are one another's neighbours when the row is within the distance of itself (not a zero row).
  const copiesNear = new Uint8Array(count);
  for (let group = 0; group < count; group++) {
    const representative = representatives[group] as number;
    if ((starts[group + 1] as number) - (starts[group] as number) > 1 && 1 - dot(representative, representative) < maxCosineDistance) copiesNear[group] = 1;
  }

  const edges = yield* nearGroupPairs(matrix, dimensions, representatives, maxCosineDistance, dot, options);
  const adjacency = groupAdjacency(count, edges);

  // Rows with a neighbour, visited by length, then index.
  const visited: number[] = [];
  for (let row = 0; row < rows; row++) {
    const group = groupOf[row] as number;
    if (copiesNear[group] === 1 || (adjacency.starts[group + 1] as number) > (adjacency.starts[group] as number)) visited.push(row);
  }
  visited.sort((a, b) => (lengths[a] as number) - (lengths[b] as number) || a - b);
  yield;
  const none = rows;
  const lowestKept = new Int32Array(count).fill(none);
  let sincePause = 0;
  for (const row of visited) {
    const group = groupOf[row] as number;
    let keeper = copiesNear[group] === 1 ? (lowestKept[group] as number) : none;
    const first = adjacency.starts[group] as number;
    const end = adjacency.starts[group + 1] as number;
    for (let entry = first; entry < end; entry++) keeper = Math.min(keeper, lowestKept[adjacency.neighbours[entry] as number] as number);
    const lookups = end - first + (copiesNear[group] === 1 ? 1 : 0);
    if (work) work.neighbourLookups += lookups;
    if (keeper === none) lowestKept[group] = Math.min(lowestKept[group] as number, row);
    else duplicateOf[row] = keeper;
    sincePause += lookups + 1;
    if (sincePause >= workPerPause) {
      sincePause = 0;
      yield;
    }
  }
  return duplicateOf;
}

/** Pairs of groups (by their representatives) within `maxCosineDistance`, as two parallel lists. */
function* nearGroupPairs(
  matrix: Float32Array,
  dimensions: number,
  representatives: Int32Array,
  maxCosineDistance: number,
  dot: (first: number, second: number) => number,
  options: NearDuplicateRowsOptions,
): Generator<void, { first: number[]; second: number[] }, undefined> {
  const work = options.work;
  const count = representatives.length;
  const first: number[] = [];
  const second: number[] = [];
  if (count < 2) return { first, second };
  const direction = new Float64Array(dimensions);
  for (let group = 0; group < count; group++) {
    const offset = (representatives[group] as number) * dimensions;
    for (let dim = 0; dim < dimensions; dim++) direction[dim]! += matrix[offset + dim]!;
  }
  let norm = Math.sqrt(direction.reduce((sum, value) => sum + value * value, 0));
  if (!(norm > 0)) {
    direction.fill(0);
    direction[0] = 1;
    norm = 1;
  }
  const projection = new Float64Array(count);
  for (let group = 0; group < count; group++) {
    const offset = (representatives[group] as number) * dimensions;
    let sum = 0;
    for (let dim = 0; dim < dimensions; dim++) sum += matrix[offset + dim]! * direction[dim]!;
    projection[group] = sum / norm;
  }
  const filters = filterProjections(matrix, dimensions, representatives);
  const byProjection = Int32Array.from({ length: count }, (_, group) => group).sort((a, b) => projection[a]! - projection[b]! || a - b);
  yield;
  // A little slack for Float32 rounding of the stored vectors.
  const window = Math.sqrt(2 * maxCosineDistance) + 1e-6;
  let sincePause = 0;
  for (let position = 0; position < count; position++) {
    const group = byProjection[position]!;
    for (let next = position + 1; next < count; next++) {
      const other = byProjection[next]!;
      if (projection[other]! - projection[group]! > window) break;
      sincePause++;
      if (work) work.pairsVisited++;
      if (farOnSomeFilter(filters, count, group, other, window)) continue;
      if (work) work.pairsScored++;
      if (1 - dot(representatives[group] as number, representatives[other] as number) < maxCosineDistance) {
        first.push(group);
        second.push(other);
      }
    }
    if (++sincePause >= workPerPause || position % rowsPerPause === rowsPerPause - 1) {
      sincePause = 0;
      options.onProgress?.(position + 1, count);
      yield;
    }
  }
  options.onProgress?.(count, count);
  return { first, second };
}

/** The symmetric adjacency of groups from a list of pairs: group g's neighbours are `neighbours[starts[g] .. starts[g + 1])`. */
function groupAdjacency(count: number, edges: { first: number[]; second: number[] }): { starts: Int32Array; neighbours: Int32Array } {
  const starts = new Int32Array(count + 1);
  for (const group of edges.first) starts[group + 1]! += 1;
  for (const group of edges.second) starts[group + 1]! += 1;
  for (let group = 0; group < count; group++) starts[group + 1]! += starts[group] as number;
  const neighbours = new Int32Array(starts[count] as number);
  const cursor = starts.slice(0, count);
  edges.first.forEach((group, pair) => {
    const other = edges.second[pair] as number;
    neighbours[cursor[group]!++] = other;
    neighbours[cursor[other]!++] = group;
  });
  return { starts, neighbours };
}

/** Projections of every representative on {@link filterDirections} seeded unit directions: `[direction · count + group]`. */
function filterProjections(matrix: Float32Array, dimensions: number, representatives: Int32Array): Float64Array {
  const random = createRandom(0x5eed);
  const gaussian = (): number => Math.sqrt(-2 * Math.log(random() || 1e-12)) * Math.cos(2 * Math.PI * random());
  const count = representatives.length;
  const projections = new Float64Array(filterDirections * count);
  const direction = new Float64Array(dimensions);
  for (let filter = 0; filter < filterDirections; filter++) {
    let norm = 0;
    for (let dim = 0; dim < dimensions; dim++) {
      direction[dim] = gaussian();
      norm += direction[dim]! * direction[dim]!;
    }
    norm = Math.sqrt(norm);
    for (let group = 0; group < count; group++) {
      const offset = (representatives[group] as number) * dimensions;
      let sum = 0;
      for (let dim = 0; dim < dimensions; dim++) sum += matrix[offset + dim]! * direction[dim]!;
      projections[filter * count + group] = sum / norm;
    }
  }
  return projections;
}

function farOnSomeFilter(projections: Float64Array, count: number, group: number, other: number, window: number): boolean {
  for (let filter = 0; filter < filterDirections; filter++) {
    if (Math.abs(projections[filter * count + group]! - projections[filter * count + other]!) > window) return true;
  }
  return false;
}
