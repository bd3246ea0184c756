import { compiledWasmModule, fixedWasmMemory } from './compiled-wasm-module.js';
import { buildVectorSweepsModule } from './vector-sweeps-module.js';

/*
 * Float64 vectors of one length kept in a WebAssembly memory, so that the sweeps of `vector-sweeps-module.ts`
 * (inner products and linear combinations, f64x2 SIMD) can read them in place. Lanczos (math/lanczos.ts) takes
 * its basis, Ritz and locked vectors from here; on a 98,000-node graph those sweeps are most of its time.
 *
 * The memory is sized once for `capacity` vectors and never grows, because growing would detach every view
 * handed out. When it is full, or cannot be had, or the engine has no SIMD, vectors are ordinary
 * Float64Arrays and the same sweeps run in JavaScript; a sweep over any vector not from the memory does too.
 */

interface VectorSweeps {
  dots(wPtr: number, listPtr: number, count: number, n: number, outPtr: number): void;
  add_combination(wPtr: number, listPtr: number, coefficientsPtr: number, count: number, n: number): void;
}

/** A pool of length-n float64 vectors with SIMD inner products and combinations over them. */
export class VectorArena {
  readonly n: number;
  /** Vectors the memory holds, and the longest list one sweep takes. */
  readonly capacity: number;
  private readonly memory: WebAssembly.Memory | undefined;
  private readonly sweeps: VectorSweeps | undefined;
  private readonly slotBytes: number;
  private readonly free: number[] = [];
  /** Byte offset of the pointer list and the coefficients passed to a sweep. */
  private readonly listPtr: number;
  private readonly coefficientsPtr: number;

  /** Room for `capacity` vectors of length `n`. */
  constructor(n: number, capacity: number) {
    this.n = n;
    this.capacity = capacity;
    this.slotBytes = Math.ceil((n * 8) / 16) * 16;
    const listBytes = Math.ceil((capacity * 4) / 16) * 16;
    const totalBytes = listBytes + capacity * 8 + capacity * this.slotBytes;
    this.listPtr = 0;
    this.coefficientsPtr = listBytes;
    const module = compiledWasmModule(buildVectorSweepsModule);
    this.memory = module ? fixedWasmMemory(totalBytes) : undefined;
    if (!module || !this.memory) return;
    this.sweeps = new WebAssembly.Instance(module, { env: { memory: this.memory } }).exports as unknown as VectorSweeps;
    const first = listBytes + capacity * 8;
    for (let slot = capacity - 1; slot >= 0; slot--) this.free.push(first + slot * this.slotBytes);
  }

  /** A zeroed vector: a slot of the memory while one is free, else an ordinary array. */
  alloc(): Float64Array {
    const offset = this.free.pop();
    if (offset === undefined || !this.memory) return new Float64Array(this.n);
    const vector = new Float64Array(this.memory.buffer, offset, this.n);
    vector.fill(0);
    return vector;
  }

  /** A copy of `source` (length n) in a new vector. */
  copy(source: Float64Array): Float64Array {
    const vector = this.alloc();
    vector.set(source);
    return vector;
  }

  /** Returns a vector's slot to the pool; the vector must not be used afterwards. Ordinary arrays are ignored. */
  release(vector: Float64Array): void {
    if (this.memory && vector.buffer === this.memory.buffer) this.free.push(vector.byteOffset);
  }

  /** out[k] = ⟨w, vectors[k]⟩ for every k. */
  dots(w: Float64Array, vectors: readonly Float64Array[], out: Float64Array): void {
    if (this.sweeps && this.inMemory(w, vectors)) {
      this.writeList(vectors);
      this.sweeps.dots(w.byteOffset, this.listPtr, vectors.length, this.n, this.coefficientsPtr);
      out.set(new Float64Array((this.memory as WebAssembly.Memory).buffer, this.coefficientsPtr, vectors.length));
      return;
    }
    dotsJs(w, vectors, out);
  }

  /** w ← w + sign·Σ_{k<count} coefficients[k]·vectors[k]. */
  addCombination(w: Float64Array, vectors: readonly Float64Array[], coefficients: Float64Array, sign: 1 | -1, count: number): void {
    const used = vectors.slice(0, count);
    if (this.sweeps && this.inMemory(w, used)) {
      this.writeList(used);
      const signed = new Float64Array((this.memory as WebAssembly.Memory).buffer, this.coefficientsPtr, count);
      for (let k = 0; k < count; k++) signed[k] = sign * (coefficients[k] as number);
      this.sweeps.add_combination(w.byteOffset, this.listPtr, this.coefficientsPtr, count, this.n);
      return;
    }
    addCombinationJs(w, used, coefficients, sign);
  }

  private inMemory(w: Float64Array, vectors: readonly Float64Array[]): boolean {
    const buffer = (this.memory as WebAssembly.Memory).buffer;
    if (vectors.length > this.capacity) return false;
    return w.buffer === buffer && vectors.every((vector) => vector.buffer === buffer);
  }

  private writeList(vectors: readonly Float64Array[]): void {
    const list = new Int32Array((this.memory as WebAssembly.Memory).buffer, this.listPtr, vectors.length);
    for (let k = 0; k < vectors.length; k++) list[k] = (vectors[k] as Float64Array).byteOffset;
  }
}

/** The JavaScript sweep: four vectors per pass over w (V8 runs it about 2.7 times faster than one dot per pass). */
function dotsJs(w: Float64Array, vectors: readonly Float64Array[], out: Float64Array): void {
  const n = w.length;
  const count = vectors.length;
  let k = 0;
  for (; k + 4 <= count; k += 4) {
    const [a, b, c, d] = vectors.slice(k, k + 4) as [Float64Array, Float64Array, Float64Array, Float64Array];
    let sa = 0;
    let sb = 0;
    let sc = 0;
    let sd = 0;
    for (let index = 0; index < n; index++) {
      const x = w[index] as number;
      sa += x * (a[index] as number);
      sb += x * (b[index] as number);
      sc += x * (c[index] as number);
      sd += x * (d[index] as number);
    }
    out[k] = sa;
    out[k + 1] = sb;
    out[k + 2] = sc;
    out[k + 3] = sd;
  }
  for (; k < count; k++) {
    const u = vectors[k] as Float64Array;
    let sum = 0;
    for (let index = 0; index < n; index++) sum += (w[index] as number) * (u[index] as number);
    out[k] = sum;
  }
}

function addCombinationJs(w: Float64Array, vectors: readonly Float64Array[], coefficients: Float64Array, sign: 1 | -1): void {
  const n = w.length;
  const count = vectors.length;
  let k = 0;
  for (; k + 4 <= count; k += 4) {
    const [a, b, c, d] = vectors.slice(k, k + 4) as [Float64Array, Float64Array, Float64Array, Float64Array];
    const ca = sign * (coefficients[k] as number);
    const cb = sign * (coefficients[k + 1] as number);
    const cc = sign * (coefficients[k + 2] as number);
    const cd = sign * (coefficients[k + 3] as number);
    for (let index = 0; index < n; index++) {
      w[index] = (w[index] as number) + ca * (a[index] as number) + cb * (b[index] as number) + cc * (c[index] as number) + cd * (d[index] as number);
    }
  }
  for (; k < count; k++) {
    const u = vectors[k] as Float64Array;
    const coefficient = sign * (coefficients[k] as number);
    for (let index = 0; index < n; index++) w[index] = (w[index] as number) + coefficient * (u[index] as number);
  }
}
