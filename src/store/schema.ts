import type {
  ChunkRecord,
  ClaimRecord,
  CommunityRecord,
  DocumentRecord,
  EntityRecord,
  ExternalIdRecord,
  ExtractionRecord,
  KeywordChunkRecord,
  KeywordEdgeRecord,
  KeywordRecord,
  LlmCacheRecord,
  LlmCacheSourceRecord,
  RelationRecord,
  ReportRecord,
  RunRecord,
  TripleRecord,
} from '../core/types.js';

/*
 * The index schema, written once and shared by every backend (drizzle's "dialect core"): each
 * driver turns these specs into DDL and maps rows to columns generically, so adding a table or a
 * column happens here and nowhere else.
 */

/** Storage type of a column; `json` holds arrays and objects, encoded by the driver. */
export type ColumnType = 'text' | 'integer' | 'real' | 'json';

export interface ColumnSpec {
  type: ColumnType;
  nullable?: boolean;
}

/** Row types of the built-in tables, by table name: the one source of truth for what each of them holds. */
export interface BuiltInTableRows {
  documents: DocumentRecord;
  chunks: ChunkRecord;
  entities: EntityRecord;
  relations: RelationRecord;
  triples: TripleRecord;
  claims: ClaimRecord;
  communities: CommunityRecord;
  reports: ReportRecord;
  keywords: KeywordRecord;
  keywordChunks: KeywordChunkRecord;
  keywordEdges: KeywordEdgeRecord;
  extractions: ExtractionRecord;
  llmCache: LlmCacheRecord;
  llmCacheSources: LlmCacheSourceRecord;
  externalIds: ExternalIdRecord;
  runs: RunRecord;
}

/**
 * Row types by table name: the built-in tables and the tables plugins add. A plugin that opens its stores with its
 * own table specs (`tables` of `openSqliteStore` and the other openers) names its row type here by declaration
 * merging, and then reads `store.table('myTable')` typed:
 *
 * ```ts
 * declare module 'kgrag' {
 *   interface TableRows {
 *     myTable: { id: string; score: number };
 *   }
 * }
 * ```
 */
export interface TableRows extends BuiltInTableRows {}

/** A built-in table's name. */
export type BuiltInTableName = keyof BuiltInTableRows;
/** A table's name: built in, or declared by a plugin in {@link TableRows}. */
export type TableName = keyof TableRows;
/** The columns of a row type (every field but `hid`). */
export type RowColumn<Row> = Exclude<keyof Row, 'hid'> & string;
export type ColumnOf<T extends TableName> = RowColumn<TableRows[T]>;

/** How a table of rows `Row` is stored: the spec each driver turns into DDL. */
export interface RowTableSpec<Row> {
  /** Table name in SQL (snake_case). */
  sqlName: string;
  /** Primary key columns. */
  key: ReadonlyArray<RowColumn<Row>>;
  /** Every field of the row type except `hid`, which a store derives from insertion order. */
  columns: { [K in RowColumn<Row>]-?: ColumnSpec };
  /** Secondary indexes (each a column list) for `where` lookups. */
  indexes?: ReadonlyArray<ReadonlyArray<RowColumn<Row>>>;
  /** Columns searchable by full-text (BM25) search. */
  fullText?: ReadonlyArray<RowColumn<Row>>;
  /** Whether rows expose `hid`. */
  hid: boolean;
}

/** The spec of table `T`. */
export type TableSpec<T extends TableName> = RowTableSpec<TableRows[T]>;

const text: ColumnSpec = { type: 'text' };
const nullableText: ColumnSpec = { type: 'text', nullable: true };
const integer: ColumnSpec = { type: 'integer' };
const real: ColumnSpec = { type: 'real' };
const json: ColumnSpec = { type: 'json' };

