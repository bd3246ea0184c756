import { encodeWasmModule, valueType } from './wasm-encoder.js';
import { InstructionWriter } from './wasm-instructions.js';

/*
 * Sweeps of one float64 vector against a list of others, with WebAssembly 128-bit SIMD (f64x2): the inner
 * products and the linear combinations of Gram–Schmidt and of Ritz vectors in Lanczos (math/lanczos.ts).
 *
 *   dots(wPtr, listPtr, count, n, outPtr)                   out[k] = ⟨w, v_k⟩
 *   add_combination(wPtr, listPtr, coefficientsPtr, count, n)  w ← w + Σ_k coefficients[k]·v_k
 *
 * Pointers are byte offsets into the imported memory; `listPtr` holds `count` i32 addresses of the v_k. Four
 * vectors share each pass over w, as in the JavaScript loops they replace, so w is read (and written) once per
 * four. A dot product sums the even and the odd entries in the two lanes and adds the lanes at the end (plus
 * the last entry when n is odd); a combination adds the terms of each entry in list order.
 */

/** Vectors that share one pass over w. */
const group = 4;

/** Builds the module's bytes (about a kilobyte). */
export function buildVectorSweepsModule(): Uint8Array<ArrayBuffer> {
  return encodeWasmModule({
    memoryImport: { module: 'env', name: 'memory', minimumPages: 1 },
    functions: [
      { exportName: 'dots', params: [i32, i32, i32, i32, i32], results: [], locals: sweepLocalTypes, body: sweepBody('dots') },
      { exportName: 'add_combination', params: [i32, i32, i32, i32, i32], results: [], locals: sweepLocalTypes, body: sweepBody('combination') },
    ],
  });
}

const { i32, f64, v128 } = valueType;
// Locals after the five parameters.
const local = {
  k: 5,
  offset: 6,
  evenBytes: 7,
  bytes: 8,
  pointers: [9, 10, 11, 12],
  vectors: [13, 14, 15, 16],
  scalars: [17, 18, 19, 20],
  x: 21,
  xScalar: 22,
} as const;
const sweepLocalTypes = [i32, i32, i32, i32, i32, i32, i32, i32, v128, v128, v128, v128, f64, f64, f64, f64, v128, f64];

/** One pass over w: two entries at a time in f64x2 lanes up to the even length, then the odd last entry in f64. */
interface Lanes {
  step: number;
  /** The local holding the byte offset where the pass ends. */
  limit: number;
  /** Per vector of the group: its accumulator (dots) or coefficient (combinations). */
  registers: readonly number[];
  /** The local that holds w's entries in a dot pass. */
  x: number;
  load(writer: InstructionWriter): void;
  store(writer: InstructionWriter): void;
  multiply(writer: InstructionWriter): void;
  add(writer: InstructionWriter): void;
}

const vectorLanes: Lanes = {
  step: 16,
  limit: local.evenBytes,
  registers: local.vectors,
  x: local.x,
  load: (writer) => writer.v128Load(),
  store: (writer) => writer.v128Store(),
  multiply: (writer) => writer.f64x2Mul(),
  add: (writer) => writer.f64x2Add(),
};

const scalarLanes: Lanes = {
  step: 8,
  limit: local.bytes,
  registers: local.scalars,
  x: local.xScalar,
  load: (writer) => writer.f64Load(),
  store: (writer) => writer.f64Store(),
  multiply: (writer) => writer.f64Mul(),
  add: (writer) => writer.f64Add(),
};

function sweepBody(kind: 'dots' | 'combination'): Uint8Array {
  // dots(w, list, count, n, out); add_combination(w, list, coefficients, count, n)
  const parameter = kind === 'dots' ? { w: 0, list: 1, count: 2, n: 3, array: 4 } : { w: 0, list: 1, array: 2, count: 3, n: 4 };
  const writer = new InstructionWriter();
  const address = (base: number, offset: number): void => {
    writer.localGet(base).localGet(offset).i32Add();
  };
  writer.localGet(parameter.n).i32Const(-2).i32And().i32Const(3).i32Shl().localSet(local.evenBytes);
  writer.localGet(parameter.n).i32Const(3).i32Shl().localSet(local.bytes);
  writer.i32Const(0).localSet(local.k);
  for (const size of [group, 1]) {
    writer.whileLoop(
      () => writer.localGet(local.k).i32Const(size).i32Add().localGet(parameter.count).i32LeS(),
      () => {
        for (let j = 0; j < size; j++) {
          writer.localGet(local.k).i32Const(2).i32Shl().localGet(parameter.list).i32Add().i32Load(j * 4).localSet(local.pointers[j] as number);
          if (kind === 'dots') writer.v128ConstZero().localSet(local.vectors[j] as number);
          else {
            // The coefficient, as a scalar for the tail and splatted for the vector loop.
            writer.localGet(local.k).i32Const(3).i32Shl().localGet(parameter.array).i32Add().f64Load(j * 8).localTee(local.scalars[j] as number);
            writer.f64x2Splat().localSet(local.vectors[j] as number);
          }
        }
        const pass = (lanes: Lanes): void => {
          writer.whileLoop(
            () => writer.localGet(local.offset).localGet(lanes.limit).i32LtS(),
            () => {
              if (kind === 'dots') {
                // register_j += w · v_j
                address(parameter.w, local.offset);
                lanes.load(writer);
                writer.localSet(lanes.x);
                for (let j = 0; j < size; j++) {
                  const accumulator = lanes.registers[j] as number;
                  writer.localGet(accumulator).localGet(lanes.x);
                  address(local.pointers[j] as number, local.offset);
                  lanes.load(writer);
                  lanes.multiply(writer);
                  lanes.add(writer);
                  writer.localSet(accumulator);
                }
              } else {
                // w = w + register_0 · v_0 + register_1 · v_1 + …
                address(parameter.w, local.offset);
                address(parameter.w, local.offset);
                lanes.load(writer);
                for (let j = 0; j < size; j++) {
                  writer.localGet(lanes.registers[j] as number);
                  address(local.pointers[j] as number, local.offset);
                  lanes.load(writer);
                  lanes.multiply(writer);
                  lanes.add(writer);
                }
                lanes.store(writer);
              }
              writer.localGet(local.offset).i32Const(lanes.step).i32Add().localSet(local.offset);
            },
          );
        };
        writer.i32Const(0).localSet(local.offset);
        pass(vectorLanes);
        if (kind === 'dots') {
          for (let j = 0; j < size; j++) {
            const accumulator = local.vectors[j] as number;
            writer.localGet(accumulator).f64x2ExtractLane(0).localGet(accumulator).f64x2ExtractLane(1).f64Add().localSet(local.scalars[j] as number);
          }
        }
        // The last entry when n is odd (this pass runs at most once).
        pass(scalarLanes);
        if (kind === 'dots') {
          for (let j = 0; j < size; j++) {
            writer.localGet(local.k).i32Const(j).i32Add().i32Const(3).i32Shl().localGet(parameter.array).i32Add();
            writer.localGet(local.scalars[j] as number).f64Store();
          }
        }
        writer.localGet(local.k).i32Const(size).i32Add().localSet(local.k);
      },
    );
  }
  return writer.toBytes();
}
