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
  /** Meta: {@link TripleIndexMeta}. */
  indexMeta: 'triples:index-meta',
  /** Blob: the vector row maps. */
  vectorRows: 'triples:vector-rows',
  /** Meta: {@link VectorRowsMeta}. */
  vectorRowsMeta: 'triples:vector-rows-meta',
  /** Blob: where the phrases and facts of the index a delete removed chunks from went ({@link TripleIndexRemovalRecord}); empty after any other update. */
  removal: 'triples:index-removal',
} as const;

/**
 * The index an update appended to: the stored index is that one (of output version `version`) with phrases, facts and
 * chunks after its first `phrases`, `facts` and `chunks`, which are that index's, in its order; the new rows are of new
 * chunks only, so an old chunk's lists are unchanged and an old phrase's or fact's gain only new chunks.
 */
export interface TripleIndexAppend {
  version: string;
  phrases: number;
  facts: number;
  chunks: number;
}

/**
 * The index a delete removed chunks from (`encodeTripleIndexRemoval`): the stored index is that one (of output version
 * `version`, with `phrases` phrases and `facts` facts) without the phrases and facts only the removed chunks named, the
 * others renumbered (the maps in {@link tripleIndexKeys}.removal), and with new ids for the facts whose first
 * occurrence was removed (now that of a later row). What an update of the vectors needs to follow it without comparing
 * every id: the ids whose vectors go, and the facts to embed under their new ids.
 */
export interface TripleIndexRemovalRecord extends TripleIndexAppend {
  /** Ids of the phrases no kept chunk names. */
  removedPhraseIds: string[];
  /** Ids of the facts no kept chunk states, and the old ids of the facts that took a new one. */
  staleFactIds: string[];
  /** New indices of the facts that took a new id, ascending. */
  renamedFacts: number[];
}

/** Where the phrases and facts of the index before a delete went: old index → new, −1 for gone. */
export interface TripleIndexRemovalMaps {
  phrases: Int32Array;
  facts: Int32Array;
}

/** What {@link tripleIndexKeys}.indexMeta holds. */
interface TripleIndexMeta {
  /** The `triples` output version the blob was built from. */
  version: string;
  /** Set by an update that appended to the index before (`appendTripleRows`), so its vectors can be appended to as well. */
  appendedTo?: TripleIndexAppend;
  /** Set by a delete that removed chunks from the index before, so its vectors can follow (maps in {@link tripleIndexKeys}.removal). */
  removedFrom?: TripleIndexRemovalRecord;
}

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

/**
 * {@link storeTripleIndex} of an index already encoded (an update appends to the stored blob, and says to which in
 * `appendedTo`; a delete removes chunks from it, and says from which in `removed`).
 */
export async function storeEncodedTripleIndex(
  tx: Store,
  blob: Uint8Array,
  version: string,
  appendedTo?: TripleIndexAppend,
  removed?: { from: TripleIndexRemovalRecord; maps: TripleIndexRemovalMaps },
): Promise<void> {
  await tx.setBlob(tripleIndexKeys.index, blob);
  const meta: TripleIndexMeta = { version, ...(appendedTo === undefined ? {} : { appendedTo }), ...(removed === undefined ? {} : { removedFrom: removed.from }) };
  await tx.setMeta(tripleIndexKeys.indexMeta, meta);
  const maps = new Int32Array(removed === undefined ? 0 : removed.maps.phrases.length + removed.maps.facts.length);
  if (removed) {
    maps.set(removed.maps.phrases);
    maps.set(removed.maps.facts, removed.maps.phrases.length);
  }
  await tx.setBlob(tripleIndexKeys.removal, new Uint8Array(maps.buffer));
}

