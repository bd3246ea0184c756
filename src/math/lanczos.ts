import { appendAll } from '../core/append-all.js';
import { KgragError } from '../core/errors.js';
import { createRandom } from '../core/random.js';
import type { Random } from '../core/random.js';
import { VectorArena } from './wasm/vector-arena.js';

/*
 * Largest eigenpairs of a symmetric operator by thick-restart Lanczos with full reorthogonalization and
 * locking.
 *
 * [Reference]: C. Lanczos, "An iteration method for the solution of the eigenvalue problem of linear
 * differential and integral operators", J. Res. NBS 45, 1950; K. Wu, H. Simon, "Thick-restart Lanczos method
 * for large symmetric eigenvalue problems", SIAM J. Matrix Anal. Appl. 22(2), 2000; G. H. Golub,
 * C. F. Van Loan, "Matrix Computations", 4th ed., §10.1–10.3 (full reorthogonalization, Ritz residual
 * β·|y_m|). The small projected eigenproblem is solved by Householder tridiagonalization and implicit QL with
 * Wilkinson shifts (EISPACK tred2/tql2; Wilkinson & Reinsch, "Handbook for Automatic Computation II", 1971).
 *
 * A run grows an orthonormal basis V from a seeded random start vector: each new vector is A applied to the
 * last one, orthogonalized twice (classical Gram–Schmidt, "twice is enough") against V, the locked
 * eigenvectors and the caller's deflation space; the Gram–Schmidt coefficients give the projected matrix
 * H = VᵀAV. When V reaches `krylovDimension` vectors, Ritz pairs of H whose residual is below `tolerance` are
 * locked from the top down (stopping at the first unconverged one, so no eigenvalue is skipped) and the basis
 * restarts thick: it keeps the next best Ritz vectors plus the current residual direction, which preserves the
 * Krylov structure, so clustered eigenvalues (the top of a clustered graph's spectrum) keep converging.
 *
 * A single Krylov space holds one vector per eigenspace (in exact arithmetic), so once `count` pairs are
 * locked, one more run from a fresh random vector checks that nothing above the smallest locked eigenvalue was
 * missed — that is how repeated eigenvalues (e.g. two identical graph components) are found with multiplicity.
 * That run ends at a restart where its top Ritz pair has converged, or where the Ritz value plus its residual
 * is below the smallest locked eigenvalue: an eigenvalue lies within the residual of a Ritz value, so the one
 * the run's top Ritz value approaches is not a missed one.
 *
 * Defaults: Krylov dimension max(2·count + 20, 40) capped at the free dimension, tolerance 1e-9 on the
 * residual ‖A·y − θ·y‖, 200 thick restarts, seed 0x1a2c2.
 */

/** Defaults of {@link lanczosEigenpairs}. */
export const lanczosDefaults = {
  /** Absolute tolerance on the Ritz residual ‖A·y − θ·y‖ (scale it with the operator's norm). */
  tolerance: 1e-9,
  /** Thick restarts at most, over all runs, before `MATH_LANCZOS_NOT_CONVERGED`. */
  maxRestarts: 200,
  /** Seed of the start vectors. */
  seed: 0x1a2c2,
} as const;

/** y ← A·x for a symmetric operator A (y is overwritten). */
export type SymmetricOperator = (x: Float64Array, y: Float64Array) => void;

/** Options of {@link lanczosEigenpairs}. */
export interface LanczosOptions {
  /** Orthonormal vectors to project out: eigenpairs of (I − VVᵀ)·A·(I − VVᵀ) on their complement are computed. */
  deflation?: readonly Float64Array[];
  /**
   * A cheaper way to project out a structured subspace (e.g. one indicator per graph component): applies
   * I − VVᵀ in place. `projectedRank` must then give the dimension of that subspace.
   */
  project?: (vector: Float64Array) => void;
  /** Dimension of the subspace `project` removes. @default 0 */
  projectedRank?: number;
  /** Basis vectors before a thick restart. @default max(2·count + 20, 40), capped at the free dimension */
  krylovDimension?: number;
  /** @default 1e-9 */
  tolerance?: number;
  /** @default 200 */
  maxRestarts?: number;
  /** @default 0x1a2c2 */
  seed?: number;
  /** Random generator for start vectors instead of one made from `seed`. */
  random?: Random;
}

