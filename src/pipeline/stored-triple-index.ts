import { allTripleIndexStrings, decodeTripleIndex, encodeTripleIndex } from '../extract/triples/triple-index-codec.js';
import { buildTripleIndex, type TripleIndex } from '../extract/triples/triple-index.js';
import { rowsOf, type StoredRowMap } from '../store/row-map.js';
import type { Store } from '../store/store.js';

/*
 * The triple index and the rows of its phrase and fact vectors, stored by the steps that produce them so that a
 * query process reads them instead of rebuilding them: `triples` writes the index with the triples (one
 * transaction, so the two never disagree), `embed-triples` the row maps with the vectors.
 */

/** Store keys. */
export const tripleIndexKeys = {
  /** Blob: the encoded index (empty when it could not be encoded). */
  index: 'triples:index',
  /** Meta: `{ version }`, the `triples` output version the blob was built from. */
  indexMeta: 'triples:index-meta',
  /** Blob: the vector row maps. */
  vectorRows: 'triples:vector-rows',
  /** Meta: {@link VectorRowsMeta}. */
  vectorRowsMeta: 'triples:vector-rows-meta',
} as const;

/** What {@link tripleIndexKeys}.vectorRowsMeta holds. */
interface VectorRowsMeta {
  /** The triple index version the maps are in the order of. */
  indexVersion: string;
  phrasesRevision: number;
  factsRevision: number;
  phrases: number;
  facts: number;
}

/** Stores `index`, built from the triples of output version `version`, in the `triples` step's transaction. */
export async function storeTripleIndex(tx: Store, index: TripleIndex, version: string): Promise<void> {
  await storeEncodedTripleIndex(tx, encodeTripleIndex(index) ?? new Uint8Array(0), version);
}

/** {@link storeTripleIndex} of an index already encoded (an update appends to the stored blob). */
export async function storeEncodedTripleIndex(tx: Store, blob: Uint8Array, version: string): Promise<void> {
  await tx.setBlob(tripleIndexKeys.index, blob);
  await tx.setMeta(tripleIndexKeys.indexMeta, { version });
}

/** The stored index as encoded, with its version, or undefined when none is stored. */
export async function loadEncodedTripleIndex(store: Store): Promise<{ blob: Uint8Array; version: string } | undefined> {
  const [blob, meta] = await Promise.all([store.getBlob(tripleIndexKeys.index), store.getMeta<{ version: string }>(tripleIndexKeys.indexMeta)]);
  return blob && meta ? { blob, version: meta.version } : undefined;
}

/**
 * The triple index: decoded from the stored blob (its fields decode on first use), or built from the triples
 * table when there is none (a workspace indexed before it was stored). `version` identifies the blob, or is
 * undefined for a rebuilt index.
 */
export async function loadTripleIndex(store: Store): Promise<{ index: TripleIndex; version: string | undefined }> {
  const [blob, meta] = await Promise.all([store.getBlob(tripleIndexKeys.index), store.getMeta<{ version: string }>(tripleIndexKeys.indexMeta)]);
  const decoded = blob && meta ? decodeTripleIndex(blob) : undefined;
  if (decoded && meta) return { index: decoded, version: meta.version };
  return { index: buildTripleIndex(await store.table('triples').all()), version: undefined };
}

/**
 * Stores which row of the triple index (of `indexVersion`) each stored phrase and fact vector is, in the
 * `embed-triples` step's transaction after its vectors are written.
 */
export async function storeTripleVectorRows(tx: Store, index: TripleIndex, indexVersion: string | undefined): Promise<void> {
  const [phrases, facts] = await Promise.all([tx.vectors('phrases').info(), tx.vectors('facts').info()]);
  if (indexVersion === undefined || !phrases || !facts) {
    await tx.setMeta(tripleIndexKeys.vectorRowsMeta, null);
    return;
  }
  const phraseRows = rowsOf(await tx.vectors('phrases').ids(), allTripleIndexStrings(index, 'phraseIds'));
  const factRows = rowsOf(await tx.vectors('facts').ids(), allTripleIndexStrings(index, 'factIds'));
  const bytes = new Uint8Array(4 * (phraseRows.length + factRows.length));
  new Int32Array(bytes.buffer, 0, phraseRows.length).set(phraseRows);
  new Int32Array(bytes.buffer, 4 * phraseRows.length, factRows.length).set(factRows);
  await tx.setBlob(tripleIndexKeys.vectorRows, bytes);
  const meta: VectorRowsMeta = { indexVersion, phrasesRevision: phrases.revision, factsRevision: facts.revision, phrases: phraseRows.length, facts: factRows.length };
  await tx.setMeta(tripleIndexKeys.vectorRowsMeta, meta);
}

/**
 * The stored row maps of the phrase and fact vectors for the triple index of `indexVersion`, or undefined when
 * none match it (readers then match ids; each map is also checked against its space's revision by the reader).
 */
export async function loadTripleVectorRows(store: Store, indexVersion: string | undefined): Promise<{ phrases: StoredRowMap; facts: StoredRowMap } | undefined> {
  if (indexVersion === undefined) return undefined;
  const meta = await store.getMeta<VectorRowsMeta | null>(tripleIndexKeys.vectorRowsMeta);
  if (!meta || meta.indexVersion !== indexVersion) return undefined;
  const blob = await store.getBlob(tripleIndexKeys.vectorRows);
  if (!blob || blob.byteLength !== 4 * (meta.phrases + meta.facts)) return undefined;
  const bytes = blob.byteOffset % 4 === 0 ? blob : Uint8Array.from(blob);
  return {
    phrases: { revision: meta.phrasesRevision, rows: new Int32Array(bytes.buffer, bytes.byteOffset, meta.phrases) },
    facts: { revision: meta.factsRevision, rows: new Int32Array(bytes.buffer, bytes.byteOffset + 4 * meta.phrases, meta.facts) },
  };
}
