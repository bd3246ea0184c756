import { encodeWasmModule, valueType } from './wasm-encoder.js';
import type { ValueType } from './wasm-encoder.js';
import { InstructionWriter } from './wasm-instructions.js';
import { rowSumsFunction } from './row-sums-kernel.js';

/*
 * The dot-product kernel: a block of query vectors against a block of matrix rows, `out[q·rowCount + r] =
 * ⟨query q, row r⟩`, with WebAssembly 128-bit SIMD (f32x4). Vectors are float32, 16-byte aligned and
 * zero-padded to `strideBytes` (a multiple of 16), so there is no scalar tail.
 *
 * Register blocking as in GEMM micro-kernels (Goto & van de Geijn, "Anatomy of High-Performance Matrix
 * Multiplication", ACM TOMS 2008): a micro-kernel keeps Q×R f32x4 accumulators, loading each of its R row
 * chunks once for Q queries. Every (query, row) pair has exactly one accumulator, summed over chunks in
 * order and reduced as (l0 + l1) + (l2 + l3); all micro-kernel shapes therefore give bit-identical results,
 * and ⟨x, y⟩ = ⟨y, x⟩ exactly, which the kNN graph relies on for symmetric, deterministic ties.
 *
 * Exports:
 *   dot_tile(queriesPtr, queryCount, rowsPtr, rowCount, strideBytes, outPtr)       contiguous vectors
 *   dot_gather(matrixPtr, strideBytes, queryIndicesPtr, queryCount,
 *              rowIndicesPtr, rowCount, outPtr)                                       rows picked by i32 index lists
 * and, from row-sums-kernel.ts, `sum_rows` (per-group row sums) for the same resident rows.
 */

/**
 * Micro-kernel shape: Q queries × R rows per step, and R for a lone query. Measured on this project's
 * Xeon (V8 11.3), 256 × 256 tiles of 384-d: 4 × 2 31.5 GFLOP/s, 2 × 4 31.2, 3 × 3 26.8, 4 × 3 26.1 (register
 * spills), 4 × 1 22.7; one query against 20,000 rows: 1 × 4 12–13 GFLOP/s.
 */
export const dotKernelShape = { queries: 4, rows: 2, singleQueryRows: 4 } as const;

/** Options of {@link buildDotKernelModule}. */
export interface DotKernelModuleOptions {
  /** Import a shared memory (for worker threads) instead of an ordinary one. */
  sharedMemory: boolean;
  /** Micro-kernel shape; defaults to {@link dotKernelShape}. */
  shape?: { queries: number; rows: number; singleQueryRows: number };
}

/** The largest memory a shared import may have: 65,536 pages of 64 KiB (4 GiB). */
export const maximumMemoryPages = 65536;

interface LocalLayout {
  /** First query of the current micro-kernel. */
  query: number;
  /** First row of the current micro-kernel. */
  row: number;
  /** Byte offset of the current f32x4 chunk within a vector. */
  chunkOffset: number;
  outRow: number;
  queryBases: number[];
  rowBases: number[];
  rowVectors: number[];
  queryVector: number;
  accumulators: number[][];
}

/** How a micro-kernel finds the address of its query / row number `lane`; each leaves an i32 on the stack. */
interface Addressing {
  query(writer: InstructionWriter, lane: number): void;
  row(writer: InstructionWriter, lane: number): void;
}

interface KernelParameters {
  queryCount: number;
  rowCount: number;
  strideBytes: number;
  outPtr: number;
}

function allocateLocals(firstLocal: number, shape: { queries: number; rows: number; singleQueryRows: number }): { layout: LocalLayout; types: ValueType[] } {
  const types: ValueType[] = [];
  let next = firstLocal;
  const take = (type: ValueType): number => {
    types.push(type);
    return next++;
  };
  const maxQueries = shape.queries;
  const maxRows = Math.max(shape.rows, shape.singleQueryRows);
  const query = take(valueType.i32);
  const row = take(valueType.i32);
  const chunkOffset = take(valueType.i32);
  const outRow = take(valueType.i32);
  const queryBases = Array.from({ length: maxQueries }, () => take(valueType.i32));
  const rowBases = Array.from({ length: maxRows }, () => take(valueType.i32));
  const rowVectors = Array.from({ length: maxRows }, () => take(valueType.v128));
  const queryVector = take(valueType.v128);
  const accumulators = Array.from({ length: maxQueries }, () => Array.from({ length: maxRows }, () => take(valueType.v128)));
  return { layout: { query, row, chunkOffset, outRow, queryBases, rowBases, rowVectors, queryVector, accumulators }, types };
}

