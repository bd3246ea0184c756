import { KgragError } from '../../core/errors.js';
import type { DenseMatrix } from '../dense-matrix.js';
import { dotAt } from '../dense-vectors.js';
import { compiledWasmModule } from './compiled-wasm-module.js';
import { buildDotKernelModule } from './dot-kernel-module.js';

/*
 * A matrix kept resident in WebAssembly memory for repeated scoring with the SIMD kernel of
 * `dot-kernel-module.ts` (plain JavaScript when the engine cannot validate SIMD bytes).
 *
 * Memory layout (bytes): [ rows × strideBytes of padded float32 rows | scratch ]. Rows are zero-padded to a
 * multiple of four floats so the kernel needs no scalar tail. The scratch area receives copied-in query
 * vectors, index lists and the output scores; an ordinary memory grows it on demand. A shared memory
 * (for worker threads) is sized once, and every worker owns a fixed scratch slot in it, so the matrix
 * itself is never copied.
 */

/** Which implementation scores: the WebAssembly SIMD kernel or the JavaScript loop. */
export type DotBackend = 'wasm-simd' | 'js';

/** Options of {@link ResidentMatrix.load}. */
export interface ResidentMatrixOptions {
  /** `auto` picks `wasm-simd` when the engine validates the kernel. @default 'auto' */
  backend?: DotBackend | 'auto';
}

/** A resident matrix in shared memory, as posted to worker threads; open it with {@link ResidentMatrix.attach}. */
export interface SharedResidentMatrix {
  readonly backend: DotBackend;
  readonly rows: number;
  readonly cols: number;
  /** Floats per padded row. */
  readonly stride: number;
  /** A shared `WebAssembly.Memory` for `wasm-simd`, a SharedArrayBuffer for `js`. */
  readonly storage: WebAssembly.Memory | SharedArrayBuffer;
  /** Scratch bytes available to each slot. */
  readonly slotBytes: number;
  readonly slots: number;
}

interface DotKernelExports {
  dot_tile(queriesPtr: number, queryCount: number, rowsPtr: number, rowCount: number, strideBytes: number, outPtr: number): void;
  dot_gather(matrixPtr: number, strideBytes: number, queryIndicesPtr: number, queryCount: number, rowIndicesPtr: number, rowCount: number, outPtr: number): void;
  sum_rows(rowsPtr: number, strideBytes: number, groupsPtr: number, rowCount: number, sumsPtr: number): void;
}

/** Rows per `sum_rows` call, which bounds the scratch for their group numbers. */
const sumRowsBlock = 4096;

/** Scratch bytes {@link ResidentMatrix.addRowsToGroupSums} needs for `groups` groups of rows with `cols` columns. */
export function groupSumsScratchBytes(cols: number, groups: number): number {
  return groups * paddedStride(cols) * 8 + sumRowsBlock * 4;
}

const pageBytes = 65536;
const buildKernel = (): Uint8Array<ArrayBuffer> => buildDotKernelModule({ sharedMemory: false });
const buildSharedKernel = (): Uint8Array<ArrayBuffer> => buildDotKernelModule({ sharedMemory: true });

/** The compiled kernel for ordinary or shared memory, or null when the engine rejects its bytes. */
function compiledKernel(sharedMemory: boolean): WebAssembly.Module | null {
  return compiledWasmModule(sharedMemory ? buildSharedKernel : buildKernel);
}

/** True when this engine runs the WebAssembly SIMD kernel (Node ≥ 16.4 does). */
export function wasmSimdAvailable(sharedMemory = false): boolean {
  return compiledKernel(sharedMemory) !== null;
}

function resolveBackend(requested: DotBackend | 'auto' | undefined, sharedMemory: boolean): DotBackend {
  const available = wasmSimdAvailable(sharedMemory);
  if (requested === 'wasm-simd' && !available) {
    throw new KgragError('This JavaScript engine cannot run the WebAssembly SIMD kernel', {
      code: 'MATH_SIMD_UNAVAILABLE',
      category: 'config',
      hint: "Use backend 'auto' or 'js'",
    });
  }
  return requested === 'js' || !available ? 'js' : 'wasm-simd';
}

