import { KgragError } from '../core/errors.js';
import type { CsrMatrix } from './csr-matrix.js';
import { csrDiagonal } from './csr-operations.js';
import { ResidentCsr } from './wasm/resident-csr.js';

/*
 * Preconditioned conjugate gradient for symmetric positive (semi-)definite sparse systems, several
 * right-hand sides at once, with optional Dirichlet (fixed) entries per column.
 *
 * [Reference]: M. R. Hestenes, E. Stiefel, "Methods of conjugate gradients for solving linear systems",
 * J. Res. NBS 49(6), 1952; Y. Saad, "Iterative Methods for Sparse Linear Systems", 2nd ed., Algorithm 9.1
 * (PCG). The defaults follow graphlearning 1.2.7 `utils.conjgrad` as used by its Laplace learning (and so by
 * AutoKG): x₀ from `initial` (0 by default), absolute tolerance 1e-5 on the preconditioned residual, at
 * most 10⁵ iterations. graphlearning runs plain CG on the symmetrically scaled system M·A·M·y = M·b with
 * M = diag(A)^{-1/2}; that is exactly PCG with the Jacobi preconditioner M², and its residual norm ‖M·r‖
 * is the √(rᵀz) tracked here.
 *
 * Columns are independent problems: each has its own step sizes and stops on its own residual (graphlearning
 * stops all columns together on the norm of the stacked residual). The block is stored row-major so one pass
 * over the matrix serves every column, with the product unrolled into registers for widths 1, 2, 4 and 8
 * (about 2× faster per column than one column at a time); converged columns leave the block, which is
 * repacked to the next narrower width as soon as the live columns fit.
 *
 * Fixed entries (`fixed[i·columns + c] = 1`) impose x[i, c] = initial[i, c]: row i is dropped from column
 * c's system and its known value moves to the right-hand side, i.e. CG runs on A_uu·x_u = b_u − A_uf·x_f
 * without forming A_uu. That happens by masking: the residual and the search direction are kept at 0 on
 * fixed entries, so the full matrix can be shared by columns with different fixed sets.
 */

/** Defaults of {@link conjugateGradient} (graphlearning 1.2.7 `utils.conjgrad`). */
export const conjugateGradientDefaults = {
  /** Stop a column when its preconditioned residual norm √(rᵀ·M⁻¹·r) falls below this. */
  tolerance: 1e-5,
  /** Interpret `tolerance` relative to the initial residual norm instead of absolutely. */
  relative: false,
  /** Iterations at most per column. */
  maxIterations: 100_000,
  /** `jacobi`: divide by the diagonal (1 where it is 0); `none`: plain CG. */
  preconditioner: 'jacobi',
  /** Throw `MATH_CG_NOT_CONVERGED` when a column does not converge (otherwise report it in the result). */
  throwOnNonConvergence: true,
} as const;

/** Options of {@link conjugateGradient}. */
export interface ConjugateGradientOptions {
  /** Number of right-hand sides stored row-major in `rhs` (entry (i, c) at `i·columns + c`). @default 1 */
  columns?: number;
  /** Starting point, same layout as `rhs`; also supplies the values of fixed entries. @default 0 */
  initial?: ArrayLike<number>;
  /** Dirichlet mask, same layout as `rhs` (1 = fixed to `initial`), or length n to fix the same rows in every column. */
  fixed?: Uint8Array;
  /** @default 1e-5 */
  tolerance?: number;
  /** @default false */
  relative?: boolean;
  /** @default 100000 */
  maxIterations?: number;
  /** @default 'jacobi' */
  preconditioner?: 'jacobi' | 'none';
  /** @default true */
  throwOnNonConvergence?: boolean;
}

/** Result of {@link conjugateGradient}. */
export interface ConjugateGradientResult {
  /** Solution, same layout as `rhs`. */
  solution: Float64Array;
  /** Iterations used by each column. */
  iterations: Int32Array;
  /** Final preconditioned residual norm of each column. */
  residualNorms: Float64Array;
  /** Whether every column met its tolerance. */
  converged: boolean;
}

/**
 * Solves A·X = B for a symmetric positive (semi-)definite CSR matrix A and a block B of right-hand sides.
 * A semi-definite A (a graph Laplacian) is fine as long as each column's system is consistent — e.g. every
 * connected component either has a fixed entry or a right-hand side summing to 0 on it.
 */
