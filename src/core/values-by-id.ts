import { positionsOf } from './positions-of.js';

/**
 * Values stored by id as two lists, `ids` and `values`, in the order their items came. An update's items come in the
 * order they did then (rows of the same table, new ones last), so each is found at its own position and only the rest
 * by id, through a map built the first time one is not. Stored as a JSON pair of lists, tens of thousands of such pairs
 * parse and stringify several times faster than a JSON object of them, and need no map at all when nothing moved.
 */
export class ValuesById {
  private indexById: Map<string, number> | undefined;
  private prefixOfCurrent = false;

  constructor(
    readonly ids: readonly string[],
    readonly values: readonly string[],
  ) {}

  /** The pairs of a record that held them as an object (how they were stored before). */
  static ofRecord(record: Readonly<Record<string, string>>): ValuesById {
    return new ValuesById(Object.keys(record), Object.values(record));
  }

  /** The lists of parsed JSON when they are two lists of strings of one length, else undefined. */
  static ofLists(ids: unknown, values: unknown): ValuesById | undefined {
    const strings = (list: unknown): list is string[] => Array.isArray(list) && list.every((value) => typeof value === 'string');
    return strings(ids) && strings(values) && ids.length === values.length ? new ValuesById(ids, values) : undefined;
  }

  get size(): number {
    return this.ids.length;
  }

  /**
   * Whether `ids` are the first of `current` (a list of distinct ids), in its order: then, for lookups whose `position`
   * is the id's place in `current`, an id at or past the end of `ids` is known not to be here, without the map of every
   * id that finding it absent otherwise builds (an update's new entities come after the stored ones).
   */
  alignTo(current: readonly string[]): boolean {
    let aligned = current.length >= this.ids.length;
    for (let index = 0; aligned && index < this.ids.length; index++) aligned = this.ids[index] === current[index];
    this.prefixOfCurrent = aligned;
    return aligned;
  }

  /** The value stored for `id`, looked for first at `position`. */
  get(id: string, position: number): string | undefined {
    const index = this.indexOf(id, position);
    return index < 0 ? undefined : this.values[index];
  }

  /**
   * Where `id` is in `ids` (−1: not there), looked for first at `position`: a list stored beside these in the same order
   * (another value per id) is read at the same place, without a map of its own.
   */
  indexOf(id: string, position: number): number {
    if (this.ids[position] === id) return position;
    // `position` is then the id's place in the list these ids begin: one past their end is not among them.
    if (this.prefixOfCurrent && position >= this.ids.length) return -1;
    this.indexById ??= positionsOf(this.ids);
    return this.indexById.get(id) ?? -1;
  }
}
