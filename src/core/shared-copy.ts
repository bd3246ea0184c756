/** A typed array whose elements live in a SharedArrayBuffer. */
type SharedTypedArray = Int32Array | Float32Array | Float64Array;

/** A copy of `array` over a SharedArrayBuffer, for worker threads to read without copying it again. */
export function sharedCopy<T extends SharedTypedArray>(array: T): T {
  const copy = new (array.constructor as new (buffer: SharedArrayBuffer) => T)(new SharedArrayBuffer(array.byteLength));
  copy.set(array);
  return copy;
}
