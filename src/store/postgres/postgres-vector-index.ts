import { createSimilarityIndex, type SimilarityIndex } from '../../math/similarity-index.js';
import {
  type ScoredId,
  type SpaceScores,
  type SparseVectorMatrix,
  type VectorIndex,
  type VectorItem,
  type VectorLayout,
  type VectorMatrix,
  type VectorSpace,
  type VectorSpaceInfo,
} from '../store.js';
import { concatenated, splitBlobs } from './postgres-full-text.js';
import type { PostgresSchemaState } from './postgres-migrations.js';
import { csrRowsFromCoordinatePostings, decodeCoordinatePostings, encodedCoordinatePostings } from '../postings-codec.js';
import { lockForWrite, quoteLiteral, type SqlRunner } from './postgres-sql.js';
import { ensureHnswIndex, hnswPredicate } from './postgres-hnsw-index.js';
import { retireOlder, versionedDelete, visibleAt } from './postgres-row-versions.js';
import type { PostgresScopeAccess } from './postgres-table.js';
import { chooseLayout, denseOf, dimensionsOf, hasPostings, sparseRowsOfDense } from '../vector-items.js';
import { dotAt, emptySpaceCache, keepPostings, missingCoordinates, sparseScores, topScoredIds, type SpaceCache } from '../core/space-cache.js';
import { denseMatrixOfSparseRows, mergeSparseRows, sparseRowsWithout, type SparseRow, type SparseRows } from '../core/sparse-rows.js';
import { assertQueryShape, assertSameEmbedder, uniformDimensions } from '../core/vector-checks.js';

/** pgvector's largest `hnsw.ef_search`: an HNSW scan returns at most that many rows, so larger searches scan exactly. */
const maxHnswK = 1000;
/**
 * Candidates an HNSW search takes from the index for `k` results, all rescored exactly: pgvector's default
 * `ef_search` of 40 found 0.94 of the exact top 10 on 2Wiki-like vectors (`npm run bench -- postgres`); taking four
 * times `k`, and at least 100, from a wider search is what the exact rescoring needs to put back the true top k.
 */
function hnswCandidates(k: number): number {
  return Math.min(maxHnswK, Math.max(4 * k, 100));
}
/** Bytes of vector data per write statement at most. */
const maxBatchBytes = 8 * 1024 * 1024;

/** What a vector space needs of its store beyond its tables. */
export interface PostgresVectorAccess extends PostgresScopeAccess {
  readonly state: PostgresSchemaState;
  /** Answer every search by an exact scan, even where an HNSW index exists. */
  readonly exactSearch: boolean;
  /** In-memory data of each space at one revision, shared by a store and its transactions. */
  readonly caches: Map<VectorSpace, SpaceCache>;
  /** Reads with several statements on one snapshot (a read-only transaction unless the store is in one). */
  snapshot<R>(read: (run: SqlRunner) => Promise<R>): Promise<R>;
  /** Runs `action` once the store's transaction has committed (at once outside a transaction). */
  afterCommit(action: () => Promise<void>): Promise<void>;
  /** Runs statements on the pool, outside any transaction. */
  pool(): SqlRunner;
}


interface StoredSpace {
  info: (VectorSpaceInfo & { indexed: boolean }) | undefined;
  /** The space's last revision, kept by `clear()` so that revisions never repeat. */
  revision: number | undefined;
}

/**
 * One vector space of a workspace generation. Rows (`vector_rows`) hold the ids in insertion (`vid`) order and, in
 * a dense space, the float32 coordinates as bytes (read exactly by `load` and `scoreMany`), plus pgvector's copy
 * when the server has pgvector, under a partial HNSW cosine index per workspace, space and dimension (shared by the
 * generations: `search` keeps the versions its generation sees). A
 * sparse space keeps per coordinate the positions and values of its non-zero rows (`vector_postings`), as the SQLite
 * backend does, so scoring reads only the query's coordinates. The layout is chosen as the SQLite backend chooses it.
 */
export class PostgresVectorIndex implements VectorIndex {
  /** The space's description, once read, in a published generation (which nothing writes again). */
  private frozenSpace: StoredSpace | undefined;

  constructor(
    private readonly store: PostgresVectorAccess,
    private readonly space: VectorSpace,
  ) {}

  private get rowsTable(): string {
    return `${this.store.schema}.vector_rows`;
  }

