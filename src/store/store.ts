import type { SparseVector } from '../providers/embed/embedder.js';
import type { RowColumn, TableName, TableRows } from './schema.js';

/** A ranked hit of a search: a row id and its score (higher is better). */
export interface ScoredId {
  id: string;
  score: number;
}

/** Rows of one table whose rows are `Row`. Rows come back in insertion (`hid`) order. */
export interface RowAccess<Row> {
  /** Inserts rows, or replaces the rows with the same key; a replaced row keeps its `hid`. */
  upsert(rows: ReadonlyArray<Row>): Promise<void>;
  /** Rows whose single-column key is in `keys`; unknown keys are ignored. */
  get(keys: readonly string[]): Promise<Array<Row>>;
  /** Every row, in insertion order (`hid` order for tables that have one). */
  all(): Promise<Array<Row>>;
  /** Rows whose `column` equals one of `values`. */
  where<C extends RowColumn<Row>>(column: C, values: ReadonlyArray<Row[C]>): Promise<Array<Row>>;
  /**
   * Only some columns (and `hid`) of every row, or of the rows whose `where.column` is in `where.values` (with several
   * columns: any of them, in one read) — for listing large tables without their text.
   */
  pick<K extends RowColumn<Row>>(
    columns: readonly K[],
    where?: { column: RowColumn<Row> | ReadonlyArray<RowColumn<Row>>; values: readonly unknown[] },
  ): Promise<Array<Pick<Row, K> & { hid?: number }>>;
  /** Deletes rows whose `column` equals one of `values`; returns how many were deleted. */
  deleteWhere<C extends RowColumn<Row>>(column: C, values: ReadonlyArray<Row[C]>): Promise<number>;
  /** Deletes every row. */
  clear(): Promise<void>;
  count(): Promise<number>;
}

/** Rows of table `T`: a built-in table, or a plugin's declared in {@link TableRows}. */
export type TableAccess<T extends TableName> = RowAccess<TableRows[T]>;

/**
 * The vector spaces the built-in steps write, each with one dimension and one embedder id. `phrases` are the
 * normalized arguments of triples and `facts` the triples as "subject predicate object" sentences.
 */
export const builtInVectorSpaces = ['chunks', 'entities', 'reports', 'keywords', 'phrases', 'facts'] as const;

/** A built-in vector space. */
export type BuiltInVectorSpace = (typeof builtInVectorSpaces)[number];

/**
 * A named vector collection: a built-in space or one a plugin declares. Any name of lower-case letters, digits and
 * underscores, starting with a letter, up to 40 characters (`assertVectorSpaceName`): it becomes part of table names.
 */
// `string & {}` keeps the built-in names offered by editors while any string is accepted.
export type VectorSpace = BuiltInVectorSpace | (string & {});


/**
 * A vector to store, dense or by its non-zero coordinates (what the local embedder makes of a phrase or fact: a few
 * dozen of 1,024 coordinates, without a 4 KB array per item); the two forms of one vector store the same.
 */
export interface VectorItem {
  id: string;
  vector: Float32Array | SparseVector;
}

/** All vectors of a space as one row-major matrix, for the math core. */
export interface VectorMatrix {
  ids: string[];
  dimensions: number;
  /** `ids.length × dimensions`, row-major. */
  matrix: Float32Array;
}

/** Vectors as compressed sparse rows: row r's non-zero coordinates, ascending, and values are at `rowPointers[r]…rowPointers[r + 1]`. */
export interface SparseVectorMatrix {
  ids: string[];
  dimensions: number;
  rowPointers: Int32Array;
  columnIndices: Int32Array;
  values: Float32Array;
}

/**
 * How a backend holds a space: every coordinate (`dense`: sqlite-vec, pgvector's `vector`), or only the non-zero
 * ones (`sparse`: SQLite keeps postings per coordinate; pgvector's `sparsevec` would hold them per row). Chosen when the space is created, from the
 * share of non-zero coordinates of the first vectors written ({@link sparseLayoutMaxDensity}); both layouts
 * return the same vectors and scores.
 */
export type VectorLayout = 'dense' | 'sparse';

/**
 * Share of non-zero coordinates up to which a new space is stored sparsely: two thirds, where a sparse entry
 * (a 4-byte value plus its coordinate or row, 1–2 bytes as stored) stops being clearly smaller than a dense
 * row (4 bytes per dimension). The weight-free local embedder hashes a text's few features into 1024 coordinates: on 2Wiki its
 * phrase and fact vectors have 3 % and 6 % non-zeros, entity, chunk and report vectors 23 %, 28 % and 56 %, all
 * sparse, and exact scoring through postings touches only the query's coordinates. Dense remote embeddings are
 * far above it and keep sqlite-vec and the SIMD kernel.
 */
export const sparseLayoutMaxDensity = 2 / 3;

