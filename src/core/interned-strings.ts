import { positionsOf } from './positions-of.js';

/**
 * Strings numbered in the order first met: a string's number is its index in `values`. Lists of such numbers stand in
 * for lists of strings in typed arrays.
 */
export class InternedStrings {
  /** Built on the first lookup: strings appended as known to be new need none. */
  private numbers: Map<string, number> | undefined;

  /** `values` are numbered as given (each once). */
  constructor(readonly values: string[] = []) {}

  /** The number of `value`, numbered next when it is new. */
  numberOf(value: string): number {
    this.numbers ??= positionsOf(this.values);
    let number = this.numbers.get(value);
    if (number === undefined) {
      number = this.values.length;
      this.numbers.set(value, number);
      this.values.push(value);
    }
    return number;
  }

  /** Numbers `value` next, without looking it up: the caller knows that it is not here yet. */
  appendNew(value: string): number {
    const number = this.values.length;
    this.values.push(value);
    this.numbers?.set(value, number);
    return number;
  }
}