  private get scope(): [string, number, string] {
    return [this.store.scope[0], this.store.scope[1], this.space];
  }

  /**
   * Serialises the writers of this space until they commit: a write reads the space's description before it
   * decides (layout, dimension checks), and a sparse write reads, merges and rewrites all of its postings.
   */
  private async lock(run: SqlRunner): Promise<void> {
    await lockForWrite(run, JSON.stringify([this.store.schema, ...this.store.scope, 'vectors', this.space]));
  }

  private async read(run: SqlRunner): Promise<StoredSpace> {
    if (this.frozenSpace) return this.frozenSpace;
    const space = await this.readStored(run);
    if (this.store.frozen) this.frozenSpace = space;
    return space;
  }

  private async readStored(run: SqlRunner): Promise<StoredSpace> {
    const [row] = await run.rows<{ embedder_id: string | null; dimensions: number | null; layout: VectorLayout | null; indexed: boolean | null; revision: number }>(
      `SELECT embedder_id, dimensions, layout, indexed, revision FROM ${this.store.schema}.vector_spaces WHERE workspace = $1 AND ${visibleAt()} AND space = $3`,
      this.scope,
    );
    if (!row) return { info: undefined, revision: undefined };
    if (row.embedder_id === null) return { info: undefined, revision: row.revision };
    return {
      info: { embedderId: row.embedder_id, dimensions: row.dimensions ?? 0, layout: row.layout ?? 'dense', revision: row.revision, indexed: row.indexed === true },
      revision: row.revision,
    };
  }

  async info(): Promise<VectorSpaceInfo | undefined> {
    const { info } = await this.read(this.store.runner());
    if (!info) return undefined;
    return { embedderId: info.embedderId, dimensions: info.dimensions, layout: info.layout, revision: info.revision };
  }

  private nextRevision(): string {
    return `nextval(${quoteLiteral(`${this.store.schema}.revisions`)})`;
  }

  /** A new version of the space's description: the old one's values with `values` over them, and a new revision. */
  private async reviseSpace(run: SqlRunner, values?: { embedderId: string | null; dimensions: number | null; layout: VectorLayout | null; indexed: boolean | null }): Promise<void> {
    const spaces = `${this.store.schema}.vector_spaces`;
    const columns = values === undefined ? 'o.embedder_id, o.dimensions, o.layout, o.indexed' : '$4::text, $5::integer, $6::text, $7::boolean';
    await run.rows(
      `WITH retired AS (${retireOlder(spaces, 'space = $3')})
       INSERT INTO ${spaces} (workspace, generation, space, embedder_id, dimensions, layout, indexed, revision)
       SELECT $1, $2, $3, ${columns}, ${this.nextRevision()} FROM (SELECT 1) one LEFT JOIN (SELECT * FROM ${spaces} WHERE workspace = $1 AND ${visibleAt()} AND space = $3) o ON true
       ON CONFLICT (workspace, space, generation) DO UPDATE SET embedder_id = excluded.embedder_id, dimensions = excluded.dimensions,
         layout = excluded.layout, indexed = excluded.indexed, revision = excluded.revision`,
      values === undefined ? this.scope : [...this.scope, values.embedderId, values.dimensions, values.layout, values.indexed],
    );
  }

  private async bumpRevision(run: SqlRunner): Promise<void> {
    await this.reviseSpace(run);
  }

  /** The in-memory cache of `revision` (a fresh one after any write, by this process or another). */
  private async cacheFor(run: SqlRunner, revision: number): Promise<SpaceCache> {
    let cache = this.store.caches.get(this.space);
    if (cache?.revision !== revision) {
      const [row] = await run.rows<{ n: number }>(`SELECT count(*) AS n FROM ${this.rowsTable} WHERE workspace = $1 AND ${visibleAt()} AND space = $3`, this.scope);
      cache = emptySpaceCache(revision, row?.n ?? 0);
      this.store.caches.set(this.space, cache);
    }
    return cache;
  }