/** Result of {@link lanczosEigenpairs}. */
export interface LanczosResult {
  /** The `count` largest eigenvalues, descending. */
  values: Float64Array;
  /** Matching unit eigenvectors; each has its largest-magnitude entry positive (ties: first). */
  vectors: Float64Array[];
  /** Operator applications used. */
  operatorApplications: number;
  /** Thick restarts used. */
  restarts: number;
}

/** The `count` algebraically largest eigenpairs of a symmetric n×n operator. */
export function lanczosEigenpairs(apply: SymmetricOperator, n: number, count: number, options: LanczosOptions = {}): LanczosResult {
  const project = options.project;
  const free = n - (options.deflation?.length ?? 0) - (options.projectedRank ?? 0);
  if (!Number.isInteger(count) || count < 0 || count > free) {
    throw new RangeError(`lanczosEigenpairs: cannot find ${count} eigenpairs in a space of dimension ${free}`);
  }
  const tolerance = options.tolerance ?? lanczosDefaults.tolerance;
  const maxRestarts = options.maxRestarts ?? lanczosDefaults.maxRestarts;
  const random = options.random ?? createRandom(options.seed ?? lanczosDefaults.seed);
  const krylovDimension = Math.max(2, options.krylovDimension ?? Math.max(2 * count + 20, 40));
  // At most: the deflation space, count + 1 locked, a full basis and the Ritz vectors it restarts from, the next vector.
  const arena = new VectorArena(n, (options.deflation?.length ?? 0) + count + 2 * krylovDimension + 4);
  const deflation = (options.deflation ?? []).map((vector) => arena.copy(vector));

  const lockedValues: number[] = [];
  const lockedVectors: Float64Array[] = [];
  let operatorApplications = 0;
  let restarts = 0;
  const work = new Float64Array(n);

  runs: while (count > 0) {
    const available = free - lockedVectors.length;
    if (available <= 0) break;
    const needed = count - lockedVectors.length;
    // With all wanted pairs locked, one more run checks that nothing above the smallest one was missed.
    const checking = needed === 0;
    let wanted = checking ? 1 : needed;
    const m = Math.min(krylovDimension, available);
    const keep = Math.min(m - 1, wanted + Math.ceil((m - wanted) / 2));
    const projectors = [...deflation, ...lockedVectors];

    let basis: Float64Array[] = [];
    const projected = new Float64Array(m * m);
    const coefficients = new Float64Array(projectors.length + count + m);
    let next = startVector(arena, random, projectors, project);
    const endRun = (): void => {
      if (!basis.includes(next)) arena.release(next);
      for (const vector of basis) arena.release(vector);
    };
    for (;;) {
      // Grow the basis to m vectors (or until the wanted pairs converge, checked every 5 steps).
      let beta = 0;
      let exhausted = false;
      let eigen: DenseEigen | undefined;
      while (basis.length < m) {
        const vector = next;
        const j = basis.length;
        basis.push(vector);
        apply(vector, work);
        operatorApplications++;
        const w = arena.copy(work);
        const against = projectors.concat(basis);
        for (let pass = 0; pass < 2; pass++) {
          project?.(w);
          subtractProjections(arena, w, against, coefficients);
          for (let i = 0; i <= j; i++) projected[i * m + j] = (projected[i * m + j] as number) + (coefficients[projectors.length + i] as number);
        }
        for (let i = 0; i < j; i++) projected[j * m + i] = projected[i * m + j] as number;
        beta = normalize(w);
        if (beta <= 1e-12 * Math.max(1, Math.abs(projected[j * m + j] as number))) {
          arena.release(w);
          exhausted = true;
          break;
        }
        next = w;
        const size = basis.length;
        if (size < m && size >= wanted && size % 5 === 0) {
          eigen = denseSymmetricEigen(projected, m, size);
          if (topConverged(eigen, size, beta, wanted, tolerance)) break;
          eigen = undefined;
        }
      }
      const size = basis.length;
      eigen ??= denseSymmetricEigen(projected, m, size);
      const residualOf = (pair: number): number => (exhausted ? 0 : Math.abs(beta * (eigen.vectors[(size - 1) * size + (eigen.order[pair] as number)] as number)));
      const ritzVector = (pair: number): Float64Array => combine(arena, basis, eigen.vectors, size, eigen.order[pair] as number);

      // Lock the converged prefix of the Ritz pairs, largest first.
      let lockedNow = 0;
      let pair = 0;
      for (; pair < size; pair++) {
        const value = eigen.values[eigen.order[pair] as number] as number;
        if (residualOf(pair) > tolerance) break;
        const full = lockedValues.length >= count;
        if (full && value <= (lockedValues[count - 1] as number) + tolerance) break;
        insertLocked(lockedValues, lockedVectors, value, ritzVector(pair));
        if (lockedVectors.length > count) {
          lockedValues.pop();
          arena.release(lockedVectors.pop() as Float64Array);
        }
        lockedNow++;
      }
      if (checking) {
        // Nothing new: the top of the rest converged, or lies below the smallest locked value by more than its
        // residual (an eigenvalue lies within the residual of every Ritz value), or the space is used up. Not
        // converging it further saves the check most of its work when the next eigenvalue is close (on a large
        // graph it took a third of all operator applications).
        const top = eigen.values[eigen.order[0] as number] as number;
        const settled = residualOf(0) <= tolerance || top + residualOf(0) < (lockedValues[count - 1] as number);
        if (lockedNow === 0 && (exhausted || settled)) {
          endRun();
          break runs;
        }
        if (lockedNow > 0) {
          endRun();
          continue runs;
        }
      } else if (lockedVectors.length >= count || exhausted) {
        endRun();
        continue runs;
      }

      // Thick restart: keep the next best Ritz vectors; `next` (the residual direction) continues the basis.
      restarts++;
      if (restarts > maxRestarts) {
        throw new KgragError(`Lanczos found ${lockedVectors.length} of ${count} eigenpairs in ${restarts - 1} restarts`, {
          code: 'MATH_LANCZOS_NOT_CONVERGED',
          category: 'internal',
          hint: 'raise maxRestarts, krylovDimension or the tolerance',
          details: { found: lockedVectors.length, wanted: count, restarts: restarts - 1, tolerance },
        });
      }
      if (lockedNow > 0) {
        appendAll(projectors, lockedVectors.filter((vector) => !projectors.includes(vector)));
        wanted = count - lockedVectors.length;
      }
      const kept: Float64Array[] = [];
      projected.fill(0);
      for (let index = 0; index < keep && pair + index < size; index++) {
        projected[index * m + index] = eigen.values[eigen.order[pair + index] as number] as number;
        kept.push(ritzVector(pair + index));
      }
      for (const vector of basis) arena.release(vector);
      basis = kept;
    }
  }
  // Copied out of the arena, whose memory is then free to go.
  const vectors = lockedVectors.map((vector) => Float64Array.from(vector));
  for (const vector of vectors) fixSign(vector);
  return { values: Float64Array.from(lockedValues), vectors, operatorApplications, restarts };
}

