/**
 * Strings numbered in the order first met: a string's number is its index in `values`. Lists of such numbers stand in
 * for lists of strings in typed arrays.
 */
export class InternedStrings {
  private readonly numbers = new Map<string, number>();

  /** `values` are numbered as given (each once). */
  constructor(readonly values: string[] = []) {
    values.forEach((value, index) => this.numbers.set(value, index));
  }

  /** The number of `value`, numbered next when it is new. */
  numberOf(value: string): number {
    let number = this.numbers.get(value);
    if (number === undefined) {
      number = this.values.length;
      this.numbers.set(value, number);
      this.values.push(value);
    }
    return number;
  }
}