  async upsert(items: readonly VectorItem[], embedderId: string): Promise<void> {
    if (items.length === 0) return;
    const dimensions = uniformDimensions(items);
    const indexed = await this.store.atomically(async (run) => {
      await this.lock(run);
      let { info } = await this.read(run);
      assertSameEmbedder(this.space, info, embedderId, dimensions);
      if (!info) {
        const layout = chooseLayout(items, dimensions);
        const withIndex = layout === 'dense' && this.store.state.vector !== undefined;
        await this.reviseSpace(run, { embedderId, dimensions, layout, indexed: withIndex });
        info = { embedderId, dimensions, layout, indexed: withIndex, revision: 0 };
      } else {
        await this.bumpRevision(run);
      }
      if (info.layout === 'sparse') await this.upsertSparse(run, items, dimensions);
      else await this.upsertDense(run, items, info.indexed);
      return info.indexed;
    });
    if (indexed) await this.store.afterCommit(() => ensureHnswIndex(this.store.pool(), this.store.state, this.store.scope[0], this.space, dimensions));
  }

  private async upsertDense(run: SqlRunner, items: readonly VectorItem[], indexed: boolean): Promise<void> {
    // One row per id: the last vector given, at the place the id was first given.
    const position = new Map<string, number>();
    const unique: VectorItem[] = [];
    for (const item of items) {
      const at = position.get(item.id);
      if (at === undefined) {
        position.set(item.id, unique.length);
        unique.push(item);
      } else {
        unique[at] = item;
      }
    }
    const vectorType = indexed ? `${this.store.state.vector?.namespace}.vector` : '';
    // All coordinates in one binary parameter, each row its slice: no hex text to build and parse. A vector equal to
    // the stored one is not written again; a changed one is a new version with the row's vid (its place).
    const rows = this.rowsTable;
    const embedding = indexed ? ', embedding' : '';
    const sql =
      `WITH u AS (SELECT u.id, u.ordinal, substring($5::bytea FROM ((u.ordinal - 1) * $6::integer + 1)::integer FOR $6::integer) AS data${indexed ? `, u.embedding::${vectorType} AS embedding` : ''} ` +
      `FROM unnest($4::text[]${indexed ? ', $7::text[]' : ''}) WITH ORDINALITY AS u(id${embedding}, ordinal)), ` +
      `e AS (SELECT r.vid, r.generation AS born, u.ordinal, r.data IS NOT DISTINCT FROM u.data AS same FROM u JOIN ${rows} r ON r.workspace = $1 AND ${visibleAt('r')} AND r.space = $3 AND r.id = u.id), ` +
      `retired AS (UPDATE ${rows} r SET retired = $2 FROM e WHERE r.workspace = $1 AND r.space = $3 AND r.vid = e.vid AND r.generation = e.born AND e.born < $2 AND NOT e.same), ` +
      `replaced AS (INSERT INTO ${rows} (workspace, generation, space, vid, id, data${embedding}) SELECT $1, $2, $3, e.vid, u.id, u.data${indexed ? ', u.embedding' : ''} ` +
      `FROM u JOIN e ON e.ordinal = u.ordinal WHERE NOT e.same ORDER BY u.ordinal ON CONFLICT (workspace, space, id, generation) DO UPDATE SET data = excluded.data${indexed ? ', embedding = excluded.embedding' : ''}) ` +
      `INSERT INTO ${rows} (workspace, generation, space, id, data${embedding}) SELECT $1, $2, $3, u.id, u.data${indexed ? ', u.embedding' : ''} ` +
      `FROM u LEFT JOIN e ON e.ordinal = u.ordinal WHERE e.vid IS NULL ORDER BY u.ordinal`;
    for (let start = 0; start < unique.length; ) {
      const dimensions = dimensionsOf((unique[start] as VectorItem).vector);
      const count = Math.max(1, Math.floor(maxBatchBytes / (4 * Math.max(1, dimensions))));
      const batch = unique.slice(start, start + count);
      start += count;
      const dense = batch.map((item) => denseOf(item.vector));
      const bytes = Buffer.allocUnsafe(dense.length * 4 * dimensions);
      dense.forEach((vector, row) => bytes.set(new Uint8Array(vector.buffer, vector.byteOffset, vector.byteLength), row * 4 * dimensions));
      await run.rows(sql, [...this.scope, batch.map((item) => item.id), bytes, 4 * dimensions, ...(indexed ? [dense.map(vectorLiteral)] : [])]);
    }
  }

