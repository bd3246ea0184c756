import { inflateRawSync } from 'node:zlib';

/** The files of a ZIP archive, by name, decompressed when read. */
export interface ZipArchive {
  /** Every file name in the central directory, in archive order. */
  readonly names: readonly string[];
  /** The bytes of the file `name`, or undefined when the archive has no such file. Throws on a damaged entry. */
  read(name: string): Uint8Array | undefined;
  /** The size of the file `name` once unpacked, as the archive's directory declares it, without unpacking it. */
  unpackedSize(name: string): number | undefined;
}

const endOfCentralDirectorySignature = 0x06054b50;
const centralDirectorySignature = 0x02014b50;
const localHeaderSignature = 0x04034b50;
const endOfCentralDirectorySize = 22;
const longestComment = 0xffff;

interface ZipEntry {
  flags: number;
  method: number;
  compressedSize: number;
  size: number;
  localHeaderOffset: number;
}

/**
 * Reads a ZIP archive (PKWARE APPNOTE: the end-of-central-directory record, the central directory, local
 * headers) with Node's own inflate, for office documents, which are ZIP archives of XML parts. Stored and
 * deflated entries are read; ZIP64, encrypted entries and other compression methods throw an error saying
 * which. `maxEntryBytes` bounds a decompressed entry, so a small archive cannot inflate to gigabytes.
 */
export function openZipArchive(bytes: Uint8Array, maxEntryBytes = 256 * 1024 * 1024): ZipArchive {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const end = findEndOfCentralDirectory(view);
  const count = view.getUint16(end + 10, true);
  const directoryOffset = view.getUint32(end + 16, true);
  if (count === 0xffff || directoryOffset === 0xffffffff) throw new Error('it is a ZIP64 archive, which is not supported');
  const entries = new Map<string, ZipEntry>();
  const decoder = new TextDecoder();
  let position = directoryOffset;
  for (let index = 0; index < count; index++) {
    if (position + 46 > bytes.length || view.getUint32(position, true) !== centralDirectorySignature) {
      throw new Error('its central directory is damaged');
    }
    const nameLength = view.getUint16(position + 28, true);
    const name = decoder.decode(bytes.subarray(position + 46, position + 46 + nameLength));
    if (!entries.has(name)) {
      entries.set(name, {
        flags: view.getUint16(position + 8, true),
        method: view.getUint16(position + 10, true),
        compressedSize: view.getUint32(position + 20, true),
        size: view.getUint32(position + 24, true),
        localHeaderOffset: view.getUint32(position + 42, true),
      });
    }
    position += 46 + nameLength + view.getUint16(position + 30, true) + view.getUint16(position + 32, true);
  }
  return {
    names: [...entries.keys()],
    unpackedSize: (name) => entries.get(name)?.size,
    read(name) {
      const entry = entries.get(name);
      if (entry === undefined) return undefined;
      if ((entry.flags & 1) !== 0) throw new Error(`${name} is encrypted`);
      const local = entry.localHeaderOffset;
      if (local + 30 > bytes.length || view.getUint32(local, true) !== localHeaderSignature) throw new Error(`the entry ${name} is damaged`);
      const start = local + 30 + view.getUint16(local + 26, true) + view.getUint16(local + 28, true);
      if (start + entry.compressedSize > bytes.length) throw new Error(`the entry ${name} is cut short`);
      const data = bytes.subarray(start, start + entry.compressedSize);
      if (entry.method === 0) return data;
      if (entry.method !== 8) throw new Error(`${name} uses compression method ${entry.method}, which is not supported`);
      if (entry.size > maxEntryBytes) throw new Error(`${name} unpacks to ${megabytes(entry.size)}, more than the ${megabytes(maxEntryBytes)} kgrag reads`);
      try {
        return inflateRawSync(data, { maxOutputLength: maxEntryBytes });
      } catch (error) {
        throw new Error(`the entry ${name} cannot be decompressed (${error instanceof Error ? error.message : String(error)})`, { cause: error });
      }
    },
  };
}

function megabytes(bytes: number): string {
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

/** Offset of the end-of-central-directory record: the last one, searched back over the longest comment. */
function findEndOfCentralDirectory(view: DataView): number {
  const lowest = Math.max(0, view.byteLength - endOfCentralDirectorySize - longestComment);
  for (let offset = view.byteLength - endOfCentralDirectorySize; offset >= lowest; offset--) {
    if (view.getUint32(offset, true) === endOfCentralDirectorySignature) return offset;
  }
  throw new Error('it is not a ZIP archive');
}