const align16 = (bytes: number): number => Math.ceil(bytes / 16) * 16;

/** Floats per padded row: a positive multiple of 4. */
export function paddedStride(cols: number): number {
  return Math.max(4, Math.ceil(cols / 4) * 4);
}

function copyPadded(matrix: DenseMatrix, target: Float32Array, stride: number): void {
  if (stride === matrix.cols) {
    target.set(matrix.data.subarray(0, matrix.rows * matrix.cols));
    return;
  }
  for (let row = 0; row < matrix.rows; row++) target.set(matrix.data.subarray(row * matrix.cols, (row + 1) * matrix.cols), row * stride);
}

/**
 * `out[q · rowCount + r] = ⟨queries[queryStart + q·queryStride …], rows[rowStart + r·rowStride …]⟩`, the
 * JavaScript path of both contiguous scoring methods. It runs at about 1.5 GFLOP/s in V8 for a dimension
 * known only at run time (2.4 when a constant dimension lets V8 specialize the loop).
 */
function scoreBlockJs(
  out: Float32Array,
  queries: Float32Array,
  queryStart: number,
  queryStride: number,
  queryCount: number,
  rows: Float32Array,
  rowStart: number,
  rowStride: number,
  rowCount: number,
  cols: number,
): void {
  for (let query = 0; query < queryCount; query++) {
    const queryOffset = queryStart + query * queryStride;
    for (let row = 0; row < rowCount; row++) out[query * rowCount + row] = dotAt(queries, queryOffset, rows, rowStart + row * rowStride, cols);
  }
}

/**
 * The JavaScript path of {@link ResidentMatrix.addRowsToGroupSums}; unrolled by four, which V8 runs about 2.5 times
 * faster than the plain loop.
 */
function addRowsToGroupSumsJs(rows: Float32Array, stride: number, cols: number, groups: Int32Array, sums: Float64Array, rowStart: number, rowEnd: number): void {
  const unrolled = cols - (cols % 4);
  for (let row = rowStart; row < rowEnd; row++) {
    const sumOffset = (groups[row] as number) * cols;
    const rowOffset = row * stride;
    let col = 0;
    for (; col < unrolled; col += 4) {
      const sum = sumOffset + col;
      const at = rowOffset + col;
      sums[sum] = (sums[sum] as number) + (rows[at] as number);
      sums[sum + 1] = (sums[sum + 1] as number) + (rows[at + 1] as number);
      sums[sum + 2] = (sums[sum + 2] as number) + (rows[at + 2] as number);
      sums[sum + 3] = (sums[sum + 3] as number) + (rows[at + 3] as number);
    }
    for (; col < cols; col++) sums[sumOffset + col] = (sums[sumOffset + col] as number) + (rows[rowOffset + col] as number);
  }
}

/**
 * A matrix held in kernel memory and scored against query vectors or against its own rows. The scoring
 * methods return `out[q · rowCount + r]` as a view into scratch memory that stays valid until the next
 * call on this object: copy what you keep.
 */
export class ResidentMatrix {
  readonly backend: DotBackend;
  readonly rows: number;
  readonly cols: number;
  /** Floats per padded row. */
  readonly stride: number;
  private readonly memory: WebAssembly.Memory | undefined;
  private readonly kernel: DotKernelExports | undefined;
  /** The padded rows, for the JavaScript backend. */
  private readonly jsRows: Float32Array;
  private jsScratch: Float32Array;
  private readonly scratchStart: number;
  /** Undefined when the scratch area can grow. */
  private readonly scratchLimit: number | undefined;