  /** Replaces the vectors of ids already stored (keeping their position), appends the others, rewrites the postings. */
  private async upsertSparse(run: SqlRunner, items: readonly VectorItem[], dimensions: number): Promise<void> {
    const { rows, added } = mergeSparseRows(await this.readSparseRows(run), items);
    if (added.length > 0) {
      await run.rows(
        `INSERT INTO ${this.rowsTable} (workspace, generation, space, id) SELECT $1, $2, $3, u.id FROM unnest($4::text[]) WITH ORDINALITY AS u(id, ordinal) ORDER BY u.ordinal`,
        [...this.scope, added],
      );
    }
    await this.writePostings(run, rows, dimensions);
  }

  /**
   * Makes the postings those of `rows` (row index = position): writes the coordinates whose postings changed (new
   * versions) and deletes those left without any, so that an append writes the coordinates it touched.
   */
  private async writePostings(run: SqlRunner, rows: readonly SparseRow[], dimensions: number): Promise<void> {
    const postingsTable = `${this.store.schema}.vector_postings`;
    const stored = new Map(
      (
        await run.rows<{ coordinate: number; postings: Buffer }>(`SELECT coordinate, postings FROM ${postingsTable} WHERE workspace = $1 AND ${visibleAt()} AND space = $3`, this.scope)
      ).map((row) => [row.coordinate, row.postings]),
    );
    let coordinates: number[] = [];
    let blobs: Buffer[] = [];
    let bytes = 0;
    const flush = async (): Promise<void> => {
      if (coordinates.length === 0) return;
      const joined = concatenated(blobs);
      await run.rows(
        `WITH retired AS (${retireOlder(postingsTable, 'space = $3 AND coordinate = ANY($4::integer[])')})
         INSERT INTO ${postingsTable} (workspace, generation, space, coordinate, postings)
         SELECT $1, $2, $3, c.coordinate, p.blob FROM unnest($4::integer[]) WITH ORDINALITY AS c(coordinate, ordinal) JOIN ${splitBlobs('$5', '$6')} p ON p.ordinal = c.ordinal
         ON CONFLICT (workspace, space, coordinate, generation) DO UPDATE SET postings = excluded.postings`,
        [...this.scope, coordinates, joined.bytes, joined.lengths],
      );
      coordinates = [];
      blobs = [];
      bytes = 0;
    };
    for (const { coordinate, blob } of encodedCoordinatePostings(rows, dimensions)) {
      const old = stored.get(coordinate);
      stored.delete(coordinate);
      if (old !== undefined && old.equals(blob)) continue;
      coordinates.push(coordinate);
      blobs.push(blob);
      bytes += blob.byteLength;
      if (bytes >= maxBatchBytes) await flush();
    }
    await flush();
    if (stored.size > 0) await run.rows(versionedDelete(postingsTable, 'space = $3 AND coordinate = ANY($4::integer[])'), [...this.scope, [...stored.keys()]]);
  }

  /** Every vector of a sparse space as CSR rows in vid order, transposed from the postings, with the ids. */
  private async readSparseRows(run: SqlRunner): Promise<SparseRows> {
    const ids = await this.readIds(run);
    const rows = ids.length;
    const postings = (
      await run.rows<{ coordinate: number; postings: Buffer }>(
        `SELECT coordinate, postings FROM ${this.store.schema}.vector_postings WHERE workspace = $1 AND ${visibleAt()} AND space = $3 ORDER BY coordinate`,
        this.scope,
      )
    ).map((row) => [row.coordinate, decodeCoordinatePostings(row.postings)] as const);
    return { ids, ...csrRowsFromCoordinatePostings(postings, rows) };
  }

  private async readIds(run: SqlRunner): Promise<string[]> {
    const rows = await run.rows<{ id: string }>(`SELECT id FROM ${this.rowsTable} WHERE workspace = $1 AND ${visibleAt()} AND space = $3 ORDER BY vid`, this.scope);
    return rows.map((row) => row.id);
  }

  /** The vectors of a dense space (of `ids` when given) in vid order. */
  private async readDense(run: SqlRunner, dimensions: number, ids: readonly string[] | undefined): Promise<VectorMatrix> {
    const rows = await run.rows<{ id: string; data: Buffer }>(
      `SELECT id, data FROM ${this.rowsTable} WHERE workspace = $1 AND ${visibleAt()} AND space = $3${ids === undefined ? '' : ' AND id = ANY($4::text[])'} ORDER BY vid`,
      ids === undefined ? this.scope : [...this.scope, ids],
    );
    const matrix = new Float32Array(rows.length * dimensions);
    const bytes = new Uint8Array(matrix.buffer);
    rows.forEach((row, index) => bytes.set(row.data.subarray(0, 4 * dimensions), 4 * dimensions * index));
    return { ids: rows.map((row) => row.id), dimensions, matrix };
  }

