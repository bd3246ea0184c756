import { encodeWasmModule, valueType } from '../math/wasm/wasm-encoder.js';
import { InstructionWriter } from '../math/wasm/wasm-instructions.js';

/*
 * One power-iteration sweep of PageRank as a WebAssembly function (plain WebAssembly 1.0, no SIMD: the
 * sparse gather has no vector form). It performs exactly the floating-point operations of the JavaScript
 * loop it replaced, in the same order (WebAssembly never fuses a multiply and an add), so the scores are
 * bit for bit the same; on the 2Wiki `ppr` graph (58,848 nodes, 323,398 transitions) it runs in about 55 %
 * of the time, because V8's JavaScript keeps bounds checks and tagged loads in the inner loop.
 *
 *   pagerank_sweep(rowPointersPtr, columnIndicesPtr, valuesPtr, n, currentPtr, nextPtr, restartPtr,
 *                  damping, restartScale, uniformShare) → ‖next − current‖₁
 *
 * computes, for every node j, next[j] = damping · Σ_e values[e] · current[columnIndices[e]] + restartScale ·
 * restart[j] + uniformShare over the entries e of row j. Pointers are byte offsets into the imported memory:
 * row pointers and column indices i32, everything else f64.
 */

/** Builds the sweep module's bytes (under a kilobyte). */
export function buildPageRankSweepModule(): Uint8Array<ArrayBuffer> {
  const { i32, f64 } = valueType;
  const [rowPointers, columnIndices, values, n, current, next, restart, damping, restartScale, uniformShare] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9];
  const [node, rowEnd, columnAddress, valueAddress, sum, error, value, rowPointerAddress] = [10, 11, 12, 13, 14, 15, 16, 17];
  const locals = [i32, i32, i32, i32, f64, f64, f64, i32];
  const writer = new InstructionWriter();
  const nodeOffset = (vectorPointer: number): void => {
    writer.localGet(node).i32Const(3).i32Shl().localGet(vectorPointer).i32Add();
  };
  // The entry addresses start at row 0's first entry and advance entry by entry across all rows.
  writer.localGet(columnIndices).localGet(rowPointers).i32Load().i32Const(2).i32Shl().i32Add().localSet(columnAddress);
  writer.localGet(values).localGet(rowPointers).i32Load().i32Const(3).i32Shl().i32Add().localSet(valueAddress);
  writer.localGet(rowPointers).localSet(rowPointerAddress);
  writer.whileLoop(
    () => writer.localGet(node).localGet(n).i32LtS(),
    () => {
      writer.localGet(rowPointerAddress).i32Load(4).i32Const(2).i32Shl().localGet(columnIndices).i32Add().localSet(rowEnd);
      writer.f64Const(0).localSet(sum);
      writer.whileLoop(
        () => writer.localGet(columnAddress).localGet(rowEnd).i32LtS(),
        () => {
          // sum += values[e] · current[columnIndices[e]]
          writer.localGet(sum).localGet(valueAddress).f64Load();
          writer.localGet(columnAddress).i32Load().i32Const(3).i32Shl().localGet(current).i32Add().f64Load();
          writer.f64Mul().f64Add().localSet(sum);
          writer.localGet(columnAddress).i32Const(4).i32Add().localSet(columnAddress);
          writer.localGet(valueAddress).i32Const(8).i32Add().localSet(valueAddress);
        },
      );
      // value = damping · sum + restartScale · restart[node] + uniformShare, evaluated left to right
      writer.localGet(damping).localGet(sum).f64Mul().localGet(restartScale);
      nodeOffset(restart);
      writer.f64Load().f64Mul().f64Add().localGet(uniformShare).f64Add().localSet(value);
      nodeOffset(next);
      writer.localGet(value).f64Store();
      writer.localGet(error).localGet(value);
      nodeOffset(current);
      writer.f64Load().f64Sub().f64Abs().f64Add().localSet(error);
      writer.localGet(rowPointerAddress).i32Const(4).i32Add().localSet(rowPointerAddress);
      writer.localGet(node).i32Const(1).i32Add().localSet(node);
    },
  );
  writer.localGet(error);
  return encodeWasmModule({
    memoryImport: { module: 'env', name: 'memory', minimumPages: 1 },
    functions: [
      {
        exportName: 'pagerank_sweep',
        params: [i32, i32, i32, i32, i32, i32, i32, f64, f64, f64],
        results: [f64],
        locals,
        body: writer.toBytes(),
      },
    ],
  });
}
