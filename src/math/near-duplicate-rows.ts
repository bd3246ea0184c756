import { createRandom } from '../core/random.js';

/**
 * Rows of a unit-vector matrix that nearly duplicate a preferred row: AutoKG's `remove_same_text`
 * (wispcarey/AutoKG `autoKG_full.py`), which drops a chunk whose cosine distance to another is below 1e-6 and
 * keeps the one with fewer tokens. Unlike the reference (a 25-nearest-neighbour search and a Python set),
 * the check is exact and the choice deterministic: rows are visited by `length` ascending, then index, and a
 * row is dropped when it is within `maxCosineDistance` of a row already kept.
 *
 * Exact without comparing all pairs: for unit vectors a and b and any unit direction p,
 * |⟨a − b, p⟩| ≤ ‖a − b‖ = √(2 · cosine distance), so only rows whose projections on p lie that close can be
 * duplicates. Rows are sorted by their projection on the normalized mean row (a fixed direction, so the
 * result depends only on the input), and each is compared with the rows in that window. Sparse embeddings
 * project into a narrow band, where the window holds a few per cent of all rows (at 100,000 rows, 10¹¹ multiply-adds
 * of dot products); so a pair must also lie that close on a few more directions (seeded Gaussian, fixed) before its
 * dot product is computed. The bound holds on every direction, so this filter drops no duplicate.
 * @returns `duplicateOf[row]`: the kept row it duplicates, or −1 for a kept row.
 */
/** Directions besides the mean on which a pair must lie within the window before it is compared. */
const filterDirections = 4;

export function nearDuplicateRows(matrix: Float32Array, rows: number, dimensions: number, lengths: ArrayLike<number>, maxCosineDistance: number): Int32Array {
  const duplicateOf = new Int32Array(rows).fill(-1);
  if (rows < 2 || dimensions === 0) return duplicateOf;
  const direction = new Float64Array(dimensions);
  for (let row = 0; row < rows; row++) for (let dim = 0; dim < dimensions; dim++) direction[dim]! += matrix[row * dimensions + dim]!;
  let norm = Math.sqrt(direction.reduce((sum, value) => sum + value * value, 0));
  if (!(norm > 0)) {
    direction.fill(0);
    direction[0] = 1;
    norm = 1;
  }
  const projection = new Float64Array(rows);
  for (let row = 0; row < rows; row++) {
    let sum = 0;
    for (let dim = 0; dim < dimensions; dim++) sum += matrix[row * dimensions + dim]! * direction[dim]!;
    projection[row] = sum / norm;
  }
  const filters = filterProjections(matrix, rows, dimensions);
  const byProjection = Array.from({ length: rows }, (_, row) => row).sort((a, b) => projection[a]! - projection[b]! || a - b);
  // A little slack for Float32 rounding of the stored vectors.
  const window = Math.sqrt(2 * maxCosineDistance) + 1e-6;
  const neighbours = new Map<number, number[]>();
  for (let position = 0; position < rows; position++) {
    const row = byProjection[position]!;
    for (let next = position + 1; next < rows; next++) {
      const other = byProjection[next]!;
      if (projection[other]! - projection[row]! > window) break;
      if (farOnSomeFilter(filters, rows, row, other, window)) continue;
      let dot = 0;
      for (let dim = 0; dim < dimensions; dim++) dot += matrix[row * dimensions + dim]! * matrix[other * dimensions + dim]!;
      if (1 - dot < maxCosineDistance) {
        neighbours.set(row, [...(neighbours.get(row) ?? []), other]);
        neighbours.set(other, [...(neighbours.get(other) ?? []), row]);
      }
    }
  }
  const kept = new Uint8Array(rows);
  const preferred = [...neighbours.keys()].sort((a, b) => lengths[a]! - lengths[b]! || a - b);
  for (const row of preferred) {
    const keeper = (neighbours.get(row) ?? []).filter((other) => kept[other] === 1).sort((a, b) => a - b)[0];
    if (keeper === undefined) kept[row] = 1;
    else duplicateOf[row] = keeper;
  }
  return duplicateOf;
}

/** Projections of every row on {@link filterDirections} seeded unit directions: `[direction · rows + row]`. */
function filterProjections(matrix: Float32Array, rows: number, dimensions: number): Float64Array {
  const random = createRandom(0x5eed);
  const gaussian = (): number => Math.sqrt(-2 * Math.log(random() || 1e-12)) * Math.cos(2 * Math.PI * random());
  const projections = new Float64Array(filterDirections * rows);
  const direction = new Float64Array(dimensions);
  for (let filter = 0; filter < filterDirections; filter++) {
    let norm = 0;
    for (let dim = 0; dim < dimensions; dim++) {
      direction[dim] = gaussian();
      norm += direction[dim]! * direction[dim]!;
    }
    norm = Math.sqrt(norm);
    for (let row = 0; row < rows; row++) {
      let sum = 0;
      for (let dim = 0; dim < dimensions; dim++) sum += matrix[row * dimensions + dim]! * direction[dim]!;
      projections[filter * rows + row] = sum / norm;
    }
  }
  return projections;
}

function farOnSomeFilter(projections: Float64Array, rows: number, row: number, other: number, window: number): boolean {
  for (let filter = 0; filter < filterDirections; filter++) {
    if (Math.abs(projections[filter * rows + row]! - projections[filter * rows + other]!) > window) return true;
  }
  return false;
}