  private constructor(fields: {
    backend: DotBackend;
    rows: number;
    cols: number;
    stride: number;
    memory?: WebAssembly.Memory;
    jsRows?: Float32Array;
    scratchStart: number;
    scratchLimit?: number;
  }) {
    this.backend = fields.backend;
    this.rows = fields.rows;
    this.cols = fields.cols;
    this.stride = fields.stride;
    this.memory = fields.memory;
    this.jsRows = fields.jsRows ?? new Float32Array(0);
    this.jsScratch = new Float32Array(0);
    this.scratchStart = fields.scratchStart;
    this.scratchLimit = fields.scratchLimit;
    const memory = fields.memory;
    const module = memory && fields.backend === 'wasm-simd' ? compiledKernel(memory.buffer instanceof SharedArrayBuffer) : null;
    this.kernel = memory && module ? (new WebAssembly.Instance(module, { env: { memory } }).exports as unknown as DotKernelExports) : undefined;
  }

  /** Copies `matrix` into a new, growable kernel memory. */
  static load(matrix: DenseMatrix, options: ResidentMatrixOptions = {}): ResidentMatrix {
    const backend = resolveBackend(options.backend, false);
    const stride = paddedStride(matrix.cols);
    const matrixBytes = matrix.rows * stride * 4;
    if (backend === 'js') {
      const jsRows = new Float32Array(matrix.rows * stride);
      copyPadded(matrix, jsRows, stride);
      return new ResidentMatrix({ backend, rows: matrix.rows, cols: matrix.cols, stride, jsRows, scratchStart: 0 });
    }
    const memory = new WebAssembly.Memory({ initial: Math.ceil((matrixBytes + pageBytes) / pageBytes) });
    copyPadded(matrix, new Float32Array(memory.buffer, 0, matrix.rows * stride), stride);
    return new ResidentMatrix({ backend, rows: matrix.rows, cols: matrix.cols, stride, memory, scratchStart: matrixBytes });
  }

  /**
   * Copies `matrix` into shared memory with `slots` fixed scratch areas of `slotBytes` each, one per
   * worker thread; post the result to the workers and open it there with {@link ResidentMatrix.attach}.
   */
  static loadShared(matrix: DenseMatrix, slots: number, slotBytes: number, options: ResidentMatrixOptions = {}): SharedResidentMatrix {
    const backend = resolveBackend(options.backend, true);
    const stride = paddedStride(matrix.cols);
    const alignedSlotBytes = align16(slotBytes);
    if (backend === 'js') {
      const storage = new SharedArrayBuffer(matrix.rows * stride * 4);
      copyPadded(matrix, new Float32Array(storage), stride);
      return { backend, rows: matrix.rows, cols: matrix.cols, stride, storage, slotBytes: alignedSlotBytes, slots };
    }
    const totalBytes = matrix.rows * stride * 4 + slots * alignedSlotBytes;
    const pages = Math.max(1, Math.ceil(totalBytes / pageBytes));
    const storage = new WebAssembly.Memory({ initial: pages, maximum: pages, shared: true });
    copyPadded(matrix, new Float32Array(storage.buffer, 0, matrix.rows * stride), stride);
    return { backend, rows: matrix.rows, cols: matrix.cols, stride, storage, slotBytes: alignedSlotBytes, slots };
  }

  /** Opens a shared resident matrix with scratch slot `slot` (each thread must use its own slot). */
  static attach(shared: SharedResidentMatrix, slot: number): ResidentMatrix {
    if (!Number.isInteger(slot) || slot < 0 || slot >= shared.slots) throw new RangeError(`ResidentMatrix.attach: slot ${slot} outside 0..${shared.slots - 1}`);
    const base = { backend: shared.backend, rows: shared.rows, cols: shared.cols, stride: shared.stride };
    if (shared.storage instanceof SharedArrayBuffer) {
      return new ResidentMatrix({ ...base, jsRows: new Float32Array(shared.storage), scratchStart: 0 });
    }
    const scratchStart = shared.rows * shared.stride * 4 + slot * shared.slotBytes;
    return new ResidentMatrix({ ...base, memory: shared.storage, scratchStart, scratchLimit: scratchStart + shared.slotBytes });
  }

