/** English month names, lower case, in calendar order. */
export const monthNames: readonly string[] = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];

/** Their usual abbreviations, lower case, without the dot ("Sept." → "sept"). */
export const monthAbbreviations: readonly string[] = ['jan', 'feb', 'mar', 'apr', 'jun', 'jul', 'aug', 'sep', 'sept', 'oct', 'nov', 'dec'];

/** English weekday names, lower case, Monday first. */
export const weekdayNames: readonly string[] = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'];
