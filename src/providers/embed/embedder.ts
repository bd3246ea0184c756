/** Options of one embedding call. */
export interface EmbedOptions {
  abortSignal?: AbortSignal;
  /**
   * Whether the texts are corpus content or a search query. Asymmetric models (e5, bge, nomic)
   * need different prefixes; symmetric ones ignore it. @default 'document'
   */
  inputType?: 'document' | 'query';
}

/**
 * Turns texts into L2-normalized vectors, so cosine similarity is a dot product.
 * Adapters: the weight-free `local` embedder and any OpenAI-compatible `/v1/embeddings` endpoint.
 */
export interface Embedder {
  /**
   * Identifies the vector space: two embedders with the same id produce comparable vectors.
   * The store records it and refuses to mix spaces (GraphRAG issue #2231: silent dimension mismatches).
   */
  readonly id: string;
  /** Vector length; `undefined` until the first call for remote models that do not declare it. */
  readonly dimensions: number | undefined;
  /** Most texts one `embed` call accepts; callers split larger inputs. */
  readonly maxBatchSize: number;
  /** Embeds `texts` in order; every returned vector has unit length (or is all zeros for an empty text). */
  embed(texts: readonly string[], options?: EmbedOptions): Promise<Float32Array[]>;
  /**
   * The same vectors by their non-zero coordinates, for an embedder whose vectors are mostly zeros (the local
   * embedder: a phrase touches a few dozen of 1,024 coordinates), so that 130,000 of them need not be 4 KB arrays.
   */
  embedSparse?(texts: readonly string[]): Promise<SparseVector[]>;
}

/** A vector by its non-zero coordinates: ascending `columns` and their `values`. */
export interface SparseVector {
  dimensions: number;
  columns: Int32Array;
  values: Float32Array;
}

/**
 * An embedder whose vectors depend on corpus statistics (the `local` embedder's IDF).
 * The pipeline fits it on all chunks, stores the state in the workspace and restores it for queries.
 */
export interface CorpusFittedEmbedder extends Embedder {
  readonly corpusFitted: true;
  /** Learns corpus statistics; changes `id` so that vectors from different fits are never mixed. */
  fit(corpus: Iterable<string>): void;
  /** Serialized fitted state. */
  exportState(): Uint8Array;
  /** Restores a state produced by `exportState`. */
  importState(state: Uint8Array): void;
}

/** True when the embedder needs `fit` on the corpus before use. */
export function isCorpusFitted(embedder: Embedder): embedder is CorpusFittedEmbedder {
  return (embedder as Partial<CorpusFittedEmbedder>).corpusFitted === true;
}

/** An embedder that gives its vectors by their non-zero coordinates too. */
export type SparseEmbedder = Embedder & Required<Pick<Embedder, 'embedSparse'>>;

/** Whether `embedder` gives its vectors by their non-zero coordinates (`embedSparse`). */
export function isSparseEmbedder(embedder: Embedder): embedder is SparseEmbedder {
  return typeof embedder.embedSparse === 'function';
}
