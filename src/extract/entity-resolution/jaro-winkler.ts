// Match flags reused across calls: resolution compares millions of name pairs, and two allocations per
// call were most of the cost. Bounded: longer strings than these hold (rare for names) get flags of their own for
// the call, so one long string does not keep its size for the rest of the process.
const sharedLength = 256;
const leftShared = new Uint8Array(sharedLength);
const rightShared = new Uint8Array(sharedLength);

/**
 * Jaro–Winkler similarity of two strings, in [0, 1] (W. E. Winkler, "String Comparator Metrics and
 * Enhanced Decision Rules in the Fellegi–Sunter Model of Record Linkage", 1990): the Jaro score (matching
 * characters within half the longer length, and transpositions among them) raised by 0.1 per character
 * of common prefix, up to four. Made for short names with typos ("Sherlok" / "Sherlock" ≈ 0.97).
 * Compares UTF-16 code units, which is exact for the letters of normalized names.
 */
export function jaroWinkler(left: string, right: string): number {
  if (left === right) return 1;
  if (left.length === 0 || right.length === 0) return 0;
  const window = Math.max(0, Math.floor(Math.max(left.length, right.length) / 2) - 1);
  const leftMatched = left.length <= sharedLength ? leftShared.fill(0, 0, left.length) : new Uint8Array(left.length);
  const rightMatched = right.length <= sharedLength ? rightShared.fill(0, 0, right.length) : new Uint8Array(right.length);
  let matches = 0;
  for (let i = 0; i < left.length; i++) {
    const from = Math.max(0, i - window);
    const to = Math.min(right.length - 1, i + window);
    for (let j = from; j <= to; j++) {
      if (rightMatched[j] === 1 || left.charCodeAt(i) !== right.charCodeAt(j)) continue;
      leftMatched[i] = 1;
      rightMatched[j] = 1;
      matches++;
      break;
    }
  }
  if (matches === 0) return 0;
  let transpositions = 0;
  let j = 0;
  for (let i = 0; i < left.length; i++) {
    if (leftMatched[i] !== 1) continue;
    while (rightMatched[j] !== 1) j++;
    if (left.charCodeAt(i) !== right.charCodeAt(j)) transpositions++;
    j++;
  }
  const jaro = (matches / left.length + matches / right.length + (matches - transpositions / 2) / matches) / 3;
  let prefix = 0;
  while (prefix < 4 && prefix < left.length && prefix < right.length && left.charCodeAt(prefix) === right.charCodeAt(prefix)) prefix++;
  return jaro + prefix * 0.1 * (1 - jaro);
}
