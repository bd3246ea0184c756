import { createHash } from 'node:crypto';
import { contentId } from '../../core/ids.js';
import { undeflatedBlob, undeflatedBytes } from '../../core/undeflated-blob.js';
import { ValuesById } from '../../core/values-by-id.js';
import { replaceVectors } from '../../store/replace-vectors.js';
import { embedInBatches, embedSparseInBatches } from '../../providers/embed/embed-in-batches.js';
import { isCorpusFitted, isSparseEmbedder, type SparseVector } from '../../providers/embed/embedder.js';
import type { Store, VectorSpace } from '../../store/store.js';
import type { StepContext, StepOutput } from '../pipeline-step.js';

/** A text to embed under an id. */
export interface EmbeddingItem {
  id: string;
  text: string;
}

/** Options of {@link embedSpace}. */
export interface EmbedSpaceOptions {
  /**
   * The text under an id can change (an entity's description, a community's report): the space keeps a hash of the
   * text each vector was made from, and an item whose text changed is embedded again. Spaces whose ids are hashes
   * of their text (chunks, phrases, facts) need not.
   */
  textsChange?: boolean;
  /** More writes for the step's transaction (the fitted embedder's state). */
  extraWrite?: (tx: Store) => Promise<void>;
  /**
   * The output version, when the caller can name the items more cheaply than by hashing their sorted ids (the triple
   * index's version names every phrase and fact id).
   */
  outputVersion?: string;
  /**
   * The caller reads the space's order after the write (`idsAfterWrite`): stale vectors are deleted and new ones
   * appended. Without it, a new vector may take a stale one's row (`VectorIndex.replace`), which spares a sparse space
   * rewriting its posting lists for the deletion.
   */
  keepsRowOrder?: boolean;
}

/** What {@link embedSpace} gives: the step's output, and the space's ids in stored order once it is written, when known. */
export type EmbedSpaceOutput = StepOutput & {
  /** `VectorIndex.ids()` after `write`, known when the vectors are written in order in the step's transaction. */
  idsAfterWrite?: readonly string[];
};

const textHashesKey = (space: VectorSpace): string => `vector-texts:${space}`;

function textHash(text: string): string {
  return createHash('sha1').update(text).digest('base64url').slice(0, 12);
}

/**
 * The text hash each stored vector was made from, by id ({@link ValuesById}, in the items' order). Stored as a JSON pair
 * of lists, undeflated: for 39,000 entities that reads and writes in about 10 ms each, where the deflated JSON
 * object stored before cost 70 to read and 80 to write (the deflate, and the object's 39,000 keys).
 */
async function readTextHashes(store: Store, space: VectorSpace): Promise<ValuesById> {
  const none = new ValuesById([], []);
  const bytes = await store.getBlob(textHashesKey(space));
  if (bytes === undefined) return none;
  try {
    const parsed = JSON.parse(undeflatedBytes(bytes).toString('utf8')) as unknown;
    // An object of id → hash: as an earlier version stored them.
    if (!Array.isArray(parsed)) return ValuesById.ofRecord(parsed as Record<string, string>);
    return ValuesById.ofLists(parsed[0], parsed[1]) ?? none;
  } catch {
    // Unreadable hashes only cost a re-embedding of the space.
    return none;
  }
}

function storedTextHashes(ids: readonly string[], hashes: readonly string[]): Uint8Array {
  return undeflatedBlob([Buffer.from(JSON.stringify([ids, hashes]), 'utf8')]);
}

/**
 * Brings one vector space in line with `items`: only items without a vector made by this embedder (or, with
 * `textsChange`, whose text changed) are embedded, and vectors of vanished items are dropped. A space made by
 * another embedder — or by the local embedder under statistics since refitted, whose id names its fitted state — is
 * embedded again in full (how the vectors are written: `embedPlan`).
 */
export async function embedSpace(context: StepContext, space: VectorSpace, items: readonly EmbeddingItem[], options: EmbedSpaceOptions = {}): Promise<EmbedSpaceOutput> {
  const { store, embedder } = context;
  const vectors = store.vectors(space);
  const itemIds = new Set(items.map((item) => item.id));
  const hashes = options.textsChange ? new Map(items.map((item) => [item.id, textHash(item.text)])) : undefined;
  const info = await vectors.info();
  const sameEmbedder = info !== undefined && info.embedderId === embedder.id;
  const storedIds = sameEmbedder ? await vectors.ids() : [];
  const present = new Set(storedIds);
  const storedHashes = hashes && sameEmbedder ? await readTextHashes(store, space) : new ValuesById([], []);
  const missing = items.filter((item, position) => !present.has(item.id) || (hashes !== undefined && storedHashes.get(item.id, position) !== hashes.get(item.id)));
  const stale = storedIds.filter((id) => !itemIds.has(id));
  const outputVersion = options.outputVersion ?? (hashes ? vectorsVersion(space, embedder.id, [...hashes.keys()], [...hashes.values()]) : contentId('vectors', space, embedder.id, Array.from(itemIds).sort()));
  // The stored hashes are these when every item kept its vector and text and no vector went.
  const hashesUnchanged = sameEmbedder && missing.length === 0 && stale.length === 0 && storedHashes.size === hashes?.size;
  return embedPlan(context, space, {
    total: items.length,
    missing,
    stale,
    sameEmbedder,
    otherEmbedder: info !== undefined && !sameEmbedder,
    kept: stale.length === 0 ? storedIds : storedIds.filter((id) => itemIds.has(id)),
    present,
    outputVersion,
    hashes: hashes && !hashesUnchanged ? storedTextHashes([...hashes.keys()], [...hashes.values()]) : undefined,
    extraWrite: options.extraWrite,
    keepsRowOrder: options.keepsRowOrder === true,
  });
}