/** A random unit vector orthogonal to the projected-out space (a coordinate vector if the random one falls in it). */
function startVector(arena: VectorArena, random: Random, projectors: readonly Float64Array[], project: ((vector: Float64Array) => void) | undefined): Float64Array {
  const n = arena.n;
  const vector = arena.alloc();
  for (let index = 0; index < n; index++) vector[index] = random() - 0.5;
  const coefficients = new Float64Array(projectors.length);
  const clean = (): number => {
    for (let pass = 0; pass < 2; pass++) {
      project?.(vector);
      subtractProjections(arena, vector, projectors, coefficients);
    }
    return normalize(vector);
  };
  if (clean() > 1e-10) return vector;
  for (let index = 0; index < n; index++) {
    vector.fill(0);
    vector[index] = 1;
    if (clean() > 1e-10) return vector;
  }
  throw new RangeError('lanczosEigenpairs: the projected-out space is the whole space');
}

/** Whether the `wanted` largest Ritz pairs have residual β·|y_last| within tolerance. */
function topConverged(eigen: DenseEigen, size: number, beta: number, wanted: number, tolerance: number): boolean {
  for (let pair = 0; pair < wanted; pair++) {
    if (Math.abs(beta * (eigen.vectors[(size - 1) * size + (eigen.order[pair] as number)] as number)) > tolerance) return false;
  }
  return true;
}

