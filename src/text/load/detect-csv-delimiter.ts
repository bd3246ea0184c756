/** The delimiters a `.csv` file is checked for, in order of preference on a tie. */
const candidates = [',', ';', '\t'] as const;

/** Records after the header that break a tie between delimiters the header holds equally often. */
const sampleRecords = 20;
/** Characters read at most: the header and the sample, never the whole of a large file. */
const sampleCharacters = 64 * 1024;

/**
 * The delimiter of a CSV file — `,`, `;` (spreadsheets in locales whose decimal mark is a comma) or tab —
 * read from its header record: the candidate found there, outside quoted fields. When the header holds
 * more than one, the one that splits the next records into as many cells as the header wins (a comma
 * inside unquoted text varies from row to row; the true delimiter does not), then the one the header
 * holds most often, then the order above. A header without any candidate (one column) gives `,`.
 */
export function detectCsvDelimiter(text: string): string {
  const records = countPerRecord(text);
  const header = records[0];
  if (header === undefined) return ',';
  let best: { delimiter: string; consistent: number; count: number } | undefined;
  for (const [index, delimiter] of candidates.entries()) {
    const count = header[index] ?? 0;
    if (count === 0) continue;
    const consistent = records.slice(1).filter((record) => record[index] === count).length;
    if (best === undefined || consistent > best.consistent || (consistent === best.consistent && count > best.count)) best = { delimiter, consistent, count };
  }
  return best?.delimiter ?? ',';
}

/**
 * For the header and the first sample records, how often each candidate occurs outside quoted fields.
 * A quote opens a quoted field only at the start of a field (after a line break or any candidate), so a
 * stray quote inside text (`5" disk`) does not hide the rest of the line; `""` inside a quoted field is
 * an escaped quote. Blank lines are skipped.
 */
function countPerRecord(text: string): number[][] {
  const records: number[][] = [];
  let counts = candidates.map(() => 0);
  let quoted = false;
  let fieldStart = true;
  let blank = true;
  const end = Math.min(text.length, sampleCharacters);
  for (let index = text.charCodeAt(0) === 0xfeff ? 1 : 0; index < end && records.length <= sampleRecords; index++) {
    const character = text[index] as string;
    if (quoted) {
      if (character === '"') {
        if (text[index + 1] === '"') index++;
        else quoted = false;
      }
      continue;
    }
    if (character === '\n' || character === '\r') {
      if (!blank) records.push(counts);
      counts = candidates.map(() => 0);
      fieldStart = true;
      blank = true;
      continue;
    }
    blank = false;
    const candidate = candidates.indexOf(character as (typeof candidates)[number]);
    if (candidate !== -1) {
      counts[candidate] = (counts[candidate] ?? 0) + 1;
      fieldStart = true;
      continue;
    }
    if (character === '"' && fieldStart) quoted = true;
    fieldStart = false;
  }
  if (!blank && records.length <= sampleRecords) records.push(counts);
  return records;
}
