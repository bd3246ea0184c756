import type { CsrMatrix } from '../csr-matrix.js';
import { compiledWasmModule, fixedWasmMemory } from './compiled-wasm-module.js';
import { buildCsrBlockProductModule, csrProductWidths } from './csr-block-product-module.js';

/*
 * A CSR matrix copied once into WebAssembly memory, with room for one block of 8 columns in and out, for the
 * repeated products of conjugate gradient (`csr-block-product-module.ts`). A block is copied in and its product
 * out at every call: two passes over n·width values against the product's pass over every stored entry.
 */

type Product = (rowPointersPtr: number, columnIndicesPtr: number, valuesPtr: number, rows: number, xPtr: number, yPtr: number) => void;

const widest = 8;
/** One copy per matrix object, made on its first product (a worker thread makes its own); dropped with the matrix. */
const residents = new WeakMap<CsrMatrix, ResidentCsr | null>();

/** A CSR matrix resident in WebAssembly memory. */
export class ResidentCsr {
  private readonly memory: WebAssembly.Memory;
  private readonly products: Map<number, Product>;
  private readonly rows: number;
  private readonly columnIndicesPtr: number;
  private readonly valuesPtr: number;
  private readonly xPtr: number;
  private readonly yPtr: number;

  private constructor(matrix: CsrMatrix, module: WebAssembly.Module, memory: WebAssembly.Memory, layout: { columnIndicesPtr: number; valuesPtr: number; xPtr: number; yPtr: number }) {
    this.memory = memory;
    this.rows = matrix.rows;
    this.columnIndicesPtr = layout.columnIndicesPtr;
    this.valuesPtr = layout.valuesPtr;
    this.xPtr = layout.xPtr;
    this.yPtr = layout.yPtr;
    const exports = new WebAssembly.Instance(module, { env: { memory } }).exports;
    this.products = new Map(csrProductWidths.map((width) => [width, exports[`product_${width}`] as Product]));
    const entries = matrix.rowPointers[matrix.rows] as number;
    new Int32Array(memory.buffer, 0, matrix.rows + 1).set(matrix.rowPointers.subarray(0, matrix.rows + 1));
    new Int32Array(memory.buffer, layout.columnIndicesPtr, entries).set(matrix.columnIndices.subarray(0, entries));
    new Float64Array(memory.buffer, layout.valuesPtr, entries).set(matrix.values.subarray(0, entries));
  }

  /** The resident copy of `matrix`, or undefined when this engine has no SIMD or the copy would be too large. */
  static of(matrix: CsrMatrix): ResidentCsr | undefined {
    let resident = residents.get(matrix);
    if (resident === undefined) {
      resident = ResidentCsr.load(matrix);
      residents.set(matrix, resident);
    }
    return resident ?? undefined;
  }

  private static load(matrix: CsrMatrix): ResidentCsr | null {
    const module = compiledWasmModule(buildCsrBlockProductModule);
    // Stored entries must start at 0 for the kernel's running entry index.
    if (!module || matrix.rowPointers[0] !== 0) return null;
    const align = (bytes: number): number => Math.ceil(bytes / 16) * 16;
    const entries = matrix.rowPointers[matrix.rows] as number;
    const columnIndicesPtr = align((matrix.rows + 1) * 4);
    const valuesPtr = align(columnIndicesPtr + entries * 4);
    const xPtr = align(valuesPtr + entries * 8);
    const yPtr = xPtr + matrix.rows * widest * 8;
    const memory = fixedWasmMemory(yPtr + matrix.rows * widest * 8);
    if (!memory) return null;
    return new ResidentCsr(matrix, module, memory, { columnIndicesPtr, valuesPtr, xPtr, yPtr });
  }

  /** y = A·x for a row-major block of `width` columns; false (and y untouched) for a width without a kernel. */
  multiplyBlock(x: Float64Array, width: number, y: Float64Array): boolean {
    const product = this.products.get(width);
    if (!product) return false;
    const length = this.rows * width;
    const buffer = this.memory.buffer;
    new Float64Array(buffer, this.xPtr, length).set(x.subarray(0, length));
    product(0, this.columnIndicesPtr, this.valuesPtr, this.rows, this.xPtr, this.yPtr);
    y.set(new Float64Array(buffer, this.yPtr, length));
    return true;
  }
}