export const schema: { [T in BuiltInTableName]: TableSpec<T> } = {
  documents: {
    sqlName: 'documents',
    key: ['id'],
    hid: true,
    columns: { id: text, title: text, source: text, text, metadata: json, contentHash: text, createdAt: text },
    indexes: [['source']],
  },
  chunks: {
    sqlName: 'chunks',
    key: ['id'],
    hid: true,
    columns: { id: text, documentId: text, ordinal: integer, text, nTokens: integer, start: integer, end: integer },
    indexes: [['documentId']],
    fullText: ['text'],
  },
  entities: {
    sqlName: 'entities',
    key: ['id'],
    hid: true,
    columns: {
      id: text,
      title: text,
      type: text,
      description: text,
      aliases: json,
      frequency: integer,
      degree: integer,
      chunkIds: json,
    },
    fullText: ['title', 'description'],
  },
  relations: {
    sqlName: 'relations',
    key: ['id'],
    hid: true,
    columns: {
      id: text,
      source: text,
      target: text,
      description: text,
      keywords: json,
      weight: real,
      combinedDegree: integer,
      chunkIds: json,
    },
    // No index on source or target: nothing selects relations by endpoint (they were 9.6 MB of 2Wiki's index).
  },
  triples: {
    sqlName: 'triples',
    key: ['id'],
    hid: false,
    columns: { id: text, subject: text, predicate: text, object: text, chunkId: text },
    indexes: [['chunkId']],
  },
  claims: {
    sqlName: 'claims',
    key: ['id'],
    hid: true,
    columns: {
      id: text,
      subject: text,
      object: nullableText,
      type: text,
      status: text,
      startDate: nullableText,
      endDate: nullableText,
      description: text,
      sourceText: text,
      chunkId: text,
    },
    indexes: [['chunkId'], ['subject']],
  },
  communities: {
    sqlName: 'communities',
    key: ['id'],
    hid: true,
    columns: {
      id: text,
      level: integer,
      parent: nullableText,
      children: json,
      title: text,
      entityIds: json,
      relationIds: json,
      chunkIds: json,
      size: integer,
    },
    indexes: [['level']],
  },
  reports: {
    sqlName: 'reports',
    key: ['communityId'],
    hid: true,
    columns: {
      communityId: text,
      level: integer,
      title: text,
      summary: text,
      findings: json,
      rating: real,
      ratingExplanation: text,
      fullContent: text,
      generatedBy: text,
      error: nullableText,
    },
    indexes: [['level']],
  },
  keywords: {
    sqlName: 'keywords',
    key: ['id'],
    hid: false,
    columns: { id: text, text },
  },
  keywordChunks: {
    sqlName: 'keyword_chunks',
    key: ['keywordId', 'chunkId'],
    hid: false,
    columns: { keywordId: text, chunkId: text, score: real },
    indexes: [['chunkId']],
  },
  keywordEdges: {
    sqlName: 'keyword_edges',
    key: ['a', 'b'],
    hid: false,
    columns: { a: text, b: text, weight: real },
    indexes: [['b']],
  },
  extractions: {
    sqlName: 'extractions',
    key: ['id'],
    hid: false,
    columns: { id: text, chunkId: text, extractor: text, model: text, promptHash: text, raw: text, parsed: json },
    indexes: [['chunkId']],
  },
  llmCache: {
    sqlName: 'llm_cache',
    key: ['key'],
    hid: false,
    columns: { key: text, model: text, response: json, usage: json, createdAt: text },
  },
  llmCacheSources: {
    sqlName: 'llm_cache_sources',
    key: ['key', 'source'],
    hid: false,
    columns: { key: text, source: text },
    indexes: [['source']],
  },
  externalIds: {
    sqlName: 'external_ids',
    key: ['kind', 'externalId'],
    hid: false,
    columns: { kind: text, externalId: text, id: text, system: text, record: json },
    indexes: [['id']],
  },
  runs: {
    sqlName: 'runs',
    key: ['step'],
    hid: false,
    columns: {
      step: text,
      status: text,
      fingerprint: text,
      outputVersion: text,
      startedAt: nullableText,
      finishedAt: nullableText,
      durationMs: real,
      counts: json,
      usage: json,
      error: nullableText,
    },
  },
};

/** The built-in tables, in the schema's order. */
export const tableNames = Object.keys(schema) as BuiltInTableName[];

/** A table spec with its row type erased, for drivers that treat all tables alike. */
export interface AnyTableSpec {
  sqlName: string;
  key: readonly string[];
  columns: Record<string, ColumnSpec>;
  indexes?: ReadonlyArray<readonly string[]>;
  fullText?: readonly string[];
  hid: boolean;
}

/** The spec of a built-in table, for generic drivers. */
export function tableSpec(name: BuiltInTableName): AnyTableSpec {
  return schema[name] as unknown as AnyTableSpec;
}

/**
 * Column names are few and decoding a row asks for each of them: converted once. Process-wide and immutable per key;
 * bounded, since plugins' tables add names the built-in schema does not know.
 */
const snakeNames = new Map<string, string>();
const maxSnakeNames = 4096;

/** `documentId` → `document_id`. */
export function snakeCase(name: string): string {
  let sql = snakeNames.get(name);
  if (sql === undefined) {
    sql = name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
    if (snakeNames.size < maxSnakeNames) snakeNames.set(name, sql);
  }
  return sql;
}
