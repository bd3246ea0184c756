import type {
  ChunkEdgeRecord,
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

/** Row types by table name: the one source of truth for what each table holds. */
export interface TableRows {
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
  chunkEdges: ChunkEdgeRecord;
  extractions: ExtractionRecord;
  llmCache: LlmCacheRecord;
  llmCacheSources: LlmCacheSourceRecord;
  externalIds: ExternalIdRecord;
  runs: RunRecord;
}

export type TableName = keyof TableRows;
export type ColumnOf<T extends TableName> = Exclude<keyof TableRows[T], 'hid'> & string;

export interface TableSpec<T extends TableName> {
  /** Table name in SQL (snake_case). */
  sqlName: string;
  /** Primary key columns. */
  key: ReadonlyArray<ColumnOf<T>>;
  /** Every field of the row type except `hid`, which a store derives from insertion order. */
  columns: { [K in ColumnOf<T>]-?: ColumnSpec };
  /** Secondary indexes (each a column list) for `where` lookups. */
  indexes?: ReadonlyArray<ReadonlyArray<ColumnOf<T>>>;
  /** Columns searchable by full-text (BM25) search. */
  fullText?: ReadonlyArray<ColumnOf<T>>;
  /** Whether rows expose `hid`. */
  hid: boolean;
}

const text: ColumnSpec = { type: 'text' };
const nullableText: ColumnSpec = { type: 'text', nullable: true };
const integer: ColumnSpec = { type: 'integer' };
const real: ColumnSpec = { type: 'real' };
const json: ColumnSpec = { type: 'json' };

export const schema: { [T in TableName]: TableSpec<T> } = {
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
  chunkEdges: {
    sqlName: 'chunk_edges',
    key: ['a', 'b', 'kind'],
    hid: false,
    columns: { a: text, b: text, weight: real, kind: text },
    indexes: [['b'], ['kind']],
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

export const tableNames = Object.keys(schema) as TableName[];

/** A table spec with its row type erased, for drivers that treat all tables alike. */
export interface AnyTableSpec {
  sqlName: string;
  key: readonly string[];
  columns: Record<string, ColumnSpec>;
  indexes?: ReadonlyArray<readonly string[]>;
  fullText?: readonly string[];
  hid: boolean;
}

/** The spec of a table, for generic drivers. */
export function tableSpec(name: TableName): AnyTableSpec {
  return schema[name] as unknown as AnyTableSpec;
}

/** Column names are few and decoding a row asks for each of them: converted once. */
const snakeNames = new Map<string, string>();

/** `documentId` → `document_id`. */
export function snakeCase(name: string): string {
  let sql = snakeNames.get(name);
  if (sql === undefined) snakeNames.set(name, (sql = name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`)));
  return sql;
}
