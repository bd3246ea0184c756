/*
 * Row versions: how one table holds every generation of a workspace. A row carries the generation that wrote it
 * (`generation`) and the one that replaced or deleted it (`retired`, NULL while it lives); generation g sees the rows
 * written at or before g and not retired by g. A writer writes the workspace's newest generation (its draft, g + 1
 * over the published g): a new value is a new row version of generation g + 1 (the same key, hid and vid as the
 * version it replaces, which gets `retired = g + 1`), a deleted row is retired, and a row the draft itself wrote is
 * changed or deleted in place. Readers of g never see the draft's rows; publishing switches the workspace's pointer;
 * then the retired versions are deleted (`collectRetiredRows`), and a discarded draft is undone (`discardPostgresDraft`).
 * Statements take the workspace as $1 and the generation as $2.
 */

/** The condition that a row (of table alias `alias`, when given) is seen by generation `generation`. */
export function visibleAt(alias?: string, generation = '$2'): string {
  const column = (name: string): string => (alias === undefined ? name : `${alias}.${name}`);
  return `${column('generation')} <= ${generation} AND (${column('retired')} IS NULL OR ${column('retired')} > ${generation})`;
}

/**
 * A statement that deletes, in generation $2, the rows of `table` (a workspace's, $1) that `condition` selects:
 * rows the generation wrote are deleted, older ones retired. Yields `returning` of each row, or with `returning`
 * undefined, how many rows it deleted (`n`).
 */
export function versionedDelete(table: string, condition: string, returning?: string): string {
  const columns = returning ?? '1 AS deleted';
  return (
    `WITH own AS (DELETE FROM ${table} WHERE workspace = $1 AND generation = $2 AND retired IS NULL AND ${condition} RETURNING ${columns}), ` +
    `older AS (UPDATE ${table} SET retired = $2 WHERE workspace = $1 AND generation < $2 AND (retired IS NULL OR retired > $2) AND ${condition} RETURNING ${columns}) ` +
    (returning === undefined ? 'SELECT (SELECT count(*) FROM own) + (SELECT count(*) FROM older) AS n' : 'SELECT * FROM own UNION ALL SELECT * FROM older')
  );
}

/**
 * A statement part (a CTE body) that retires, in generation $2, the older visible versions of the rows of `table`
 * that `condition` selects: what writing their new versions replaces.
 */
export function retireOlder(table: string, condition: string): string {
  return `UPDATE ${table} SET retired = $2 WHERE workspace = $1 AND generation < $2 AND (retired IS NULL OR retired > $2) AND ${condition}`;
}