  /** Reserves `bytes` of scratch (16-byte aligned) and returns its first address. */
  private scratch(bytes: number): number {
    const memory = this.memory as WebAssembly.Memory;
    const end = this.scratchStart + bytes;
    if (this.scratchLimit !== undefined) {
      if (end > this.scratchLimit) throw new RangeError(`ResidentMatrix: ${bytes} scratch bytes exceed this slot's ${this.scratchLimit - this.scratchStart}`);
    } else if (end > memory.buffer.byteLength) {
      memory.grow(Math.ceil((end - memory.buffer.byteLength) / pageBytes));
    }
    return this.scratchStart;
  }

  private jsOutput(length: number): Float32Array {
    if (this.jsScratch.length < length) this.jsScratch = new Float32Array(Math.max(length, this.jsScratch.length * 2));
    return this.jsScratch.subarray(0, length);
  }

  private checkRange(start: number, end: number, what: string): void {
    if (!(Number.isInteger(start) && Number.isInteger(end) && start >= 0 && start <= end && end <= this.rows)) {
      throw new RangeError(`ResidentMatrix: ${what} range ${start}..${end} outside 0..${this.rows}`);
    }
  }

  /**
   * Scores `queryCount` external vectors (row-major, `cols` floats each) against rows `rowStart ..
   * rowEnd`: `out[q · (rowEnd − rowStart) + r] = ⟨query q, row rowStart + r⟩`.
   */
  scoreQueries(queries: Float32Array, queryCount: number, rowStart = 0, rowEnd = this.rows): Float32Array {
    this.checkRange(rowStart, rowEnd, 'row');
    if (queries.length < queryCount * this.cols) throw new RangeError(`ResidentMatrix.scoreQueries: ${queries.length} floats for ${queryCount} queries of ${this.cols}`);
    const rowCount = rowEnd - rowStart;
    const { cols, stride } = this;
    if (!this.kernel) {
      const out = this.jsOutput(queryCount * rowCount);
      scoreBlockJs(out, queries, 0, cols, queryCount, this.jsRows, rowStart * stride, stride, rowCount, cols);
      return out;
    }
    const queriesBytes = queryCount * stride * 4;
    const start = this.scratch(queriesBytes + queryCount * rowCount * 4);
    const buffer = (this.memory as WebAssembly.Memory).buffer;
    const queryArea = new Float32Array(buffer, start, queryCount * stride);
    if (stride === cols) queryArea.set(queries.subarray(0, queryCount * cols));
    else {
      queryArea.fill(0);
      for (let query = 0; query < queryCount; query++) queryArea.set(queries.subarray(query * cols, (query + 1) * cols), query * stride);
    }
    const outPtr = start + queriesBytes;
    this.kernel.dot_tile(start, queryCount, rowStart * stride * 4, rowCount, stride * 4, outPtr);
    return new Float32Array(buffer, outPtr, queryCount * rowCount);
  }

  /** Scores resident rows `queryStart .. queryEnd` against rows `rowStart .. rowEnd` (no copying in). */
  scoreRowBlock(queryStart: number, queryEnd: number, rowStart: number, rowEnd: number): Float32Array {
    this.checkRange(queryStart, queryEnd, 'query');
    this.checkRange(rowStart, rowEnd, 'row');
    const queryCount = queryEnd - queryStart;
    const rowCount = rowEnd - rowStart;
    const { cols, stride } = this;
    if (!this.kernel) {
      const out = this.jsOutput(queryCount * rowCount);
      scoreBlockJs(out, this.jsRows, queryStart * stride, stride, queryCount, this.jsRows, rowStart * stride, stride, rowCount, cols);
      return out;
    }
    const outPtr = this.scratch(queryCount * rowCount * 4);
    this.kernel.dot_tile(queryStart * stride * 4, queryCount, rowStart * stride * 4, rowCount, stride * 4, outPtr);
    return new Float32Array((this.memory as WebAssembly.Memory).buffer, outPtr, queryCount * rowCount);
  }