export function conjugateGradient(matrix: CsrMatrix, rhs: ArrayLike<number>, options: ConjugateGradientOptions = {}): ConjugateGradientResult {
  const n = matrix.rows;
  if (matrix.cols !== n) throw new RangeError(`conjugateGradient: matrix is ${n}×${matrix.cols}, not square`);
  const columns = options.columns ?? 1;
  if (!Number.isInteger(columns) || columns < 1) throw new RangeError(`conjugateGradient: columns ${columns} is not a positive integer`);
  if (rhs.length !== n * columns) throw new RangeError(`conjugateGradient: rhs of length ${rhs.length} for ${n}×${columns}`);
  const initial = options.initial;
  if (initial !== undefined && initial.length !== n * columns) throw new RangeError(`conjugateGradient: initial of length ${initial.length} for ${n}×${columns}`);
  const fixed = options.fixed;
  if (fixed !== undefined && fixed.length !== n * columns && fixed.length !== n) {
    throw new RangeError(`conjugateGradient: fixed mask of length ${fixed.length} for ${n}×${columns}`);
  }
  const sharedMask = fixed !== undefined && fixed.length === n && columns > 1;
  const tolerance = options.tolerance ?? conjugateGradientDefaults.tolerance;
  const relative = options.relative ?? conjugateGradientDefaults.relative;
  const maxIterations = options.maxIterations ?? conjugateGradientDefaults.maxIterations;
  const throwOnNonConvergence = options.throwOnNonConvergence ?? conjugateGradientDefaults.throwOnNonConvergence;

  const inverseDiagonal = new Float64Array(n).fill(1);
  if ((options.preconditioner ?? conjugateGradientDefaults.preconditioner) === 'jacobi') {
    const diagonal = csrDiagonal(matrix);
    for (let row = 0; row < n; row++) {
      const value = diagonal[row] as number;
      if (value > 0) inverseDiagonal[row] = 1 / value;
    }
  }

  const solution = new Float64Array(n * columns);
  const iterations = new Int32Array(columns);
  const residualNorms = new Float64Array(columns);
  if (initial !== undefined) for (let index = 0; index < n * columns; index++) solution[index] = initial[index] as number;

  // The working block holds the columns still iterating, row-major, padded to a width the product kernels
  // are unrolled for (1, 2, 4 or 8); padding slots have active = −1 and stay at zero.
  const width = workingWidth(columns);
  const state: BlockState = {
    width,
    live: columns,
    active: Int32Array.from({ length: width }, (_, slot) => (slot < columns ? slot : -1)),
    x: new Float64Array(n * width),
    r: new Float64Array(n * width),
    p: new Float64Array(n * width),
    q: new Float64Array(n * width),
    mask: fixed === undefined || sharedMask ? fixed : new Uint8Array(n * width),
    rz: new Float64Array(width),
    threshold: new Float64Array(width),
  };

  // r = b − A·x₀ on free entries (0 on fixed ones); z = M⁻¹·r; p = z.
  {
    const { x, r, p, q, mask, rz } = state;
    for (let row = 0; row < n; row++) {
      for (let slot = 0; slot < columns; slot++) {
        x[row * width + slot] = solution[row * columns + slot] as number;
        if (mask !== undefined && !sharedMask) mask[row * width + slot] = (fixed as Uint8Array)[row * columns + slot] as number;
      }
    }
    productBlock(matrix, x, width, q);
    for (let row = 0; row < n; row++) {
      const inverse = inverseDiagonal[row] as number;
      for (let slot = 0; slot < columns; slot++) {
        const index = row * width + slot;
        const isFixed = mask !== undefined && mask[sharedMask ? row : index] === 1;
        const residual = isFixed ? 0 : (rhs[row * columns + slot] as number) - (q[index] as number);
        r[index] = residual;
        const z = residual * inverse;
        p[index] = z;
        rz[slot] = (rz[slot] as number) + residual * z;
      }
    }
    for (let slot = 0; slot < columns; slot++) state.threshold[slot] = relative ? tolerance * Math.sqrt(rz[slot] as number) : tolerance;
  }

  const alpha = new Float64Array(width);
  const beta = new Float64Array(width);
  const pq = new Float64Array(width);
  const rzNext = new Float64Array(width);
  let iteration = 0;
  while (true) {
    retireConverged(state, n, columns, solution, residualNorms);
    if (state.live === 0 || iteration >= maxIterations) break;
    iteration++;
    const { width: w, active, x, r, p, q, mask, rz } = state;
    alpha.fill(0);
    beta.fill(0);
    pq.fill(0);
    rzNext.fill(0);
    productBlock(matrix, p, w, q);
    for (let row = 0; row < n; row++) {
      const base = row * w;
      for (let slot = 0; slot < w; slot++) {
        const index = base + slot;
        if (mask !== undefined && mask[sharedMask ? row : index] === 1) q[index] = 0;
        pq[slot] = (pq[slot] as number) + (p[index] as number) * (q[index] as number);
      }
    }
    for (let slot = 0; slot < w; slot++) {
      if ((active[slot] as number) < 0) continue;
      const curvature = pq[slot] as number;
      if (!(curvature > 0)) {
        // pᵀAp ≤ 0 with p ≠ 0: the matrix is not positive definite on this column's free entries.
        throw notConverged(`conjugate gradient broke down (pᵀAp = ${curvature}) on right-hand side ${active[slot]}: the matrix is not positive definite there`, {
          column: active[slot],
          iteration,
        });
      }
      alpha[slot] = (rz[slot] as number) / curvature;
      iterations[active[slot] as number] = iteration;
    }
    for (let row = 0; row < n; row++) {
      const base = row * w;
      const inverse = inverseDiagonal[row] as number;
      for (let slot = 0; slot < w; slot++) {
        const index = base + slot;
        const step = alpha[slot] as number;
        x[index] = (x[index] as number) + step * (p[index] as number);
        const residual = (r[index] as number) - step * (q[index] as number);
        r[index] = residual;
        rzNext[slot] = (rzNext[slot] as number) + residual * residual * inverse;
      }
    }
    for (let slot = 0; slot < w; slot++) {
      if ((active[slot] as number) < 0) continue;
      beta[slot] = (rzNext[slot] as number) / (rz[slot] as number);
      rz[slot] = rzNext[slot] as number;
    }
    for (let row = 0; row < n; row++) {
      const base = row * w;
      const inverse = inverseDiagonal[row] as number;
      for (let slot = 0; slot < w; slot++) {
        const index = base + slot;
        p[index] = (r[index] as number) * inverse + (beta[slot] as number) * (p[index] as number);
      }
    }
  }
  const converged = state.live === 0;
  if (!converged) {
    for (let slot = 0; slot < state.width; slot++) {
      const original = state.active[slot] as number;
      if (original >= 0) for (let row = 0; row < n; row++) solution[row * columns + original] = state.x[row * state.width + slot] as number;
    }
    if (throwOnNonConvergence) {
      throw notConverged(`conjugate gradient did not converge in ${maxIterations} iterations`, {
        maxIterations,
        tolerance,
        residualNorms: Array.from(residualNorms),
      });
    }
  }
  return { solution, iterations, residualNorms, converged };
}

