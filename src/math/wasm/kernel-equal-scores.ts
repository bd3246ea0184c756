import type { DenseMatrix } from '../dense-matrix.js';
import { wasmSimdAvailable } from './resident-matrix.js';

/**
 * `out[outOffset + r] = ⟨query, row r of matrix⟩` for every row, equal bit for bit to what the SIMD kernel of
 * `dot-kernel-module.ts` gives (`ResidentMatrix` on the `wasm-simd` backend), without copying the matrix into kernel
 * memory: the kernel keeps one float32 accumulator per coordinate mod 4, adds the float32 products of a pair in
 * coordinate order and reduces as (l0 + l1) + (l2 + l3). A product with a zero factor is ±0, which leaves an
 * accumulator as it is (an accumulator is never −0: it starts at +0, and a sum that cancels to zero is +0), so only
 * the query's non-zero coordinates are visited. Worth it for a few sparse queries against a matrix that is not
 * resident yet: loading 6,119 rows of 1,024 dimensions costs more than scoring one short text's vector against them.
 * Float32 arithmetic is exact here through float64: a product of two float32 fits in 48 bits, and a float64 sum of two
 * float32 rounded once more to float32 is the float32 sum.
 */
export function kernelEqualScores(matrix: DenseMatrix, query: Float32Array, queryOffset: number, out: Float32Array, outOffset = 0): void {
  const { rows, cols, data } = matrix;
  const coordinates: number[] = [];
  const weights: number[] = [];
  for (let coordinate = 0; coordinate < cols; coordinate++) {
    const weight = query[queryOffset + coordinate] as number;
    if (weight === 0) continue;
    coordinates.push(coordinate);
    weights.push(weight);
  }
  const count = coordinates.length;
  const lanes = new Float32Array(4);
  for (let row = 0; row < rows; row++) {
    const offset = row * cols;
    lanes.fill(0);
    for (let entry = 0; entry < count; entry++) {
      const coordinate = coordinates[entry] as number;
      const lane = coordinate & 3;
      // The store into the Float32Array rounds the float64 sum to float32, as the kernel's f32x4.add does.
      lanes[lane] = (lanes[lane] as number) + Math.fround((weights[entry] as number) * (data[offset + coordinate] as number));
    }
    out[outOffset + row] = Math.fround(Math.fround((lanes[0] as number) + (lanes[1] as number)) + Math.fround((lanes[2] as number) + (lanes[3] as number)));
  }
}

/** Whether a `ResidentMatrix` loaded now scores with the kernel that {@link kernelEqualScores} equals. */
export function kernelEqualScoresApply(): boolean {
  return wasmSimdAvailable(false);
}
