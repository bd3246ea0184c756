/*
 * Wikidata time values as Tree-of-Traversals shows them to the LLM (amazon-science/tree-of-traversals
 * `wikidata/expand_edges.py`, `handle_wikidata_datetime`). The reference
 * formats with Python's strftime, so the day keeps its leading zero ("March 02, 1954") and the year is the
 * number as written (glibc's `%Y` does not pad years below 1000: "300 BCE").
 */

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'] as const;

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31] as const;

const isLeapYear = (year: number): boolean => (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;

/** English ordinal suffix: 1st, 2nd, 3rd, 4th, 11th, 12th, 13th, 21st, 111th. */
function ordinal(value: number): string {
  const lastTwo = value % 100;
  if (lastTwo >= 11 && lastTwo <= 13) return `${value}th`;
  const suffix = ({ 1: 'st', 2: 'nd', 3: 'rd' } as Record<number, string>)[value % 10] ?? 'th';
  return `${value}${suffix}`;
}

/**
 * Formats the lexical form of a Wikidata time (`1954-03-02T00:00:00Z`, `-0300-01-01T00:00:00Z`, as
 * `wdt:`/`ps:` give it) at its `wikibase:timePrecision`:
 *
 * | precision | output |
 * |---|---|
 * | 11 (day) | `March 02, 1954` |
 * | 10 (month) | `March 1954` |
 * | 9 (year) | `1954` |
 * | 8 (decade) | `1950s` (the year as stored, followed by "s") |
 * | 7 (century) | `20th century` (century of the year: (year − 1) / 100 + 1) |
 *
 * Negative years get ` BCE` after the text. Any other precision (millennia, hours, …) or a value that is not
 * a valid `YYYY-MM-DDThh:mm:ssZ` date with a four-digit year (what the reference's strptime accepts) returns the lexical form unchanged. There the reference returned the
 * value with its minus sign removed, which turned a BCE date into a CE one; we keep the sign.
 */
export function formatWikidataTime(lexical: string, precision: number): string {
  const match = /^([+-]?)(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})Z$/.exec(lexical.trim());
  if (!match) return lexical;
  const [, sign, yearText, monthText, dayText] = match as unknown as [string, string, string, string, string];
  const year = Number(yearText);
  const month = Number(monthText);
  const day = Number(dayText);
  // The reference parses with strptime, which rejects year 0, month or day 00 (Wikidata's "unknown" parts) and
  // impossible days; it then shows the raw value, and so do we.
  const daysInMonth = (DAYS_IN_MONTH[month - 1] ?? 0) + (month === 2 && isLeapYear(year) ? 1 : 0);
  if (year < 1 || month < 1 || month > 12 || day < 1 || day > daysInMonth) return lexical;
  const era = sign === '-' ? ' BCE' : '';
  const monthName = MONTHS[month - 1] as string;
  switch (precision) {
    case 11:
      return `${monthName} ${dayText}, ${year}${era}`;
    case 10:
      return `${monthName} ${year}${era}`;
    case 9:
      return `${year}${era}`;
    case 8:
      return `${year}s${era}`;
    case 7:
      return `${ordinal(Math.floor((year - 1) / 100) + 1)} century${era}`;
    default:
      return lexical;
  }
}