/** Classical Gram–Schmidt: w ← w − Σ_i (w·u_i)·u_i for orthonormal u_i, with `coefficients[i]` = w·u_i taken against the incoming w. */
function subtractProjections(arena: VectorArena, w: Float64Array, vectors: readonly Float64Array[], coefficients: Float64Array): void {
  arena.dots(w, vectors, coefficients);
  arena.addCombination(w, vectors, coefficients, -1, vectors.length);
}

/** Σ_s coefficients[s, column]·basis[s], normalized: a Ritz vector. */
function combine(arena: VectorArena, basis: readonly Float64Array[], coefficients: Float64Array, size: number, column: number): Float64Array {
  const result = arena.alloc();
  const weights = new Float64Array(size);
  for (let step = 0; step < size; step++) weights[step] = coefficients[step * size + column] as number;
  arena.addCombination(result, basis, weights, 1, size);
  normalize(result);
  return result;
}

/** Scales to unit length in place; returns the previous norm (0 leaves the vector unchanged). */
function normalize(vector: Float64Array): number {
  let sum = 0;
  for (let index = 0; index < vector.length; index++) sum += (vector[index] as number) * (vector[index] as number);
  const norm = Math.sqrt(sum);
  if (norm > 0) for (let index = 0; index < vector.length; index++) vector[index] = (vector[index] as number) / norm;
  return norm;
}

function insertLocked(values: number[], vectors: Float64Array[], value: number, vector: Float64Array): void {
  let position = values.length;
  while (position > 0 && (values[position - 1] as number) < value) position--;
  values.splice(position, 0, value);
  vectors.splice(position, 0, vector);
}

/** Makes the largest-magnitude entry positive (the first one on ties), so results do not depend on the start vector's sign. */
function fixSign(vector: Float64Array): void {
  let best = 0;
  let bestIndex = 0;
  for (let index = 0; index < vector.length; index++) {
    const magnitude = Math.abs(vector[index] as number);
    if (magnitude > best + 1e-12) {
      best = magnitude;
      bestIndex = index;
    }
  }
  if ((vector[bestIndex] as number) < 0) for (let index = 0; index < vector.length; index++) vector[index] = -(vector[index] as number);
}

/** Eigen-decomposition of a small symmetric matrix. */
export interface DenseEigen {
  /** Eigenvalues, in the solver's order. */
  values: Float64Array;
  /** Eigenvectors as the columns of an m×m row-major matrix: component i of vector k is `vectors[i·m + k]`. */
  vectors: Float64Array;
  /** Column indices sorted by eigenvalue, descending (ties: lower index). */
  order: Int32Array;
}

/**
 * All eigenpairs of the leading size×size block of a symmetric matrix stored row-major with row stride
 * `stride`: Householder tridiagonalization (tred2) then implicit QL (tql2). O(size³).
 */
export function denseSymmetricEigen(matrix: Float64Array, stride: number, size: number): DenseEigen {
  const m = size;
  const a = new Float64Array(m * m);
  for (let i = 0; i < m; i++) for (let j = 0; j < m; j++) a[i * m + j] = matrix[i * stride + j] as number;
  const d = new Float64Array(m);
  const e = new Float64Array(m);
  for (let i = m - 1; i > 0; i--) {
    const l = i - 1;
    let h = 0;
    let scale = 0;
    if (l > 0) {
      for (let k = 0; k <= l; k++) scale += Math.abs(a[i * m + k] as number);
      if (scale === 0) {
        e[i] = a[i * m + l] as number;
      } else {
        for (let k = 0; k <= l; k++) {
          a[i * m + k] = (a[i * m + k] as number) / scale;
          h += (a[i * m + k] as number) ** 2;
        }
        let f = a[i * m + l] as number;
        let g = f >= 0 ? -Math.sqrt(h) : Math.sqrt(h);
        e[i] = scale * g;
        h -= f * g;
        a[i * m + l] = f - g;
        f = 0;
        for (let j = 0; j <= l; j++) {
          a[j * m + i] = (a[i * m + j] as number) / h;
          g = 0;
          for (let k = 0; k <= j; k++) g += (a[j * m + k] as number) * (a[i * m + k] as number);
          for (let k = j + 1; k <= l; k++) g += (a[k * m + j] as number) * (a[i * m + k] as number);
          e[j] = g / h;
          f += (e[j] as number) * (a[i * m + j] as number);
        }
        const hh = f / (h + h);
        for (let j = 0; j <= l; j++) {
          f = a[i * m + j] as number;
          g = (e[j] as number) - hh * f;
          e[j] = g;
          for (let k = 0; k <= j; k++) a[j * m + k] = (a[j * m + k] as number) - (f * (e[k] as number) + g * (a[i * m + k] as number));
        }
      }
    } else {
      e[i] = a[i * m + l] as number;
    }
    d[i] = h;
  }
  d[0] = 0;
  e[0] = 0;
  // Accumulate the Householder transformations into a.
  for (let i = 0; i < m; i++) {
    const l = i - 1;
    if (d[i] !== 0) {
      for (let j = 0; j <= l; j++) {
        let g = 0;
        for (let k = 0; k <= l; k++) g += (a[i * m + k] as number) * (a[k * m + j] as number);
        for (let k = 0; k <= l; k++) a[k * m + j] = (a[k * m + j] as number) - g * (a[k * m + i] as number);
      }
    }
    d[i] = a[i * m + i] as number;
    a[i * m + i] = 1;
    for (let j = 0; j <= l; j++) {
      a[j * m + i] = 0;
      a[i * m + j] = 0;
    }
  }
  for (let i = 1; i < m; i++) e[i - 1] = e[i] as number;
  if (m > 0) e[m - 1] = 0;
  return tql2(d, e, a, m);
}

