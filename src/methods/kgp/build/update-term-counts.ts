import { countTerms, type TermCountMatrix } from '../../../text/term-count-matrix.js';

/**
 * `countTerms(texts)` from the counts of an earlier set of texts, counting only the new ones: `previousRowOf[row]` is
 * the row of text `row` in `previous` (the same text), −1 for a new text, whose words `textOf(row)` gives. The rows of
 * kept texts are copied with their term ids moved to the new vocabulary, which holds the terms of the current texts
 * only, sorted by code point as `countTerms` sorts it; since both vocabularies are sorted, the move keeps every row's
 * ids ascending. The result equals `countTerms` of all the texts, array for array.
 */
export function updateTermCounts(previous: TermCountMatrix, previousRowOf: Int32Array, textOf: (row: number) => string): TermCountMatrix {
  const rows = previousRowOf.length;
  const newRows: number[] = [];
  const used = new Uint8Array(previous.vocabulary.length);
  for (let row = 0; row < rows; row++) {
    const before = previousRowOf[row] as number;
    if (before < 0) {
      newRows.push(row);
      continue;
    }
    for (let entry = previous.rowPointers[before] as number; entry < (previous.rowPointers[before + 1] as number); entry++) used[previous.termIds[entry] as number] = 1;
  }
  const added = countTerms(newRows.map(textOf));

  // Merge the two sorted vocabularies (terms of kept rows, terms of new rows) into one, sorted and without repeats.
  const vocabulary: string[] = [];
  const idOfPrevious = new Int32Array(previous.vocabulary.length).fill(-1);
  const idOfAdded = new Int32Array(added.vocabulary.length);
  let left = 0;
  let right = 0;
  const skipUnused = (): void => {
    while (left < used.length && used[left] === 0) left++;
  };
  skipUnused();
  while (left < used.length || right < added.vocabulary.length) {
    const fromPrevious = left < used.length ? (previous.vocabulary[left] as string) : undefined;
    const fromAdded = right < added.vocabulary.length ? (added.vocabulary[right] as string) : undefined;
    const term = fromAdded === undefined || (fromPrevious !== undefined && fromPrevious <= fromAdded) ? (fromPrevious as string) : fromAdded;
    const id = vocabulary.length;
    vocabulary.push(term);
    if (fromPrevious === term) {
      idOfPrevious[left++] = id;
      skipUnused();
    }
    if (fromAdded === term) idOfAdded[right++] = id;
  }

  const rowPointers = new Int32Array(rows + 1);
  let entries = 0;
  for (let row = 0; row < rows; row++) {
    const before = previousRowOf[row] as number;
    entries += before < 0 ? 0 : (previous.rowPointers[before + 1] as number) - (previous.rowPointers[before] as number);
  }
  entries += added.termIds.length;
  const termIds = new Int32Array(entries);
  const counts = new Int32Array(entries);
  let written = 0;
  let addedRow = 0;
  for (let row = 0; row < rows; row++) {
    const before = previousRowOf[row] as number;
    const [source, sourceRow, ids] = before < 0 ? [added, addedRow++, idOfAdded] : [previous, before, idOfPrevious];
    for (let entry = source.rowPointers[sourceRow] as number; entry < (source.rowPointers[sourceRow + 1] as number); entry++) {
      termIds[written] = ids[source.termIds[entry] as number] as number;
      counts[written++] = source.counts[entry] as number;
    }
    rowPointers[row + 1] = written;
  }
  return { vocabulary, rowPointers, termIds, counts };
}