/** Q×R dot products starting at (query, row); leaves both unchanged. */
function emitMicroKernel(writer: InstructionWriter, locals: LocalLayout, parameters: KernelParameters, addressing: Addressing, queries: number, rows: number): void {
  const accumulator = (queryLane: number, rowLane: number): number => locals.accumulators[queryLane]?.[rowLane] as number;
  for (let lane = 0; lane < queries; lane++) {
    addressing.query(writer, lane);
    writer.localSet(locals.queryBases[lane] as number);
  }
  for (let lane = 0; lane < rows; lane++) {
    addressing.row(writer, lane);
    writer.localSet(locals.rowBases[lane] as number);
  }
  for (let queryLane = 0; queryLane < queries; queryLane++) {
    for (let rowLane = 0; rowLane < rows; rowLane++) writer.v128ConstZero().localSet(accumulator(queryLane, rowLane));
  }
  writer.i32Const(0).localSet(locals.chunkOffset);
  writer.loop();
  for (let rowLane = 0; rowLane < rows; rowLane++) {
    writer.localGet(locals.rowBases[rowLane] as number).localGet(locals.chunkOffset).i32Add().v128Load().localSet(locals.rowVectors[rowLane] as number);
  }
  for (let queryLane = 0; queryLane < queries; queryLane++) {
    writer.localGet(locals.queryBases[queryLane] as number).localGet(locals.chunkOffset).i32Add().v128Load().localSet(locals.queryVector);
    for (let rowLane = 0; rowLane < rows; rowLane++) {
      writer
        .localGet(accumulator(queryLane, rowLane))
        .localGet(locals.queryVector)
        .localGet(locals.rowVectors[rowLane] as number)
        .f32x4Mul()
        .f32x4Add()
        .localSet(accumulator(queryLane, rowLane));
    }
  }
  writer.localGet(locals.chunkOffset).i32Const(16).i32Add().localTee(locals.chunkOffset).localGet(parameters.strideBytes).i32LtS().brIf(0);
  writer.end();
  for (let queryLane = 0; queryLane < queries; queryLane++) {
    // outRow = outPtr + ((query + queryLane) · rowCount + row) · 4
    writer
      .localGet(locals.query)
      .i32Const(queryLane)
      .i32Add()
      .localGet(parameters.rowCount)
      .i32Mul()
      .localGet(locals.row)
      .i32Add()
      .i32Const(2)
      .i32Shl()
      .localGet(parameters.outPtr)
      .i32Add()
      .localSet(locals.outRow);
    for (let rowLane = 0; rowLane < rows; rowLane++) {
      const sum = accumulator(queryLane, rowLane);
      writer
        .localGet(locals.outRow)
        .localGet(sum)
        .f32x4ExtractLane(0)
        .localGet(sum)
        .f32x4ExtractLane(1)
        .f32Add()
        .localGet(sum)
        .f32x4ExtractLane(2)
        .localGet(sum)
        .f32x4ExtractLane(3)
        .f32Add()
        .f32Add()
        .f32Store(rowLane * 4);
    }
  }
}

/** `while (local + step <= limit) { body; local += step }` */
function emitSteppedLoop(writer: InstructionWriter, local: number, step: number, limit: number, body: () => void): void {
  writer.whileLoop(
    () => writer.localGet(local).i32Const(step).i32Add().localGet(limit).i32LeS(),
    () => {
      body();
      writer.localGet(local).i32Const(step).i32Add().localSet(local);
    },
  );
}