/**
 * All eigenpairs of the symmetric tridiagonal matrix with the given diagonal (length m) and off-diagonal
 * (length m − 1), by implicit QL with Wilkinson shifts (EISPACK tql2). O(m²) per sweep, O(m³) in all.
 */
export function symmetricTridiagonalEigen(diagonal: Float64Array, offDiagonal: Float64Array): DenseEigen {
  const m = diagonal.length;
  const d = Float64Array.from(diagonal);
  const e = new Float64Array(m);
  for (let index = 0; index < m - 1; index++) e[index] = offDiagonal[index] as number;
  const z = new Float64Array(m * m);
  for (let index = 0; index < m; index++) z[index * m + index] = 1;
  return tql2(d, e, z, m);
}

/** Implicit QL on the tridiagonal (d, e) with e[i] coupling i and i + 1, rotations accumulated into z. */
function tql2(d: Float64Array, e: Float64Array, z: Float64Array, m: number): DenseEigen {
  for (let l = 0; l < m; l++) {
    let iterations = 0;
    let split: number;
    do {
      for (split = l; split < m - 1; split++) {
        const scale = Math.abs(d[split] as number) + Math.abs(d[split + 1] as number);
        if (Math.abs(e[split] as number) <= Number.EPSILON * scale) break;
      }
      if (split !== l) {
        if (iterations++ === 60) {
          throw new KgragError('the tridiagonal QL iteration did not converge', { code: 'MATH_LANCZOS_NOT_CONVERGED', category: 'internal' });
        }
        let g = ((d[l + 1] as number) - (d[l] as number)) / (2 * (e[l] as number));
        let r = Math.hypot(g, 1);
        g = (d[split] as number) - (d[l] as number) + (e[l] as number) / (g + (g >= 0 ? r : -r));
        let s = 1;
        let c = 1;
        let p = 0;
        let i: number;
        let underflow = false;
        for (i = split - 1; i >= l; i--) {
          let f = s * (e[i] as number);
          const b = c * (e[i] as number);
          r = Math.hypot(f, g);
          e[i + 1] = r;
          if (r === 0) {
            d[i + 1] = (d[i + 1] as number) - p;
            e[split] = 0;
            underflow = true;
            break;
          }
          s = f / r;
          c = g / r;
          g = (d[i + 1] as number) - p;
          r = ((d[i] as number) - g) * s + 2 * c * b;
          p = s * r;
          d[i + 1] = g + p;
          g = c * r - b;
          for (let k = 0; k < m; k++) {
            f = z[k * m + i + 1] as number;
            z[k * m + i + 1] = s * (z[k * m + i] as number) + c * f;
            z[k * m + i] = c * (z[k * m + i] as number) - s * f;
          }
        }
        if (underflow) continue;
        d[l] = (d[l] as number) - p;
        e[l] = g;
        e[split] = 0;
      }
    } while (split !== l);
  }
  const order = Int32Array.from({ length: m }, (_, index) => index).sort((a, b) => (d[b] as number) - (d[a] as number) || a - b);
  return { values: d, vectors: z, order };
}