  async search(query: Float32Array, k: number): Promise<ScoredId[]> {
    const { info } = await this.read(this.store.runner());
    if (!info || k <= 0) return [];
    assertQueryShape(this.space, info, query);
    if (info.layout === 'dense' && info.indexed && !this.store.exactSearch && k <= maxHnswK) return this.searchHnsw(info, query, k);
    // A warm search, whose space is in memory as far as the query needs it, needs only the revision check.
    const cached = this.store.caches.get(this.space);
    if (cached?.revision === info.revision && cached.ids && (info.layout === 'sparse' ? hasPostings(cached.postings, query, 1, info.dimensions) : cached.dense)) {
      const scores = info.layout === 'sparse' ? await this.scoreSparse(this.store.runner(), info, cached, query, 1) : (cached.dense as SimilarityIndex).scoreMany(query, 1);
      return topScoredIds(scores, cached.ids, k);
    }
    return this.store.snapshot(async (run) => {
      const current = (await this.read(run)).info;
      if (!current) return [];
      const cache = await this.cacheFor(run, current.revision);
      const scores = current.layout === 'sparse' ? await this.scoreSparse(run, current, cache, query, 1) : (await this.denseIndex(run, current, cache)).scoreMany(query, 1);
      cache.ids ??= await this.readIds(run);
      return topScoredIds(scores, cache.ids, k);
    });
  }

  /**
   * The k nearest rows through the space's HNSW index, rescored exactly from their stored coordinates (ties in
   * insertion order). The query goes as literals: the planner uses a partial index only for a query whose
   * conditions it can see imply the index's.
   */
  private async searchHnsw(info: VectorSpaceInfo, query: Float32Array, k: number): Promise<ScoredId[]> {
    const namespace = this.store.state.vector?.namespace as string;
    const dimensions = info.dimensions;
    const rows = (
      await this.store.runner().script<{ vid: number; id: string; data: Buffer }>(
        `SET hnsw.ef_search = ${hnswCandidates(k)}; ` +
          `SELECT vid, id, data FROM ${this.rowsTable} WHERE ${hnswPredicate(namespace, this.store.scope[0], this.space, dimensions)} AND ${visibleAt(undefined, String(this.store.scope[1]))} ` +
          `ORDER BY (embedding::${namespace}.vector(${dimensions})) OPERATOR(${namespace}.<=>) ${quoteLiteral(vectorLiteral(query))}::${namespace}.vector(${dimensions}) LIMIT ${hnswCandidates(k)}`,
      )
    )[1] ?? [];
    const scored = rows.map((row) => {
      const vector = new Float32Array(dimensions);
      new Uint8Array(vector.buffer).set(row.data.subarray(0, 4 * dimensions));
      return { id: row.id, vid: row.vid, score: dotAt(vector, 0, query) };
    });
    scored.sort((left, right) => right.score - left.score || left.vid - right.vid);
    return scored.slice(0, k).map(({ id, score }) => ({ id, score }));
  }

  private async denseIndex(run: SqlRunner, info: VectorSpaceInfo, cache: SpaceCache): Promise<SimilarityIndex> {
    if (!cache.dense) {
      const matrix = await this.readDense(run, info.dimensions, undefined);
      cache.dense = createSimilarityIndex(matrix.ids.length, info.dimensions, matrix.matrix);
      cache.ids = matrix.ids;
    }
    return cache.dense;
  }

  async scoreMany(queries: Float32Array, count: number): Promise<SpaceScores> {
    // A warm query of a sparse space whose postings are all in memory needs only the revision check.
    const known = (await this.read(this.store.runner())).info;
    const cached = this.store.caches.get(this.space);
    if (known?.layout === 'sparse' && cached?.revision === known.revision && hasPostings(cached.postings, queries, count, known.dimensions)) {
      return { revision: known.revision, rows: cached.rows, scores: await this.scoreSparse(this.store.runner(), known, cached, queries, count) };
    }
    return this.store.snapshot(async (run) => {
      const info = (await this.read(run)).info;
      if (!info) return { revision: 0, rows: 0, scores: new Float32Array(0) };
      assertQueryShape(this.space, info, queries, count);
      const cache = await this.cacheFor(run, info.revision);
      if (info.layout === 'sparse') return { revision: info.revision, rows: cache.rows, scores: await this.scoreSparse(run, info, cache, queries, count) };
      return { revision: info.revision, rows: cache.rows, scores: (await this.denseIndex(run, info, cache)).scoreMany(queries, count) };
    });
  }

