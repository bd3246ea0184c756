/** A table as `[Data: …]` references name it, lowercased: `entities`, `relationships`, `claims`, `reports`, `sources`. */
export type ReferencedTable = string;

const referenceGroup = /\[Data:([^\]]*)\]/g;
const tableList = /^(\s*)([A-Za-z][A-Za-z ]*?)(\s*)\(([^)]*)\)(\s*)$/;

/**
 * Rewrites the record numbers of GraphRAG's `[Data: Entities (3, 8); Relationships (12, +more)]` references: each
 * number is passed to `renumber` with its table (lowercased), and replaced by what it returns (kept when it returns
 * undefined). A report written from rows numbered by one run is kept by a later run that numbers the same rows
 * differently; its references must name the rows by their new numbers.
 */
export function renumberDataReferences(text: string, renumber: (table: ReferencedTable, label: string) => string | undefined): string {
  return text.replace(referenceGroup, (whole: string, body: string) => {
    const lists = body.split(';').map((list) => {
      const match = tableList.exec(list);
      if (!match) return list;
      const [, before = '', table = '', between = '', labels = '', after = ''] = match;
      const renumbered = labels.split(',').map((label) => {
        const trimmed = label.trim();
        if (trimmed === '' || trimmed.startsWith('+')) return label;
        const replacement = renumber(table.toLowerCase(), trimmed);
        return replacement === undefined ? label : label.replace(trimmed, replacement);
      });
      return `${before}${table}${between}(${renumbered.join(',')})${after}`;
    });
    return whole.replace(body, lists.join(';'));
  });
}

/** Every `(table, number)` a text's `[Data: …]` references cite, tables lowercased, `+more` left out. */
export function citedDataReferences(text: string): Array<[ReferencedTable, string]> {
  const cited: Array<[ReferencedTable, string]> = [];
  renumberDataReferences(text, (table, label) => {
    cited.push([table, label]);
    return undefined;
  });
  return cited;
}

/** `text` without its `[Data: …]` references: what a cited statement says, where a reference's numbers are no words. */
export function withoutDataReferences(text: string): string {
  return text.replace(referenceGroup, ' ');
}