function emitTileBody(writer: InstructionWriter, locals: LocalLayout, parameters: KernelParameters, addressing: Addressing, shape: { queries: number; rows: number; singleQueryRows: number }): void {
  const rowSweep = (queries: number, rows: number): void => {
    writer.i32Const(0).localSet(locals.row);
    emitSteppedLoop(writer, locals.row, rows, parameters.rowCount, () => emitMicroKernel(writer, locals, parameters, addressing, queries, rows));
    emitSteppedLoop(writer, locals.row, 1, parameters.rowCount, () => emitMicroKernel(writer, locals, parameters, addressing, queries, 1));
  };
  writer.i32Const(0).localSet(locals.query);
  emitSteppedLoop(writer, locals.query, shape.queries, parameters.queryCount, () => rowSweep(shape.queries, shape.rows));
  // Two or three queries left (15 k-means centres: 3 of them) go two at a time: 2 × 4 runs as fast as 4 × 2, one
  // query alone at under half that.
  if (shape.queries > 2) emitSteppedLoop(writer, locals.query, 2, parameters.queryCount, () => rowSweep(2, shape.singleQueryRows));
  emitSteppedLoop(writer, locals.query, 1, parameters.queryCount, () => rowSweep(1, shape.singleQueryRows));
}

/** Builds the kernel module's bytes (a few kilobytes, in well under a millisecond). */
export function buildDotKernelModule(options: DotKernelModuleOptions): Uint8Array<ArrayBuffer> {
  const shape = options.shape ?? dotKernelShape;
  const i32 = valueType.i32;

  // dot_tile(queriesPtr, queryCount, rowsPtr, rowCount, strideBytes, outPtr)
  const tileParameters = { queriesPtr: 0, queryCount: 1, rowsPtr: 2, rowCount: 3, strideBytes: 4, outPtr: 5 };
  const tileLocals = allocateLocals(6, shape);
  const tile = new InstructionWriter();
  // address = base + (index + lane) · strideBytes
  const contiguous = (base: number, index: number) => (writer: InstructionWriter, lane: number) => {
    writer.localGet(index).i32Const(lane).i32Add().localGet(tileParameters.strideBytes).i32Mul().localGet(base).i32Add();
  };
  emitTileBody(
    tile,
    tileLocals.layout,
    tileParameters,
    { query: contiguous(tileParameters.queriesPtr, tileLocals.layout.query), row: contiguous(tileParameters.rowsPtr, tileLocals.layout.row) },
    shape,
  );

  // dot_gather(matrixPtr, strideBytes, queryIndicesPtr, queryCount, rowIndicesPtr, rowCount, outPtr)
  const gatherParameters = { matrixPtr: 0, strideBytes: 1, queryIndicesPtr: 2, queryCount: 3, rowIndicesPtr: 4, rowCount: 5, outPtr: 6 };
  const gatherLocals = allocateLocals(7, shape);
  const gather = new InstructionWriter();
  // address = matrixPtr + indices[index + lane] · strideBytes
  const indexed = (indices: number, index: number) => (writer: InstructionWriter, lane: number) => {
    writer
      .localGet(index)
      .i32Const(2)
      .i32Shl()
      .localGet(indices)
      .i32Add()
      .i32Load(lane * 4)
      .localGet(gatherParameters.strideBytes)
      .i32Mul()
      .localGet(gatherParameters.matrixPtr)
      .i32Add();
  };
  emitTileBody(
    gather,
    gatherLocals.layout,
    gatherParameters,
    { query: indexed(gatherParameters.queryIndicesPtr, gatherLocals.layout.query), row: indexed(gatherParameters.rowIndicesPtr, gatherLocals.layout.row) },
    shape,
  );

  return encodeWasmModule({
    memoryImport: {
      module: 'env',
      name: 'memory',
      minimumPages: 1,
      ...(options.sharedMemory ? { maximumPages: maximumMemoryPages, shared: true } : {}),
    },
    functions: [
      { exportName: 'dot_tile', params: [i32, i32, i32, i32, i32, i32], results: [], locals: tileLocals.types, body: tile.toBytes() },
      { exportName: 'dot_gather', params: [i32, i32, i32, i32, i32, i32, i32], results: [], locals: gatherLocals.types, body: gather.toBytes() },
      rowSumsFunction(),
    ],
  });
}