/** The maps of the delete `removedFrom` records, or undefined when the stored ones are not of that index. */
export async function loadTripleIndexRemovalMaps(store: Store, removedFrom: TripleIndexRemovalRecord): Promise<TripleIndexRemovalMaps | undefined> {
  const blob = await store.getBlob(tripleIndexKeys.removal);
  if (!blob || blob.byteLength !== 4 * (removedFrom.phrases + removedFrom.facts)) return undefined;
  const bytes = blob.byteOffset % 4 === 0 ? blob : Uint8Array.from(blob);
  return {
    phrases: new Int32Array(bytes.buffer, bytes.byteOffset, removedFrom.phrases),
    facts: new Int32Array(bytes.buffer, bytes.byteOffset + 4 * removedFrom.phrases, removedFrom.facts),
  };
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
export async function loadTripleIndex(
  store: Store,
): Promise<{ index: TripleIndex; version: string | undefined; appendedTo?: TripleIndexAppend; removedFrom?: TripleIndexRemovalRecord }> {
  const [blob, meta] = await Promise.all([store.getBlob(tripleIndexKeys.index), store.getMeta<TripleIndexMeta>(tripleIndexKeys.indexMeta)]);
  const decoded = blob && meta ? decodeTripleIndex(blob) : undefined;
  if (decoded && meta) {
    return { index: decoded, version: meta.version, ...(meta.appendedTo === undefined ? {} : { appendedTo: meta.appendedTo }), ...(meta.removedFrom === undefined ? {} : { removedFrom: meta.removedFrom }) };
  }
  return { index: buildTripleIndex(await store.table('triples').all()), version: undefined };
}

/**
 * Stores which row of the triple index (of `indexVersion`) each stored phrase and fact vector is, in the
 * `embed-triples` step's transaction after its vectors are written. `storedIds` are the spaces' ids in stored order
 * when the caller knows them (else they are read).
 */
export async function storeTripleVectorRows(
  tx: Store,
  index: TripleIndex,
  indexVersion: string | undefined,
  storedIds?: { phrases: readonly string[]; facts: readonly string[] },
): Promise<void> {
  const [phrases, facts] = await Promise.all([tx.vectors('phrases').info(), tx.vectors('facts').info()]);
  if (indexVersion === undefined || !phrases || !facts) {
    await tx.setMeta(tripleIndexKeys.vectorRowsMeta, null);
    return;
  }
  const phraseRows = rowsOf(storedIds?.phrases ?? (await tx.vectors('phrases').ids()), allTripleIndexStrings(index, 'phraseIds'));
  const factRows = rowsOf(storedIds?.facts ?? (await tx.vectors('facts').ids()), allTripleIndexStrings(index, 'factIds'));
  await writeVectorRows(tx, indexVersion, { revision: phrases.revision, rows: phraseRows }, { revision: facts.revision, rows: factRows });
}

async function writeVectorRows(tx: Store, indexVersion: string, phrases: StoredRowMap, facts: StoredRowMap): Promise<void> {
  const bytes = new Uint8Array(4 * (phrases.rows.length + facts.rows.length));
  new Int32Array(bytes.buffer, 0, phrases.rows.length).set(phrases.rows);
  new Int32Array(bytes.buffer, 4 * phrases.rows.length, facts.rows.length).set(facts.rows);
  await tx.setBlob(tripleIndexKeys.vectorRows, bytes);
  const meta: VectorRowsMeta = { indexVersion, phrasesRevision: phrases.revision, factsRevision: facts.revision, phrases: phrases.rows.length, facts: facts.rows.length };
  await tx.setMeta(tripleIndexKeys.vectorRowsMeta, meta);
}

/** The row maps of the index an update appended to, when its vectors can be appended to as well ({@link appendableTripleVectorRows}). */
export interface AppendableVectorRows {
  phrases: Int32Array;
  facts: Int32Array;
}

/**
 * The stored row maps of the index `appendedTo` names, when the phrase and fact spaces hold exactly that index's
 * vectors, made by `embedderId`, unchanged since the maps were stored: then the phrases and facts the appended index
 * added are the ones without a vector, and an update embeds them and appends their rows without reading the spaces' ids.
 */
export async function appendableTripleVectorRows(store: Store, embedderId: string, appendedTo: TripleIndexAppend): Promise<AppendableVectorRows | undefined> {
  const rows = await loadTripleVectorRows(store, appendedTo.version);
  if (!rows) return undefined;
  const [phrases, facts] = await Promise.all([store.vectors('phrases').info(), store.vectors('facts').info()]);
  const current = (info: typeof phrases, map: StoredRowMap, count: number): boolean =>
    info !== undefined && info.embedderId === embedderId && info.revision === map.revision && coversEveryRow(map.rows, count);
  if (!current(phrases, rows.phrases, appendedTo.phrases) || !current(facts, rows.facts, appendedTo.facts)) return undefined;
  return { phrases: rows.phrases.rows, facts: rows.facts.rows };
}

/** Whether `rows` maps the stored vectors one to one onto rows 0…count−1 (a vector for each, none of another index). */
function coversEveryRow(rows: Int32Array, count: number): boolean {
  if (rows.length !== count) return false;
  const seen = new Uint8Array(count);
  for (const row of rows) {
    if (row < 0 || row >= count || seen[row] === 1) return false;
    seen[row] = 1;
  }
  return true;
}

/**
 * Stores the row maps after the vectors of the phrases and facts an appended index added were upserted in index order
 * (new ids go after every stored one, `VectorIndex.ids`): the maps of the index appended to, followed by the new rows.
 */
export async function storeAppendedTripleVectorRows(tx: Store, previous: AppendableVectorRows, counts: { phrases: number; facts: number }, indexVersion: string): Promise<void> {
  const [phrases, facts] = await Promise.all([tx.vectors('phrases').info(), tx.vectors('facts').info()]);
  if (!phrases || !facts) {
    await tx.setMeta(tripleIndexKeys.vectorRowsMeta, null);
    return;
  }
  const extended = (rows: Int32Array, count: number): Int32Array => {
    const all = new Int32Array(count);
    all.set(rows);
    for (let row = rows.length; row < count; row++) all[row] = row;
    return all;
  };
  await writeVectorRows(tx, indexVersion, { revision: phrases.revision, rows: extended(previous.phrases, counts.phrases) }, { revision: facts.revision, rows: extended(previous.facts, counts.facts) });
}

/**
 * Stores the row maps of the phrase and fact vectors for the index of `indexVersion` (the stored vectors' rows in that
 * index, in stored order), after the vectors are written in the step's transaction.
 */
export async function storeTripleVectorRowMaps(tx: Store, indexVersion: string, rows: { phrases: Int32Array; facts: Int32Array }): Promise<void> {
  const [phrases, facts] = await Promise.all([tx.vectors('phrases').info(), tx.vectors('facts').info()]);
  if (!phrases || !facts) {
    await tx.setMeta(tripleIndexKeys.vectorRowsMeta, null);
    return;
  }
  await writeVectorRows(tx, indexVersion, { revision: phrases.revision, rows: rows.phrases }, { revision: facts.revision, rows: rows.facts });
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
