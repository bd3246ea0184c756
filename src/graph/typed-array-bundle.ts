/** The typed arrays a bundle can hold. */
export type BundledArray = Int32Array | Uint8Array | Uint16Array | Float32Array | Float64Array;

const constructors = { Int32Array, Uint8Array, Uint16Array, Float32Array, Float64Array } as const;

type BundledArrayType = keyof typeof constructors;

/** Named typed arrays and a JSON value, stored together as one byte string (e.g. one `Store` blob). */
export interface TypedArrayBundle {
  json: unknown;
  arrays: Record<string, BundledArray>;
}

interface BundleHeader {
  json: unknown;
  arrays: Array<{ name: string; type: BundledArrayType; byteOffset: number; length: number }>;
}

const alignment = 8;
const align = (offset: number): number => Math.ceil(offset / alignment) * alignment;

/**
 * Packs a bundle as: header length (uint32, little-endian), the UTF-8 JSON header (the JSON value and each
 * array's name, type, offset and length), then each array's bytes at an 8-byte-aligned offset. Typed
 * arrays use the platform's byte order; every platform Node supports is little-endian.
 */
export function packTypedArrays(bundle: TypedArrayBundle): Uint8Array {
  const entries = Object.entries(bundle.arrays);
  const header: BundleHeader = { json: bundle.json, arrays: [] };
  let offset = 0;
  for (const [name, array] of entries) {
    header.arrays.push({ name, type: array.constructor.name as BundledArrayType, byteOffset: offset, length: array.length });
    offset = align(offset + array.byteLength);
  }
  const headerBytes = new TextEncoder().encode(JSON.stringify(header));
  const dataStart = align(4 + headerBytes.length);
  const bytes = new Uint8Array(dataStart + offset);
  new DataView(bytes.buffer).setUint32(0, headerBytes.length, true);
  bytes.set(headerBytes, 4);
  entries.forEach(([, array], index) => {
    bytes.set(new Uint8Array(array.buffer, array.byteOffset, array.byteLength), dataStart + (header.arrays[index]?.byteOffset ?? 0));
  });
  return bytes;
}

/**
 * Reads a bundle written by {@link packTypedArrays}. The bytes are copied once into an aligned buffer (a
 * blob read from a store may start at any offset), and the arrays are views into that copy.
 */
export function unpackTypedArrays(packed: Uint8Array): TypedArrayBundle {
  if (packed.length < 4) throw new RangeError('unpackTypedArrays: fewer than 4 bytes');
  const headerLength = new DataView(packed.buffer, packed.byteOffset, packed.byteLength).getUint32(0, true);
  const header = JSON.parse(new TextDecoder().decode(packed.subarray(4, 4 + headerLength))) as BundleHeader;
  const dataStart = align(4 + headerLength);
  const copy = new Uint8Array(packed.length);
  copy.set(packed);
  const arrays: Record<string, BundledArray> = {};
  for (const { name, type, byteOffset, length } of header.arrays) {
    const Constructor = constructors[type];
    if (!Constructor) throw new RangeError(`unpackTypedArrays: unknown array type ${String(type)}`);
    const start = dataStart + byteOffset;
    if (start + length * Constructor.BYTES_PER_ELEMENT > copy.length) throw new RangeError(`unpackTypedArrays: array ${name} runs past the end`);
    arrays[name] = new Constructor(copy.buffer, start, length);
  }
  return { json: header.json, arrays };
}