  /** Sparse scores through the postings of the queries' non-zero coordinates, read once per revision. */
  private async scoreSparse(run: SqlRunner, info: VectorSpaceInfo, cache: SpaceCache, queries: Float32Array, count: number): Promise<Float32Array> {
    const missing = missingCoordinates(cache, queries, count, info.dimensions);
    if (missing.length > 0) {
      const read = await run.rows<{ coordinate: number; postings: Buffer }>(
        `SELECT coordinate, postings FROM ${this.store.schema}.vector_postings WHERE workspace = $1 AND ${visibleAt()} AND space = $3 AND coordinate = ANY($4::integer[])`,
        [...this.scope, missing],
      );
      keepPostings(cache, missing, read.map((row) => [row.coordinate, row.postings] as const));
    }
    return sparseScores(cache, queries, count, info.dimensions);
  }

  async ids(): Promise<string[]> {
    return this.readIds(this.store.runner());
  }

  async load(ids?: readonly string[]): Promise<VectorMatrix> {
    return this.store.snapshot(async (run) => {
      const { info } = await this.read(run);
      if (!info) return { ids: [], dimensions: 0, matrix: new Float32Array(0) };
      const { dimensions } = info;
      if (info.layout === 'dense') return this.readDense(run, dimensions, ids);
      return denseMatrixOfSparseRows(await this.readSparseRows(run), dimensions, ids);
    });
  }

  async loadSparse(): Promise<SparseVectorMatrix> {
    return this.store.snapshot(async (run) => {
      const { info } = await this.read(run);
      if (!info) return { ids: [], dimensions: 0, rowPointers: new Int32Array(1), columnIndices: new Int32Array(0), values: new Float32Array(0) };
      const { dimensions } = info;
      if (info.layout === 'sparse') return { dimensions, ...(await this.readSparseRows(run)) };
      const { ids, matrix } = await this.readDense(run, dimensions, undefined);
      return { ids, dimensions, ...sparseRowsOfDense(matrix, ids.length, dimensions) };
    });
  }

  async delete(ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    await this.store.atomically(async (run) => {
      await this.lock(run);
      const { info } = await this.read(run);
      if (!info) return;
      await this.bumpRevision(run);
      if (info.layout === 'sparse') {
        const kept = sparseRowsWithout(await this.readSparseRows(run), ids);
        if (kept === undefined) return;
        await run.rows(versionedDelete(this.rowsTable, 'space = $3 AND id = ANY($4::text[])'), [...this.scope, ids]);
        await this.writePostings(run, kept, info.dimensions);
        return;
      }
      await run.rows(versionedDelete(this.rowsTable, 'space = $3 AND id = ANY($4::text[])'), [...this.scope, ids]);
    });
  }

  async clear(): Promise<void> {
    await this.store.atomically(async (run) => {
      await this.lock(run);
      await run.rows(versionedDelete(`${this.store.schema}.vector_postings`, 'space = $3'), this.scope);
      await run.rows(versionedDelete(this.rowsTable, 'space = $3'), this.scope);
      // The description stays with its revision, bumped, so that no revision of the space repeats.
      await this.reviseSpace(run, { embedderId: null, dimensions: null, layout: null, indexed: null });
    });
    this.store.caches.delete(this.space);
  }

  async count(): Promise<number> {
    const [row] = await this.store
      .runner()
      .rows<{ n: number }>(`SELECT count(*) AS n FROM ${this.rowsTable} WHERE workspace = $1 AND ${visibleAt()} AND space = $3`, this.scope);
    return row?.n ?? 0;
  }
}

/** pgvector's text form of a vector; nine significant digits give every float32 back exactly. */
function vectorLiteral(vector: Float32Array): string {
  let text = '[';
  for (let index = 0; index < vector.length; index++) {
    if (index > 0) text += ',';
    const value = vector[index] as number;
    text += value === 0 ? '0' : value.toPrecision(9);
  }
  return `${text}]`;
}
