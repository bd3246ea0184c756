/*
 * One sparse vector as an SQLite blob: its n non-zero values (float32, exactly as given) followed by their n
 * coordinates, ascending (uint16 while the dimension fits, else uint32), both little-endian as typed arrays
 * are on every platform Node runs on. n follows from the blob's length. A 1024-d local-embedder phrase vector
 * with 27 non-zeros takes 162 bytes instead of 4,096.
 */

/** Bytes per stored coordinate for vectors of `dimensions`. */
export function coordinateBytes(dimensions: number): 2 | 4 {
  return dimensions <= 65_536 ? 2 : 4;
}

/** Encodes the non-zero coordinates of `vector`. */
export function encodeSparseVector(vector: Float32Array): Buffer {
  let nonZeros = 0;
  for (let index = 0; index < vector.length; index++) if (vector[index] !== 0) nonZeros++;
  const width = coordinateBytes(vector.length);
  const buffer = new ArrayBuffer(nonZeros * (4 + width));
  const values = new Float32Array(buffer, 0, nonZeros);
  const coordinates = width === 2 ? new Uint16Array(buffer, 4 * nonZeros, nonZeros) : new Uint32Array(buffer, 4 * nonZeros, nonZeros);
  let position = 0;
  for (let index = 0; index < vector.length; index++) {
    const value = vector[index] as number;
    if (value === 0) continue;
    values[position] = value;
    coordinates[position] = index;
    position++;
  }
  return Buffer.from(buffer);
}

/** Number of non-zeros in an encoded vector. */
export function sparseVectorLength(blob: Uint8Array, dimensions: number): number {
  return blob.byteLength / (4 + coordinateBytes(dimensions));
}

/** A view of `blob` whose start is aligned for typed arrays (a copy only when SQLite's buffer is not). */
function aligned(blob: Uint8Array): Uint8Array {
  return blob.byteOffset % 4 === 0 ? blob : Uint8Array.from(blob);
}

/**
 * Appends an encoded vector to sparse rows under construction: its values at `values[at ..]` and its
 * coordinates at `columnIndices[at ..]`; returns the number of entries written.
 */
export function decodeSparseVectorInto(blob: Uint8Array, dimensions: number, columnIndices: Int32Array, values: Float32Array, at: number): number {
  const bytes = aligned(blob);
  const count = sparseVectorLength(bytes, dimensions);
  values.set(new Float32Array(bytes.buffer, bytes.byteOffset, count), at);
  const coordinates = coordinateBytes(dimensions) === 2 ? new Uint16Array(bytes.buffer, bytes.byteOffset + 4 * count, count) : new Uint32Array(bytes.buffer, bytes.byteOffset + 4 * count, count);
  columnIndices.set(coordinates, at);
  return count;
}

/** Writes an encoded vector into a zeroed dense row. */
export function decodeSparseVectorDense(blob: Uint8Array, row: Float32Array): void {
  const bytes = aligned(blob);
  const count = sparseVectorLength(bytes, row.length);
  const values = new Float32Array(bytes.buffer, bytes.byteOffset, count);
  const coordinates = coordinateBytes(row.length) === 2 ? new Uint16Array(bytes.buffer, bytes.byteOffset + 4 * count, count) : new Uint32Array(bytes.buffer, bytes.byteOffset + 4 * count, count);
  for (let entry = 0; entry < count; entry++) row[coordinates[entry] as number] = values[entry] as number;
}
