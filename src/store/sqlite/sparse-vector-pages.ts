/*
 * Sparse vectors in SQLite, a page of consecutive row ids per blob. Reading a space row by row costs a JS
 * array and a Buffer per row (75,000 2Wiki fact vectors: most of a second); a page holds `pageSize` rows, so a
 * whole space is a few hundred blobs copied into CSR arrays.
 *
 * A page blob, little-endian as typed arrays are on every platform Node runs on:
 *   u32 lengths[pageSize]   per slot: its number of non-zeros + 1, or 0 for an empty slot (no vector)
 *   f32 values[total]       the slots' non-zero values, slot after slot, exactly as given
 *   u16|u32 coordinates[total]  their coordinates, ascending within a slot (u16 while the dimension fits)
 * An all-zero vector is a present slot with no entries (length 1).
 */

/** Rows per page: row id `vid` lives in page `vid >> pageBits`, slot `vid & (pageSize - 1)`. */
export const pageBits = 8;
export const pageSize = 1 << pageBits;

/** One slot's entries (views into a page or a fresh encoding). */
export interface SparseSlot {
  values: Float32Array;
  coordinates: Uint16Array | Uint32Array;
}

function coordinateBytes(dimensions: number): 2 | 4 {
  return dimensions <= 65_536 ? 2 : 4;
}

/** The non-zero coordinates of `vector` as a slot. */
export function sparseSlot(vector: Float32Array): SparseSlot {
  let nonZeros = 0;
  for (let index = 0; index < vector.length; index++) if (vector[index] !== 0) nonZeros++;
  const values = new Float32Array(nonZeros);
  const coordinates = coordinateBytes(vector.length) === 2 ? new Uint16Array(nonZeros) : new Uint32Array(nonZeros);
  let position = 0;
  for (let index = 0; index < vector.length; index++) {
    const value = vector[index] as number;
    if (value === 0) continue;
    values[position] = value;
    coordinates[position] = index;
    position++;
  }
  return { values, coordinates };
}

/** A view of `blob` whose start is aligned for typed arrays (a copy only when SQLite's buffer is not). */
function aligned(blob: Uint8Array): Uint8Array {
  return blob.byteOffset % 4 === 0 ? blob : Uint8Array.from(blob);
}

/** A decoded page: per-slot lengths (non-zeros + 1, 0 = empty) and all entries. */
export interface SparsePage {
  lengths: Uint32Array;
  values: Float32Array;
  coordinates: Uint16Array | Uint32Array;
}

export function decodePage(blob: Uint8Array, dimensions: number): SparsePage {
  const bytes = aligned(blob);
  const lengths = new Uint32Array(bytes.buffer, bytes.byteOffset, pageSize);
  let total = 0;
  for (let slot = 0; slot < pageSize; slot++) if ((lengths[slot] as number) > 0) total += (lengths[slot] as number) - 1;
  const valuesOffset = bytes.byteOffset + 4 * pageSize;
  const values = new Float32Array(bytes.buffer, valuesOffset, total);
  const coordinates =
    coordinateBytes(dimensions) === 2 ? new Uint16Array(bytes.buffer, valuesOffset + 4 * total, total) : new Uint32Array(bytes.buffer, valuesOffset + 4 * total, total);
  return { lengths, values, coordinates };
}

/** The slots of a page (undefined where empty). */
export function pageSlots(page: SparsePage): Array<SparseSlot | undefined> {
  const slots: Array<SparseSlot | undefined> = [];
  let offset = 0;
  for (let slot = 0; slot < pageSize; slot++) {
    const length = page.lengths[slot] as number;
    if (length === 0) {
      slots.push(undefined);
      continue;
    }
    slots.push({ values: page.values.subarray(offset, offset + length - 1), coordinates: page.coordinates.subarray(offset, offset + length - 1) });
    offset += length - 1;
  }
  return slots;
}

/** Encodes slots as a page blob; undefined when every slot is empty. */
export function encodePage(slots: ReadonlyArray<SparseSlot | undefined>, dimensions: number): Buffer | undefined {
  let total = 0;
  let present = 0;
  for (const slot of slots) {
    if (!slot) continue;
    present++;
    total += slot.values.length;
  }
  if (present === 0) return undefined;
  const width = coordinateBytes(dimensions);
  const buffer = new ArrayBuffer(4 * pageSize + (4 + width) * total);
  const lengths = new Uint32Array(buffer, 0, pageSize);
  const values = new Float32Array(buffer, 4 * pageSize, total);
  const coordinates = width === 2 ? new Uint16Array(buffer, 4 * pageSize + 4 * total, total) : new Uint32Array(buffer, 4 * pageSize + 4 * total, total);
  let offset = 0;
  slots.forEach((slot, index) => {
    if (!slot) return;
    lengths[index] = slot.values.length + 1;
    values.set(slot.values, offset);
    coordinates.set(slot.coordinates, offset);
    offset += slot.values.length;
  });
  return Buffer.from(buffer);
}
