import type { Metadata } from '../../core/types.js';

/**
 * How many levels of objects and arrays a document's metadata may hold, the metadata object itself being level 1.
 * Every walk over metadata after loading (the store's JSON encoding, exports) recurses; a record nested thousands
 * deep overflowed the stack and stopped the whole run. No real metadata needs more.
 */
export const maxMetadataDepth = 32;

/** The warning for metadata cut to {@link maxMetadataDepth} levels; `whose` names it ("the metadata of record #7 nests"). */
export function tooDeepMessage(whose: string, several: boolean): string {
  return `${whose} deeper than ${maxMetadataDepth} levels, so the deeper values were replaced by null and the rest was indexed; flatten those fields if you need ${several ? 'them' : 'it'} whole`;
}

/** What {@link boundMetadataDepth} returns. */
export interface BoundedMetadata {
  /** The metadata as given when it was within the limit, else a copy with every deeper object or array set to `null`. */
  metadata: Metadata;
  /** How many objects or arrays were cut (a reference to an object that holds it counts as one). */
  cut: number;
}

/**
 * Bounds the nesting of `metadata` to {@link maxMetadataDepth} levels. Iterative, so any depth is safe; a value that
 * refers back to an object holding it (possible only for documents handed over in memory) is cut too, where
 * JSON encoding would have thrown.
 */
export function boundMetadataDepth(metadata: Metadata, maxDepth: number = maxMetadataDepth): BoundedMetadata {
  if (withinDepth(metadata, maxDepth)) return { metadata, cut: 0 };
  return copyWithinDepth(metadata, maxDepth);
}

/** Containers that JSON encodes by their entries; a value with `toJSON` (a Date) encodes as itself, without nesting. */
function isContainer(value: unknown): value is object {
  return typeof value === 'object' && value !== null && typeof (value as { toJSON?: unknown }).toJSON !== 'function';
}

function entriesOf(value: object): Array<[string, unknown]> {
  return Array.isArray(value) ? value.map((item, index): [string, unknown] => [String(index), item]) : Object.entries(value);
}

/**
 * Whether no container lies deeper than `maxDepth` and none holds itself. An object met again is walked again only
 * from a deeper level than before, so objects shared many times cost at most `maxDepth` walks each.
 */
function withinDepth(root: object, maxDepth: number): boolean {
  const shallowestSeen = new Map<object, number>([[root, 1]]);
  const stack: Array<{ value: object; level: number }> = [{ value: root, level: 1 }];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    for (const [, child] of entriesOf(next.value)) {
      if (!isContainer(child)) continue;
      const level = next.level + 1;
      if (level > maxDepth) return false;
      const seen = shallowestSeen.get(child);
      if (seen !== undefined && seen >= level) continue;
      shallowestSeen.set(child, level);
      stack.push({ value: child, level });
    }
  }
  // A container that holds itself would have been walked deeper and deeper until it passed the limit.
  return true;
}

interface CopyFrame {
  source: object;
  target: Record<string, unknown> | unknown[];
  entries: Array<[string, unknown]>;
  next: number;
}

function copyWithinDepth(root: Metadata, maxDepth: number): BoundedMetadata {
  let cut = 0;
  const copy: Metadata = {};
  const onPath = new Set<object>([root]);
  const stack: CopyFrame[] = [{ source: root, target: copy, entries: entriesOf(root), next: 0 }];
  for (let frame = stack.at(-1); frame !== undefined; frame = stack.at(-1)) {
    const entry = frame.entries[frame.next];
    if (entry === undefined) {
      onPath.delete(frame.source);
      stack.pop();
      continue;
    }
    frame.next += 1;
    const [key, value] = entry;
    if (!isContainer(value)) {
      setOwn(frame.target, key, value);
      continue;
    }
    if (stack.length >= maxDepth || onPath.has(value)) {
      setOwn(frame.target, key, null);
      cut += 1;
      continue;
    }
    const target: Record<string, unknown> | unknown[] = Array.isArray(value) ? [] : {};
    setOwn(frame.target, key, target);
    onPath.add(value);
    stack.push({ source: value, target, entries: entriesOf(value), next: 0 });
  }
  return { metadata: copy, cut };
}

/** Sets an own property, so a record's `__proto__` field stays a field and never becomes the copy's prototype. */
function setOwn(target: Record<string, unknown> | unknown[], key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}