/** The output version of a space whose items' texts change: its items' ids and text hashes, in id order. */
function vectorsVersion(space: VectorSpace, embedderId: string, ids: readonly string[], hashes: readonly string[]): string {
  return contentId('vectors', space, embedderId, ids.map((id, index) => `${id}:${hashes[index]}`).sort());
}

/** Where the texts of a space's items come from, and which of them may have changed since the step last ran. */
export interface ChangingTexts {
  /** The items of `ids` that exist, in stored order; every item when `ids` is undefined. */
  read(ids?: readonly string[]): Promise<EmbeddingItem[]>;
  /** The ids whose items may have changed (upserted or deleted) since the step last ran, when known (`StepContext.changedKeys`). */
  changed: ReadonlySet<string> | undefined;
}

/**
 * {@link embedSpace} of items whose texts change (`textsChange`), read from `source`. When the runner knows which items
 * may have changed since the step last ran, only those are read and hashed, and every other vector and text hash
 * stands: a 1 % add to 2Wiki rewrites 1,300 of 39,000 entities, and reading and hashing every entity's text was most
 * of what its embed step spent. The stored vectors and hashes are the ones that run left, so the outcome is the
 * full comparison's. Without known changes, or a space made by another embedder, every item is read.
 */
export async function embedChangingTexts(context: StepContext, space: VectorSpace, source: ChangingTexts, options: Omit<EmbedSpaceOptions, 'textsChange'> = {}): Promise<EmbedSpaceOutput> {
  const { store, embedder } = context;
  const vectors = store.vectors(space);
  const everyItem = async (): Promise<EmbedSpaceOutput> => embedSpace(context, space, await source.read(), { ...options, textsChange: true });
  const { changed } = source;
  if (changed === undefined || (await vectors.info())?.embedderId !== embedder.id) return everyItem();
  const [storedIds, stored] = await Promise.all([vectors.ids(), readTextHashes(store, space)]);
  // After the step's last run every stored vector has its text's hash; were they out of step, every item is compared.
  if (stored.size !== storedIds.length) return everyItem();
  const items = changed.size === 0 ? [] : await source.read([...changed]);
  const present = new Set(storedIds);
  const hashOf = new Map(items.map((item) => [item.id, textHash(item.text)]));
  // The stored place of each changed item, found in one pass over the stored ids: a map of all of them cost more.
  const storedIndex = new Map<string, number>();
  stored.ids.forEach((id, index) => {
    if (hashOf.has(id)) storedIndex.set(id, index);
  });
  const missing = items.filter((item) => {
    const index = storedIndex.get(item.id) ?? -1;
    return !present.has(item.id) || index < 0 || stored.values[index] !== hashOf.get(item.id);
  });
  const gone = new Set([...changed].filter((id) => !hashOf.has(id)));
  const stale = storedIds.filter((id) => gone.has(id));
  // The stored hashes in their order, changed ones replaced and gone ones dropped; new items after them.
  const ids: string[] = [];
  const values: string[] = [];
  stored.ids.forEach((id, index) => {
    if (gone.has(id)) return;
    ids.push(id);
    values.push(hashOf.get(id) ?? (stored.values[index] as string));
  });
  for (const item of items) {
    if (storedIndex.has(item.id)) continue;
    ids.push(item.id);
    values.push(hashOf.get(item.id) as string);
  }
  const unchanged = missing.length === 0 && stale.length === 0;
  return embedPlan(context, space, {
    total: ids.length,
    missing,
    stale,
    sameEmbedder: true,
    otherEmbedder: false,
    kept: stale.length === 0 ? storedIds : storedIds.filter((id) => !gone.has(id)),
    present,
    outputVersion: options.outputVersion ?? vectorsVersion(space, embedder.id, ids, values),
    hashes: unchanged ? undefined : storedTextHashes(ids, values),
    extraWrite: options.extraWrite,
    keepsRowOrder: options.keepsRowOrder === true,
  });
}