/** The columns of a block CG still iterating. */
interface BlockState {
  width: number;
  /** Columns still iterating. */
  live: number;
  /** Original column of each slot, −1 for an empty slot. */
  active: Int32Array;
  x: Float64Array;
  r: Float64Array;
  p: Float64Array;
  q: Float64Array;
  mask: Uint8Array | undefined;
  /** rᵀ·M⁻¹·r of each slot. */
  rz: Float64Array;
  threshold: Float64Array;
}

/** The block width for `columns` live columns: the unrolled widths 1, 2, 4, 8, or the count itself above 8. */
function workingWidth(columns: number): number {
  if (columns > 8) return columns;
  let width = 1;
  while (width < columns) width *= 2;
  return width;
}

/**
 * Records residual norms; copies converged columns into the solution and empties their slots; repacks the
 * block into a narrower one when the live columns fit.
 */
function retireConverged(state: BlockState, n: number, columns: number, solution: Float64Array, residualNorms: Float64Array): void {
  const { width, active, x, r, p } = state;
  for (let slot = 0; slot < width; slot++) {
    const original = active[slot] as number;
    if (original < 0) continue;
    const norm = Math.sqrt(Math.max(state.rz[slot] as number, 0));
    residualNorms[original] = norm;
    if (norm > (state.threshold[slot] as number)) continue;
    for (let row = 0; row < n; row++) {
      const index = row * width + slot;
      solution[row * columns + original] = x[index] as number;
      r[index] = 0;
      p[index] = 0;
    }
    active[slot] = -1;
    state.rz[slot] = 0;
    state.live--;
  }
  const nextWidth = workingWidth(state.live);
  if (state.live === 0 || nextWidth >= width) return;
  const keep: number[] = [];
  for (let slot = 0; slot < width; slot++) if ((active[slot] as number) >= 0) keep.push(slot);
  const sharedMask = state.mask !== undefined && state.mask.length === n && width > 1;
  const nextX = new Float64Array(n * nextWidth);
  const nextR = new Float64Array(n * nextWidth);
  const nextP = new Float64Array(n * nextWidth);
  const mask = state.mask;
  const nextMask = mask === undefined || sharedMask ? mask : new Uint8Array(n * nextWidth);
  for (let row = 0; row < n; row++) {
    for (let slot = 0; slot < keep.length; slot++) {
      const from = row * width + (keep[slot] as number);
      const to = row * nextWidth + slot;
      nextX[to] = x[from] as number;
      nextR[to] = r[from] as number;
      nextP[to] = p[from] as number;
      if (nextMask !== undefined && nextMask !== mask) nextMask[to] = (mask as Uint8Array)[from] as number;
    }
  }
  const nextActive = new Int32Array(nextWidth).fill(-1);
  const nextRz = new Float64Array(nextWidth);
  const nextThreshold = new Float64Array(nextWidth);
  for (let slot = 0; slot < keep.length; slot++) {
    const from = keep[slot] as number;
    nextActive[slot] = active[from] as number;
    nextRz[slot] = state.rz[from] as number;
    nextThreshold[slot] = state.threshold[from] as number;
  }
  state.width = nextWidth;
  state.active = nextActive;
  state.x = nextX;
  state.r = nextR;
  state.p = nextP;
  state.q = new Float64Array(n * nextWidth);
  state.mask = nextMask;
  state.rz = nextRz;
  state.threshold = nextThreshold;
}

