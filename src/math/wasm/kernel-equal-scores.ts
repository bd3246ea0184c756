import type { DenseMatrix } from '../dense-matrix.js';
import { wasmSimdAvailable } from './resident-matrix.js';

/**
 * `out[q · rows + r] = ⟨query q, row r of matrix⟩` for `count` queries stored one after the other in `queries` (`cols`
 * floats each) and every row, equal bit for bit to what the SIMD kernel of `dot-kernel-module.ts` gives
 * (`ResidentMatrix` on the `wasm-simd` backend), without copying the matrix into kernel memory: the kernel keeps one
 * float32 accumulator per coordinate mod 4, adds the float32 products of a pair in coordinate order and reduces as
 * (l0 + l1) + (l2 + l3). A product with a zero factor is ±0, which leaves an accumulator as it is (an accumulator is
 * never −0: it starts at +0, and a sum that cancels to zero is +0), so only the queries' non-zero coordinates are
 * visited. Worth it for a few sparse queries against a matrix that is not resident yet: loading 6,119 rows of 1,024
 * dimensions costs more than scoring a short text's vector against them. Float32 arithmetic is exact here through
 * float64: a product of two float32 fits in 48 bits, and a float64 sum of two float32 rounded to float32 is the float32
 * sum.
 */
export function kernelEqualScores(matrix: DenseMatrix, queries: Float32Array, count: number, out: Float32Array): void {
  const { rows, cols, data } = matrix;
  if (queries.length < count * cols) throw new RangeError(`kernelEqualScores: ${queries.length} floats for ${count} queries of ${cols}`);
  // Every query's non-zero coordinates and weights, one list after the other.
  const starts = new Int32Array(count + 1);
  const coordinates: number[] = [];
  const weights: number[] = [];
  for (let query = 0; query < count; query++) {
    for (let coordinate = 0; coordinate < cols; coordinate++) {
      const weight = queries[query * cols + coordinate] as number;
      if (weight === 0) continue;
      coordinates.push(coordinate);
      weights.push(weight);
    }
    starts[query + 1] = coordinates.length;
  }
  const coordinateList = Int32Array.from(coordinates);
  const weightList = Float32Array.from(weights);
  const lanes = new Float32Array(4);
  // Row by row, so that a row is read from memory once for all queries.
  for (let row = 0; row < rows; row++) {
    const offset = row * cols;
    for (let query = 0; query < count; query++) {
      lanes.fill(0);
      for (let entry = starts[query] as number; entry < (starts[query + 1] as number); entry++) {
        const coordinate = coordinateList[entry] as number;
        const lane = coordinate & 3;
        // The store into the Float32Array rounds the float64 sum to float32, as the kernel's f32x4.add does.
        lanes[lane] = (lanes[lane] as number) + Math.fround((weightList[entry] as number) * (data[offset + coordinate] as number));
      }
      out[query * rows + row] = Math.fround(Math.fround((lanes[0] as number) + (lanes[1] as number)) + Math.fround((lanes[2] as number) + (lanes[3] as number)));
    }
  }
}

/** Whether a `ResidentMatrix` loaded now scores with the kernel that {@link kernelEqualScores} equals. */
export function kernelEqualScoresApply(): boolean {
  return wasmSimdAvailable(false);
}
