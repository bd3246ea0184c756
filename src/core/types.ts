/**
 * The graph index data model (SPEC §3). Every `id` is a content hash (see `contentId`), so the same
 * input gives the same ids on every run. `hid` is the small "human readable id" a store assigns in
 * insertion order; answers cite it (`[Data: Sources (3, 7)]`), as Microsoft GraphRAG does. Column names
 * follow GraphRAG's output tables where they overlap, so an index can be exported to its layout.
 */

/** Free-form metadata carried from the input (file stats, record fields, front matter). */
export type Metadata = Record<string, unknown>;

/** A loaded input document (GraphRAG `documents`). */
export interface DocumentRecord {
  /** Content hash of the normalized text. */
  id: string;
  hid?: number;
  title: string;
  /** Where it came from: a file path, `file#record`, or a URL. Re-indexing a changed source replaces its document. */
  source: string;
  /** Normalized text; chunk offsets point into it. */
  text: string;
  metadata: Metadata;
  /** SHA-256 of `text`. */
  contentHash: string;
  /** ISO-8601 time the document was first loaded. */
  createdAt: string;
}

/** A text unit (GraphRAG `text_units`): a contiguous slice `text = document.text.slice(start, end)`. */
export interface ChunkRecord {
  id: string;
  hid?: number;
  documentId: string;
  /** Position of the chunk within its document, from 0. */
  ordinal: number;
  text: string;
  nTokens: number;
  /** Character offset of the first character in the document's normalized text. */
  start: number;
  /** Character offset one past the last character. */
  end: number;
}

/** A graph node (GraphRAG `entities`). */
export interface EntityRecord {
  id: string;
  hid?: number;
  /** Canonical name. */
  title: string;
  /** `person`, `organization`, `geo`, `event`, `noun phrase`, … */
  type: string;
  description: string;
  /** Other surface forms merged into this entity. */
  aliases: string[];
  /** Number of chunks mentioning it. */
  frequency: number;
  /** Number of distinct neighbours in the relation graph. */
  degree: number;
  chunkIds: string[];
}

/** A graph edge (GraphRAG `relationships`); `source` and `target` are entity ids. */
export interface RelationRecord {
  id: string;
  hid?: number;
  source: string;
  target: string;
  description: string;
  keywords: string[];
  weight: number;
  /** degree(source) + degree(target); GraphRAG's priority for report context. */
  combinedDegree: number;
  chunkIds: string[];
}

/** An OpenIE fact (HippoRAG), used by the `ppr` and `relations` methods. */
export interface TripleRecord {
  id: string;
  subject: string;
  predicate: string;
  object: string;
  chunkId: string;
}

/** A claim / covariate (GraphRAG `covariates`). */
export interface ClaimRecord {
  id: string;
  hid?: number;
  subject: string;
  object: string | null;
  type: string;
  status: 'TRUE' | 'FALSE' | 'SUSPECTED';
  startDate: string | null;
  endDate: string | null;
  description: string;
  sourceText: string;
  chunkId: string;
}

/** A community of the hierarchical clustering (GraphRAG `communities`). Level 0 is the coarsest. */
export interface CommunityRecord {
  id: string;
  hid?: number;
  level: number;
  parent: string | null;
  children: string[];
  title: string;
  entityIds: string[];
  relationIds: string[];
  chunkIds: string[];
  /** Number of entities. */
  size: number;
}

/** One finding of a community report. */
export interface ReportFinding {
  summary: string;
  explanation: string;
}

/** A community report (GraphRAG `community_reports`). */
export interface ReportRecord {
  communityId: string;
  hid?: number;
  level: number;
  title: string;
  summary: string;
  findings: ReportFinding[];
  /** 0–10 importance (GraphRAG `rank`). */
  rating: number;
  ratingExplanation: string;
  /** Markdown: `# title`, summary, then `## finding` sections. */
  fullContent: string;
  /** `extractive` when built without an LLM. */
  generatedBy: 'extractive' | 'llm';
  /**
   * Why the LLM report failed (after its repair attempt), or null. A failed community keeps an
   * extractive report so that global search still sees it — failures are recorded, never silently absent.
   */
  error: string | null;
}

/** An AutoKG keyword. */
export interface KeywordRecord {
  id: string;
  text: string;
}

/** Membership of a chunk in a keyword's set, with its Laplace-learning score. */
export interface KeywordChunkRecord {
  keywordId: string;
  chunkId: string;
  score: number;
}

/** Keyword graph edge; weight = number of shared chunks. */
export interface KeywordEdgeRecord {
  a: string;
  b: string;
  weight: number;
}

/** A stored extractor output, so rebuilding the graph never calls the LLM again. */
export interface ExtractionRecord {
  id: string;
  chunkId: string;
  extractor: string;
  model: string;
  promptHash: string;
  raw: string;
  parsed: unknown;
}

/** Token counts of one or more LLM calls. */
export interface TokenUsage {
  inputTokens: number;
  outputTokens: number;
}

/** A cached LLM response. */
export interface LlmCacheRecord {
  key: string;
  model: string;
  response: unknown;
  usage: TokenUsage;
  createdAt: string;
}

/**
 * One source tag of an LLM cache entry: the content hash (`sha256`) of a text the cached call's prompt was built
 * from, so that deleting the text's document deletes the reply (`forgetCachedCalls`).
 */
export interface LlmCacheSourceRecord {
  /** The `llm_cache` key. */
  key: string;
  source: string;
}

/** The kinds of record another tool's index may name by its own ids. */
export type ExternalRecordKind = 'document' | 'chunk' | 'entity' | 'relation' | 'claim' | 'community' | 'report';

/**
 * One record of an imported index by the id the tool that made it gave it (`kgrag import graphrag`), beside the
 * kgrag record it became. `record` keeps what kgrag's record does not hold and an export needs to give the
 * tool's row back: its human-readable id, and for a relationship its direction, own description and weight
 * (kgrag keeps one relation per pair of entities; GraphRAG may keep A→B and B→A).
 */
export interface ExternalIdRecord {
  kind: ExternalRecordKind;
  /** The id in the other tool (GraphRAG's UUID or hash). */
  externalId: string;
  /** The kgrag id of the record it became. */
  id: string;
  /** The tool, e.g. `graphrag`. */
  system: string;
  record: Record<string, unknown>;
}

/** Status of one pipeline step in a workspace. */
export interface RunRecord {
  step: string;
  status: 'pending' | 'running' | 'done' | 'failed';
  /** Hash of the step's configuration and of its inputs' versions; a done step with the same fingerprint is skipped. */
  fingerprint: string;
  /** Hash of what the step produced; downstream fingerprints include it. */
  outputVersion: string;
  startedAt: string | null;
  finishedAt: string | null;
  durationMs: number;
  counts: Record<string, number>;
  usage: RunUsage;
  error: string | null;
}

/** LLM and embedding usage of a step, per model. */
export interface RunUsage {
  llmCalls: number;
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
  byModel: Record<string, { calls: number; inputTokens: number; outputTokens: number; costUsd: number }>;
}
