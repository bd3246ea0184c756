import { valueType } from './wasm-encoder.js';
import type { WasmFunctionDefinition } from './wasm-encoder.js';
import { InstructionWriter } from './wasm-instructions.js';

/*
 * Per-group sums of float32 rows in float64, with WebAssembly SIMD: the centroid sums of a Lloyd iteration
 * (math/k-means.ts), where each point is added to its cluster's sum.
 *
 *   sum_rows(rowsPtr, strideBytes, groupsPtr, rowCount, sumsPtr)
 *
 * adds row r (strideBytes of float32 at rowsPtr + r·strideBytes) to the float64 sum row groups[r] (2·strideBytes
 * at sumsPtr + groups[r]·2·strideBytes), for r = 0 … rowCount − 1 in order. Every coordinate's sum is therefore
 * the same sequence of float64 additions of exactly widened floats as the JavaScript loop it replaces, so the
 * sums are bit for bit the same.
 */

/** The `sum_rows` function, for a module that imports the memory. */
export function rowSumsFunction(): WasmFunctionDefinition {
  const { i32 } = valueType;
  const [rowsPtr, strideBytes, groupsPtr, rowCount, sumsPtr] = [0, 1, 2, 3, 4];
  const [row, source, target, offset] = [5, 6, 7, 8];
  const writer = new InstructionWriter();
  writer.i32Const(0).localSet(row);
  writer.whileLoop(
    () => writer.localGet(row).localGet(rowCount).i32LtS(),
    () => {
      // source = rowsPtr + row · strideBytes; target = sumsPtr + groups[row] · 2 · strideBytes
      writer.localGet(row).localGet(strideBytes).i32Mul().localGet(rowsPtr).i32Add().localSet(source);
      writer.localGet(row).i32Const(2).i32Shl().localGet(groupsPtr).i32Add().i32Load();
      writer.localGet(strideBytes).i32Mul().i32Const(1).i32Shl().localGet(sumsPtr).i32Add().localSet(target);
      writer.i32Const(0).localSet(offset);
      writer.whileLoop(
        () => writer.localGet(offset).localGet(strideBytes).i32LtS(),
        () => {
          // Four floats: the first two into target[0..1], the next two into target[2..3].
          for (const half of [0, 8]) {
            writer.localGet(offset).i32Const(1).i32Shl().localGet(target).i32Add();
            writer.localGet(offset).i32Const(1).i32Shl().localGet(target).i32Add().v128Load(half * 2);
            writer.localGet(source).localGet(offset).i32Add().v128Load64Zero(half).f64x2PromoteLowF32x4();
            writer.f64x2Add().v128Store(half * 2);
          }
          writer.localGet(offset).i32Const(16).i32Add().localSet(offset);
        },
      );
      writer.localGet(row).i32Const(1).i32Add().localSet(row);
    },
  );
  return { exportName: 'sum_rows', params: [i32, i32, i32, i32, i32], results: [], locals: [i32, i32, i32, i32], body: writer.toBytes() };
}