/** y = A·x for a row-major block of `width` columns, with the widths 1, 2, 4 and 8 unrolled into registers. */
function productBlock(matrix: CsrMatrix, x: Float64Array, width: number, y: Float64Array): void {
  // The same sums in the same order with WebAssembly SIMD, about twice as fast, when the engine has it.
  if (ResidentCsr.of(matrix)?.multiplyBlock(x, width, y)) return;
  const { rowPointers, columnIndices, values } = matrix;
  const rows = matrix.rows;
  if (width === 1) {
    for (let row = 0; row < rows; row++) {
      let sum = 0;
      const end = rowPointers[row + 1] as number;
      for (let entry = rowPointers[row] as number; entry < end; entry++) sum += (values[entry] as number) * (x[columnIndices[entry] as number] as number);
      y[row] = sum;
    }
  } else if (width === 2) {
    for (let row = 0; row < rows; row++) {
      let s0 = 0;
      let s1 = 0;
      const end = rowPointers[row + 1] as number;
      for (let entry = rowPointers[row] as number; entry < end; entry++) {
        const a = values[entry] as number;
        const source = (columnIndices[entry] as number) * 2;
        s0 += a * (x[source] as number);
        s1 += a * (x[source + 1] as number);
      }
      y[row * 2] = s0;
      y[row * 2 + 1] = s1;
    }
  } else if (width === 4) {
    for (let row = 0; row < rows; row++) {
      let s0 = 0;
      let s1 = 0;
      let s2 = 0;
      let s3 = 0;
      const end = rowPointers[row + 1] as number;
      for (let entry = rowPointers[row] as number; entry < end; entry++) {
        const a = values[entry] as number;
        const source = (columnIndices[entry] as number) * 4;
        s0 += a * (x[source] as number);
        s1 += a * (x[source + 1] as number);
        s2 += a * (x[source + 2] as number);
        s3 += a * (x[source + 3] as number);
      }
      const out = row * 4;
      y[out] = s0;
      y[out + 1] = s1;
      y[out + 2] = s2;
      y[out + 3] = s3;
    }
  } else if (width === 8) {
    for (let row = 0; row < rows; row++) {
      let s0 = 0;
      let s1 = 0;
      let s2 = 0;
      let s3 = 0;
      let s4 = 0;
      let s5 = 0;
      let s6 = 0;
      let s7 = 0;
      const end = rowPointers[row + 1] as number;
      for (let entry = rowPointers[row] as number; entry < end; entry++) {
        const a = values[entry] as number;
        const source = (columnIndices[entry] as number) * 8;
        s0 += a * (x[source] as number);
        s1 += a * (x[source + 1] as number);
        s2 += a * (x[source + 2] as number);
        s3 += a * (x[source + 3] as number);
        s4 += a * (x[source + 4] as number);
        s5 += a * (x[source + 5] as number);
        s6 += a * (x[source + 6] as number);
        s7 += a * (x[source + 7] as number);
      }
      const out = row * 8;
      y[out] = s0;
      y[out + 1] = s1;
      y[out + 2] = s2;
      y[out + 3] = s3;
      y[out + 4] = s4;
      y[out + 5] = s5;
      y[out + 6] = s6;
      y[out + 7] = s7;
    }
  } else {
    y.fill(0);
    for (let row = 0; row < rows; row++) {
      const out = row * width;
      const end = rowPointers[row + 1] as number;
      for (let entry = rowPointers[row] as number; entry < end; entry++) {
        const a = values[entry] as number;
        const source = (columnIndices[entry] as number) * width;
        for (let column = 0; column < width; column++) y[out + column] = (y[out + column] as number) + a * (x[source + column] as number);
      }
    }
  }
}

function notConverged(message: string, details: Record<string, unknown>): KgragError {
  return new KgragError(message, {
    code: 'MATH_CG_NOT_CONVERGED',
    category: 'internal',
    hint: 'raise maxIterations or the tolerance; check that the matrix is symmetric positive (semi-)definite and every component has a fixed entry',
    details,
  });
}
