/**
 * A list of 32-bit integers that grows by doubling, for builders that append hundreds of thousands of numbers: a
 * `number[]` boxes none of them either, but turning it into an `Int32Array` at the end walks it again, and appending a
 * typed array to it (`push` item by item) walks an iterator per item where this copies one block.
 */
export class Int32List {
  private data: Int32Array;
  private size = 0;

  constructor(capacity = 16) {
    this.data = new Int32Array(Math.max(1, capacity));
  }

  /** A list holding `values`, with room to grow. */
  static of(values: ArrayLike<number>): Int32List {
    const list = new Int32List(values.length + (values.length >> 2) + 16);
    list.appendAll(values);
    return list;
  }

  get length(): number {
    return this.size;
  }

  push(value: number): void {
    if (this.size === this.data.length) this.grow(this.size + 1);
    this.data[this.size++] = value;
  }

  appendAll(values: ArrayLike<number>): void {
    const end = this.size + values.length;
    if (end > this.data.length) this.grow(end);
    if (values instanceof Int32Array) this.data.set(values, this.size);
    else for (let index = 0; index < values.length; index++) this.data[this.size + index] = values[index] as number;
    this.size = end;
  }

  /** A copy of the items, as long as the list. */
  toInt32Array(): Int32Array {
    return this.data.slice(0, this.size);
  }

  /** A copy of the items as bytes (each must fit in 0–255). */
  toUint8Array(): Uint8Array {
    return Uint8Array.from(this.data.subarray(0, this.size));
  }

  private grow(needed: number): void {
    const larger = new Int32Array(Math.max(needed, this.data.length * 2));
    larger.set(this.data.subarray(0, this.size));
    this.data = larger;
  }
}
