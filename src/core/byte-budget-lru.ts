/** Options of {@link ByteBudgetLru}. */
export interface ByteBudgetLruOptions<K, V> {
  /** The most bytes the entries may hold together (as `sizeOf` counts them); 0 keeps nothing. */
  maxBytes: number;
  /** What one entry holds in memory, in bytes: its data and its bookkeeping. */
  sizeOf: (value: V, key: K) => number;
}

/**
 * A least-recently-used cache bounded by bytes rather than entries: entries differ in size by orders of magnitude
 * (a rare word's postings are a few bytes, a common word's megabytes), so only a byte budget bounds the memory.
 * Setting an entry makes room by dropping the least recently read or set ones; an entry larger than the whole
 * budget is not kept. A Map keeps the recency order: reading an entry moves it to the end.
 */
export class ByteBudgetLru<K, V> {
  private readonly entries = new Map<K, { value: V; bytes: number }>();
  private heldBytes = 0;
  readonly maxBytes: number;
  private readonly sizeOf: (value: V, key: K) => number;

  constructor(options: ByteBudgetLruOptions<K, V>) {
    if (!Number.isFinite(options.maxBytes) || options.maxBytes < 0) throw new RangeError(`a cache budget must be a finite number of bytes, not ${options.maxBytes}`);
    this.maxBytes = options.maxBytes;
    this.sizeOf = options.sizeOf;
  }

  /** Bytes the entries hold now (never more than `maxBytes`). */
  get bytes(): number {
    return this.heldBytes;
  }

  get size(): number {
    return this.entries.size;
  }

  /** The entry's value, which becomes the most recently used. */
  get(key: K): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.value;
  }

  /** Whether the entry is held, without making it more recent. */
  has(key: K): boolean {
    return this.entries.has(key);
  }

  /** Keeps `value` as the most recently used entry, dropping the least recently used ones it needs room from. */
  set(key: K, value: V): void {
    this.delete(key);
    const bytes = this.sizeOf(value, key);
    if (bytes > this.maxBytes) return;
    for (const [oldest, entry] of this.entries) {
      if (this.heldBytes + bytes <= this.maxBytes) break;
      this.entries.delete(oldest);
      this.heldBytes -= entry.bytes;
    }
    this.entries.set(key, { value, bytes });
    this.heldBytes += bytes;
  }

  delete(key: K): boolean {
    const entry = this.entries.get(key);
    if (!entry) return false;
    this.entries.delete(key);
    this.heldBytes -= entry.bytes;
    return true;
  }

  clear(): void {
    this.entries.clear();
    this.heldBytes = 0;
  }

  /** The keys from least to most recently used. */
  keys(): IterableIterator<K> {
    return this.entries.keys();
  }
}