/** What {@link embedPlan} embeds and writes. */
interface EmbedPlan {
  /** Items of the space after the step. */
  total: number;
  /** Items to embed: without a vector, or whose text changed. */
  missing: readonly EmbeddingItem[];
  /** Stored ids whose vectors go. */
  stale: readonly string[];
  /** Whether the stored vectors were made by this embedder (else the space is embedded again in full). */
  sameEmbedder: boolean;
  /** Whether the space holds vectors of another embedder, cleared before the new ones are stored. */
  otherEmbedder: boolean;
  /** The stored ids that stay, in stored order. */
  kept: readonly string[];
  /** Every stored id. */
  present: ReadonlySet<string>;
  outputVersion: string;
  /** The text hashes to store, when they changed. */
  hashes: Uint8Array | undefined;
  extraWrite: ((tx: Store) => Promise<void>) | undefined;
  /** See {@link EmbedSpaceOptions.keepsRowOrder}. */
  keepsRowOrder: boolean;
}

/**
 * Embeds a plan's missing items and writes them. The local embedder's vectors are cheap, so they are written in the
 * step's transaction; a remote embedder's are stored batch by batch as they arrive, so a crash never pays for the
 * same embeddings twice.
 */
async function embedPlan(context: StepContext, space: VectorSpace, plan: EmbedPlan): Promise<EmbedSpaceOutput> {
  const { store, embedder, config } = context;
  const { missing, stale, sameEmbedder, outputVersion } = plan;
  const counts = { [space]: plan.total, embedded: missing.length, removed: stale.length };
  const writeHashes = async (tx: Store): Promise<void> => {
    if (plan.hashes) await tx.setBlob(textHashesKey(space), plan.hashes);
  };
  let done = plan.total - missing.length;
  context.progress(done, plan.total, space);

  if (isCorpusFitted(embedder)) {
    const embedded = await embedFitted(context, space, missing, done, plan.total);
    const items = missing.map((item, index) => ({ id: item.id, vector: embedded[index] as Float32Array | SparseVector }));
    return {
      counts,
      outputVersion,
      // A delete keeps the other rows in order and new ids go after them; a replaced vector keeps its place.
      ...(plan.keepsRowOrder ? { idsAfterWrite: [...plan.kept, ...missing.filter((item) => !plan.present.has(item.id)).map((item) => item.id)] } : {}),
      async write(tx) {
        const target = tx.vectors(space);
        if (!sameEmbedder) await target.clear();
        await replaceVectors(target, sameEmbedder ? stale : [], items, embedder.id, { keepsRowOrder: plan.keepsRowOrder });
        await writeHashes(tx);
        await plan.extraWrite?.(tx);
      },
    };
  }

  const vectors = store.vectors(space);
  if (plan.otherEmbedder) await vectors.clear();
  await embedInBatches(
    embedder,
    missing.map((item) => item.text),
    {
      batchSize: Math.min(config.embeddings.batchSize, embedder.maxBatchSize),
      concurrency: config.embeddings.concurrency,
      inputType: 'document',
      ...(context.signal === undefined ? {} : { abortSignal: context.signal }),
      onBatch: async (start, batch) => {
        await vectors.upsert(
          batch.map((vector, offset) => ({ id: (missing[start + offset] as EmbeddingItem).id, vector })),
          embedder.id,
        );
        done += batch.length;
        context.progress(done, plan.total, space);
      },
    },
  );
  return {
    counts,
    outputVersion,
    async write(tx) {
      await tx.vectors(space).delete(stale);
      await writeHashes(tx);
      await plan.extraWrite?.(tx);
    },
  };
}

/**
 * Embeds `items`, none of which has a vector in `space` yet, with a corpus-fitted embedder (the local one, whose vectors
 * are written in the step's transaction), and writes them in `items` order after every stored vector: what an update
 * that only adds to a space costs, without reading the space's ids or the other items. Undefined for another embedder,
 * whose vectors are stored as they arrive ({@link embedSpace}).
 */
export async function embedNewItems(context: StepContext, space: VectorSpace, items: readonly EmbeddingItem[]): Promise<{ embedded: number; write(tx: Store): Promise<void> } | undefined> {
  const { embedder } = context;
  if (!isCorpusFitted(embedder)) return undefined;
  context.progress(0, items.length, space);
  const embedded = await embedFitted(context, space, items, 0, items.length);
  return {
    embedded: items.length,
    async write(tx) {
      await tx.vectors(space).upsert(
        items.map((item, index) => ({ id: item.id, vector: embedded[index] as Float32Array | SparseVector })),
        embedder.id,
      );
    },
  };
}

/** The vectors of `items` by the corpus-fitted embedder, in batches, reporting progress from `done` of `total`. */
async function embedFitted(context: StepContext, space: VectorSpace, items: readonly EmbeddingItem[], done: number, total: number): Promise<ReadonlyArray<Float32Array | SparseVector>> {
  const { embedder } = context;
  const onBatch = (_start: number, batch: readonly unknown[]): void => {
    done += batch.length;
    context.progress(done, total, space);
  };
  const texts = items.map((item) => item.text);
  return isSparseEmbedder(embedder) ? await embedSparseInBatches(embedder, texts, { batchSize: 512, onBatch }) : await embedInBatches(embedder, texts, { batchSize: 512, onBatch });
}
