import type { BuiltInTableName } from './schema.js';

/*
 * The index schema's history, written once for every backend: each version says what changed in terms of the schema
 * (tables, columns, indexes, vector spaces), and each driver carries the steps out in its SQL. A new store is created
 * from `schema.ts` at the newest version; an older one runs the steps of the versions it lacks.
 */

/** One change of the schema. */
export type MigrationStep =
  /** Creates a table of `schema.ts` (as it is now) unless it exists. */
  | { kind: 'createTable'; table: BuiltInTableName }
  /** Adds a column of `schema.ts` to an existing table unless it has it. */
  | { kind: 'addColumn'; table: BuiltInTableName; column: string }
  /** Drops a secondary index over `columns` of a table. */
  | { kind: 'dropIndex'; table: BuiltInTableName; columns: readonly string[] }
  /** Drops a table (by its SQL name) that the schema no longer has, with its rows. */
  | { kind: 'dropTable'; sqlName: string }
  /** Drops a vector space the index no longer uses, with its vectors. */
  | { kind: 'dropVectorSpace'; space: string }
  /**
   * SQLite only: rebuilds the FTS5 indexes from their tables (what they store changed). Postgres computes its BM25
   * postings in kgrag from the rows, and has them right since its first version.
   */
  | { kind: 'rebuildFullText' }
  /** SQLite only: rewrites the file once, so that bytes of rows deleted by an older kgrag are gone. */
  | { kind: 'compact' }
  /**
   * Postgres only: rows become versions (the generation that wrote a row and the one that retired it), so that an
   * update writes the rows it changes instead of copying the index; a database keeps each workspace's published
   * generation, and a draft restarts from it.
   */
  | { kind: 'rowVersions' }
  /**
   * Postgres only: the tables of index jobs (jobs, their uploaded files and event logs), which every server on the
   * database shares; SQLite's jobs stay files of the one server that serves the workspace.
   */
  | { kind: 'jobTables' };

/** What one schema version changed. */
export interface StoreMigration {
  version: number;
  /** Why, for readers of the history. */
  description: string;
  steps: readonly MigrationStep[];
}

/** Every schema version after the first, oldest first. */
export const storeMigrations: readonly StoreMigration[] = [
  {
    version: 2,
    description: 'full-text indexes hold text without stopwords (BM25 document lengths as in classic IR)',
    steps: [{ kind: 'rebuildFullText' }],
  },
  { version: 3, description: 'reports.error records why an LLM report failed', steps: [{ kind: 'addColumn', table: 'reports', column: 'error' }] },
  {
    version: 4,
    description:
      'vector spaces may be sparse (layout in their description; dense spaces of version 3 are read as they are, and an older kgrag must not open a file whose spaces it cannot read); the unused indexes on relations.source and relations.target are dropped',
    steps: [
      { kind: 'dropIndex', table: 'relations', columns: ['source'] },
      { kind: 'dropIndex', table: 'relations', columns: ['target'] },
    ],
  },
  {
    version: 5,
    description:
      "nothing of a deleted row survives: SQLite's full-text indexes become plain contentless FTS5 tables with `secure-delete` on (a `contentless_delete` table kept a deleted row's terms behind a tombstone), rebuilt, and the file rewritten once; the LLM cache's source tags get their table",
    steps: [{ kind: 'rebuildFullText' }, { kind: 'createTable', table: 'llmCacheSources' }, { kind: 'compact' }],
  },
  { version: 6, description: 'external ids of imported records (`externalIds`)', steps: [{ kind: 'createTable', table: 'externalIds' }] },
  {
    version: 7,
    description: 'the chunk_edges table, which nothing wrote, and the relations vector space, which nothing read, are dropped',
    steps: [
      { kind: 'dropTable', sqlName: 'chunk_edges' },
      { kind: 'dropVectorSpace', space: 'relations' },
    ],
  },
  {
    version: 8,
    description:
      "SQLite's sparse spaces keep the postings of appended rows in a tail table beside the stored postings (an append no longer rewrites every posting list): an older kgrag, which reads only the stored postings, must not open the file",
    steps: [],
  },
  {
    version: 9,
    description:
      "Postgres keeps row versions: an update writes the rows it changes and retires the ones they replace, instead of copying every row of the published generation (SQLite's file is unchanged)",
    steps: [{ kind: 'rowVersions' }],
  },
  {
    version: 10,
    description: 'Postgres keeps index jobs, their uploads and their events in the database, so that every server lists and follows them and any process runs them',
    steps: [{ kind: 'jobTables' }],
  },
  {
    version: 11,
    description:
      "SQLite's sparse vector spaces may mark rows stale (an update's replaced vectors go to the appended tails, and the stored lists are left as they are): an older kgrag would read the stale entries too, so it must refuse the file",
    steps: [],
  },
  {
    version: 12,
    description:
      "SQLite stores blobs and meta records of 256 KB or more padded, so that an update rewrites them in place (store/sqlite/padded-blob.ts): an older kgrag would read the padding as content, so it must refuse the file (records stored before are read as they are)",
    steps: [],
  },
];

/** The schema version this kgrag writes; stores of an older version are migrated on open, newer ones refused. */
export const storeSchemaVersion = storeMigrations.reduce((newest, migration) => Math.max(newest, migration.version), 1);

/**
 * The steps that bring a store of version `from` to {@link storeSchemaVersion}, in order; a step that several
 * versions repeat (a full-text rebuild, a compaction) runs once, where it last occurs.
 */
export function pendingMigrationSteps(from: number): MigrationStep[] {
  const steps = storeMigrations.filter((migration) => migration.version > from).flatMap((migration) => migration.steps);
  const keys = steps.map((step) => JSON.stringify(step));
  return steps.filter((_, index) => keys.lastIndexOf(keys[index] as string) === index);
}
