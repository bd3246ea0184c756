import { encodeWasmModule, valueType } from './wasm-encoder.js';
import type { ValueType } from './wasm-encoder.js';
import { InstructionWriter } from './wasm-instructions.js';

/*
 * Y = A·X for a CSR matrix A and a row-major block X of 1, 2, 4 or 8 float64 columns: the product of every
 * conjugate-gradient iteration (math/conjugate-gradient.ts), where it is most of the time of AutoKG's Laplace
 * learning. Two columns share an f64x2 lane pair (plain f64 for one column).
 *
 *   product_<width>(rowPointersPtr, columnIndicesPtr, valuesPtr, rows, xPtr, yPtr)
 *
 * Pointers are byte offsets into the imported memory: row pointers and column indices i32, values, X and Y f64.
 * Each entry of Y is 0 plus value·x over the row's entries in stored order, which is exactly what the
 * JavaScript loop computes (WebAssembly never fuses a multiply and an add), so the results are bit for bit
 * the same.
 */

/** The block widths the module has a function for. */
export const csrProductWidths = [1, 2, 4, 8] as const;

/** Builds the module's bytes (about a kilobyte). */
export function buildCsrBlockProductModule(): Uint8Array<ArrayBuffer> {
  const { i32 } = valueType;
  return encodeWasmModule({
    memoryImport: { module: 'env', name: 'memory', minimumPages: 1 },
    functions: csrProductWidths.map((width) => ({
      exportName: `product_${width}`,
      params: [i32, i32, i32, i32, i32, i32],
      results: [],
      locals: productLocalTypes(width),
      body: productBody(width),
    })),
  });
}

const parameter = { rowPointers: 0, columnIndices: 1, values: 2, rows: 3, x: 4, y: 5 } as const;
const local = { row: 6, entry: 7, end: 8, source: 9, coefficient: 10, accumulators: 11 } as const;

function productLocalTypes(width: number): ValueType[] {
  const { i32, f64, v128 } = valueType;
  const lanes = width === 1 ? [f64] : Array.from({ length: width / 2 }, () => v128);
  // row, entry, end, source; the coefficient (f64, or splatted v128); the accumulators.
  return [i32, i32, i32, i32, width === 1 ? f64 : v128, ...lanes];
}

function productBody(width: number): Uint8Array {
  const writer = new InstructionWriter();
  const vectors = width / 2;
  const rowBytes = width * 8;
  writer.localGet(parameter.rowPointers).i32Load().localSet(local.entry);
  writer.i32Const(0).localSet(local.row);
  writer.whileLoop(
    () => writer.localGet(local.row).localGet(parameter.rows).i32LtS(),
    () => {
      // end = rowPointers[row + 1]
      writer.localGet(local.row).i32Const(2).i32Shl().localGet(parameter.rowPointers).i32Add().i32Load(4).localSet(local.end);
      if (width === 1) writer.f64Const(0).localSet(local.accumulators);
      else for (let lane = 0; lane < vectors; lane++) writer.v128ConstZero().localSet(local.accumulators + lane);
      writer.whileLoop(
        () => writer.localGet(local.entry).localGet(local.end).i32LtS(),
        () => {
          writer.localGet(local.entry).i32Const(3).i32Shl().localGet(parameter.values).i32Add().f64Load();
          if (width > 1) writer.f64x2Splat();
          writer.localSet(local.coefficient);
          // source = xPtr + columnIndices[entry] · rowBytes
          writer.localGet(local.entry).i32Const(2).i32Shl().localGet(parameter.columnIndices).i32Add().i32Load();
          writer.i32Const(rowBytes).i32Mul().localGet(parameter.x).i32Add().localSet(local.source);
          if (width === 1) {
            writer.localGet(local.accumulators).localGet(local.coefficient).localGet(local.source).f64Load().f64Mul().f64Add().localSet(local.accumulators);
          } else {
            for (let lane = 0; lane < vectors; lane++) {
              const accumulator = local.accumulators + lane;
              writer.localGet(accumulator).localGet(local.coefficient).localGet(local.source).v128Load(lane * 16).f64x2Mul().f64x2Add().localSet(accumulator);
            }
          }
          writer.localGet(local.entry).i32Const(1).i32Add().localSet(local.entry);
        },
      );
      // y[row] = the accumulators
      const target = (): void => {
        writer.localGet(local.row).i32Const(rowBytes).i32Mul().localGet(parameter.y).i32Add();
      };
      if (width === 1) {
        target();
        writer.localGet(local.accumulators).f64Store();
      } else {
        for (let lane = 0; lane < vectors; lane++) {
          target();
          writer.localGet(local.accumulators + lane).v128Store(lane * 16);
        }
      }
      writer.localGet(local.row).i32Const(1).i32Add().localSet(local.row);
    },
  );
  return writer.toBytes();
}