/** What a non-empty space was built with. */
export interface VectorSpaceInfo {
  embedderId: string;
  dimensions: number;
  layout: VectorLayout;
  /**
   * Changes with every write to the space (upsert, delete, clear) and never returns to an earlier value, so
   * while it is unchanged `ids()` and the row order of `load` and `scoreMany` are unchanged too: data derived
   * from the rows (a row map stored by an index step, an in-memory index) can be kept.
   */
  revision: number;
}

/** Scores of queries against a whole space ({@link VectorIndex.scoreMany}). */
export interface SpaceScores {
  /** The revision the scores were computed at; row r is the r-th id of `ids()` at that revision. */
  revision: number;
  rows: number;
  scores: Float32Array;
}

/** The vectors of one space. Vectors are unit length, so scores are cosine similarities. */
export interface VectorIndex {
  /**
   * Stores vectors made by `embedderId`. The first call fixes the space's dimension, embedder and layout;
   * a different dimension or embedder is an error until `clear()`.
   */
  upsert(items: readonly VectorItem[], embedderId: string): Promise<void>;
  /** The `k` nearest ids to `query` by cosine similarity, best first (ties in the order of `ids()`). */
  search(query: Float32Array, k: number): Promise<ScoredId[]>;
  /**
   * Exact cosine similarity of `count` queries (stored one after the other in `queries`) with every vector:
   * `scores[q · rows + r]` for the r-th id of `ids()` at `revision`. A sparse space reads only the postings of
   * the queries' non-zero coordinates (a cold process does not load the space); both layouts keep what they
   * read in memory while the revision is unchanged.
   */
  scoreMany(queries: Float32Array, count: number): Promise<SpaceScores>;
  /** Ids that have a vector, in insertion order (but see {@link VectorIndex.replace}). */
  ids(): Promise<string[]>;
  /**
   * Vectors of `ids` (all when omitted), in insertion order, as a dense matrix. Read it, do not change it: a backend may
   * hand the same matrix to every load of the space until it changes (SQLite keeps a whole space up to 64 MB), so a
   * caller that needs other values copies it first.
   */
  load(ids?: readonly string[]): Promise<VectorMatrix>;
  /**
   * Every vector, in insertion order, as its non-zero coordinates: what `load()` holds without its zeros (a space of
   * the local embedder's phrase vectors is 200 MB dense and a few MB sparse).
   */
  loadSparse(): Promise<SparseVectorMatrix>;
  delete(ids: readonly string[]): Promise<void>;
  /**
   * Deletes `removed` and upserts `items`, as `upsert` then `delete` would, except for the order: a backend may give
   * new ids the places of removed ones instead of appending them (SQLite's sparse spaces do in an update's draft, where a
   * deletion would otherwise move every later row), so afterwards `ids()` and search ties need not follow insertion
   * order. Optional, so that a backend written before it still works: callers go through `replaceVectors`, which falls
   * back to the upsert and the deletion, as it does for a caller that predicts the rows' order after its write.
   */
  replace?(removed: readonly string[], items: readonly VectorItem[], embedderId: string): Promise<void>;
  clear(): Promise<void>;
  count(): Promise<number>;
  /** The embedder id, dimension, layout and revision of the space, or undefined while empty. */
  info(): Promise<VectorSpaceInfo | undefined>;
}

/** Tables searchable by BM25 full-text search. */
export type TextSearchTable = 'chunks' | 'entities';

/**
 * The system of record of one workspace. Backends (SQLite now, Postgres later) implement it and run
 * the same contract suite (`describeStoreContract`). Algorithms load what they need into typed arrays;
 * the store keeps it durable and searchable.
 */
export interface Store {
  readonly backend: string;
  table<T extends TableName>(name: T): TableAccess<T>;
  vectors(space: VectorSpace): VectorIndex;
  /**
   * BM25 (k1 = 1.2, b = 0.75) over the table's full-text columns, indexed without the `bm25Stopwords`.
   * `terms` are already tokenized query words (see `queryTerms`); a row matches if it contains any.
   */
  searchText(table: TextSearchTable, terms: readonly string[], k: number): Promise<ScoredId[]>;
  getMeta<V>(key: string): Promise<V | undefined>;
  setMeta(key: string, value: unknown): Promise<void>;
  getBlob(key: string): Promise<Uint8Array | undefined>;
  setBlob(key: string, value: Uint8Array): Promise<void>;
  /** Keys of every stored blob, sorted: what a derived structure an index holds, for snapshots and exports. */
  blobKeys(): Promise<string[]>;
  /** Keys of every meta record holding a value (blobs are listed by {@link blobKeys}), sorted: for snapshots. */
  metaKeys(): Promise<string[]>;
  /**
   * Runs `fn` in one transaction: all of its writes land, or none do (a crash mid-step leaves the
   * previous state). Nested calls become savepoints. Use `tx`, not the outer store, inside `fn`.
   */
  transaction<R>(fn: (tx: Store) => Promise<R>): Promise<R>;
  close(): Promise<void>;
}