  /**
   * Scores resident rows picked by index: `out[q · rowCount + r] = ⟨row queryIndices[q], row
   * rowIndices[r]⟩` for the first `queryCount` / `rowCount` entries of the lists.
   */
  scoreRowSets(queryIndices: Int32Array, queryCount: number, rowIndices: Int32Array, rowCount: number): Float32Array {
    const { cols, stride } = this;
    if (!this.kernel) {
      const out = this.jsOutput(queryCount * rowCount);
      for (let query = 0; query < queryCount; query++) {
        const queryOffset = (queryIndices[query] as number) * stride;
        for (let row = 0; row < rowCount; row++) out[query * rowCount + row] = dotAt(this.jsRows, queryOffset, this.jsRows, (rowIndices[row] as number) * stride, cols);
      }
      return out;
    }
    for (let position = 0; position < queryCount; position++) this.checkIndex(queryIndices[position]);
    for (let position = 0; position < rowCount; position++) this.checkIndex(rowIndices[position]);
    const queryListBytes = align16(queryCount * 4);
    const rowListBytes = align16(rowCount * 4);
    const start = this.scratch(queryListBytes + rowListBytes + queryCount * rowCount * 4);
    const buffer = (this.memory as WebAssembly.Memory).buffer;
    new Int32Array(buffer, start, queryCount).set(queryIndices.subarray(0, queryCount));
    new Int32Array(buffer, start + queryListBytes, rowCount).set(rowIndices.subarray(0, rowCount));
    const outPtr = start + queryListBytes + rowListBytes;
    this.kernel.dot_gather(0, stride * 4, start, queryCount, start + queryListBytes, rowCount, outPtr);
    return new Float32Array(buffer, outPtr, queryCount * rowCount);
  }

  /**
   * Adds every row to its group's float64 sum, rows in order: `sums[g · cols + c] += row[c]` with g =
   * `groups[row]` < `groupCount`, for rows `rowStart … rowEnd − 1`. Both backends perform the same additions
   * in the same order, so the sums are the same bit for bit.
   */
  addRowsToGroupSums(groups: Int32Array, groupCount: number, sums: Float64Array, rowStart = 0, rowEnd = this.rows): void {
    this.checkRange(rowStart, rowEnd, 'row');
    const { cols, stride } = this;
    if (sums.length < groupCount * cols) throw new RangeError(`ResidentMatrix.addRowsToGroupSums: ${sums.length} sums for ${groupCount} groups of ${cols}`);
    for (let row = rowStart; row < rowEnd; row++) {
      const group = groups[row];
      if (group === undefined || !(group >= 0 && group < groupCount)) throw new RangeError(`ResidentMatrix.addRowsToGroupSums: row ${row} has group ${group}, outside 0..${groupCount - 1}`);
    }
    if (!this.kernel) {
      addRowsToGroupSumsJs(this.jsRows, stride, cols, groups, sums, rowStart, rowEnd);
      return;
    }
    const sumsBytes = groupCount * stride * 8;
    const start = this.scratch(sumsBytes + Math.min(sumRowsBlock, rowEnd - rowStart) * 4);
    const buffer = (this.memory as WebAssembly.Memory).buffer;
    const paddedSums = new Float64Array(buffer, start, groupCount * stride);
    paddedSums.fill(0);
    for (let group = 0; group < groupCount; group++) paddedSums.set(sums.subarray(group * cols, (group + 1) * cols), group * stride);
    const groupsPtr = start + sumsBytes;
    for (let blockStart = rowStart; blockStart < rowEnd; blockStart += sumRowsBlock) {
      const blockEnd = Math.min(rowEnd, blockStart + sumRowsBlock);
      new Int32Array(buffer, groupsPtr, blockEnd - blockStart).set(groups.subarray(blockStart, blockEnd));
      this.kernel.sum_rows(blockStart * stride * 4, stride * 4, groupsPtr, blockEnd - blockStart, start);
    }
    for (let group = 0; group < groupCount; group++) sums.set(paddedSums.subarray(group * stride, group * stride + cols), group * cols);
  }

  /** Out-of-range indices would read other memory in the kernel instead of failing, so they are checked here. */
  private checkIndex(index: number | undefined): void {
    if (index === undefined || !(index >= 0 && index < this.rows)) throw new RangeError(`ResidentMatrix.scoreRowSets: row index ${index} outside 0..${this.rows - 1}`);
  }
}
