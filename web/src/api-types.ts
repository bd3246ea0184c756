/*
 * The shapes of the kgrag HTTP API the explorer reads (see `/openapi.json`). The server's own types live in the
 * Node package; the explorer keeps this mirror of the contract so that it builds without server code, and
 * test/web-api-types.test.ts makes the type check fail when the server's shapes stop fitting it.
 */

export interface EntitySummary {
  id: string;
  title: string;
  type: string;
  degree: number;
  frequency: number;
}

export interface EntityMatch extends EntitySummary {
  match: 'exact' | 'prefix' | 'word' | 'contains' | 'text';
  alias?: string;
}

export interface SourcePassage {
  chunkId: string;
  documentId: string;
  documentTitle: string;
  text: string;
}

export interface EntityDetail extends EntitySummary {
  description: string;
  aliases: string[];
  chunkIds: string[];
  sources: SourcePassage[];
  communities: Array<{ id: string; level: number; title: string; reportTitle: string | undefined }>;
}

export interface GraphNode extends EntitySummary {
  depth: number;
  /** The entity's community id at each level (index = level, 0 the coarsest). */
  communities?: string[];
  x?: number;
  y?: number;
}

export interface GraphEdge {
  id: string;
  source: string;
  target: string;
  description: string;
  weight: number;
}

export interface GraphSlice {
  nodes: GraphNode[];
  edges: GraphEdge[];
  truncated: boolean;
}

export interface Finding {
  summary: string;
  explanation: string;
}

export interface CommunityView {
  id: string;
  level: number;
  parent: string | null;
  children: string[];
  title: string;
  size: number;
  report:
    | { title: string; summary: string; rating: number; ratingExplanation: string; findings: Finding[]; fullContent: string; generatedBy?: string }
    | undefined;
}

/** One community as `GET /communities/{id}` returns it: with its member entities. */
export interface CommunityDetail extends CommunityView {
  entityIds: string[];
}

export interface CommunityPage {
  total: number;
  levels: number[];
  communities: CommunityView[];
}

export interface ChunkView {
  id: string;
  ordinal: number;
  text: string;
  nTokens: number;
  start: number;
  end: number;
  document: { id: string; title: string; source: string; createdAt: string };
}

export interface MethodDescription {
  name: string;
  description: string;
  variants: string[];
  /** The parameter(s) `topK` sets, or null when the method has none. */
  topKParam: string | string[] | null;
  /** How the method ranks passages (for evaluation): its own ranking, or a proxy. */
  ranking: RankingInfo;
  /** JSON Schema of the method's settings (input side). */
  parameters: JsonSchema;
  built: boolean;
}

/** The part of JSON Schema the parameters form reads. */
export interface JsonSchema {
  type?: string | string[];
  description?: string;
  default?: unknown;
  enum?: unknown[];
  const?: unknown;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  properties?: Record<string, JsonSchema>;
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
}

/** Whose ranking a method's passages are: its own (`native`), a stand-in (`proxy`), or another procedure's (`fallback`). */
export interface RankingInfo {
  kind: 'native' | 'proxy' | 'fallback';
  note?: string;
}

export interface ContextChunk {
  id: string;
  hid: number;
  documentId: string;
  documentTitle: string;
  source: string;
  text: string;
  score: number;
  scores: Record<string, number>;
}

export interface Citation {
  dataset: 'Sources' | 'Entities' | 'Relationships' | 'Reports' | 'Claims';
  hid: number;
  id: string;
  title: string;
  source?: string;
  quote?: string;
}

export interface QuerySubgraph {
  nodes: Array<{ id: string; label: string; kind: string; score?: number }>;
  edges: Array<{ source: string; target: string; kind: string; weight?: number }>;
}

export interface TraceStep {
  name: string;
  ms: number;
  detail?: Record<string, unknown>;
}

export interface QueryResult {
  question: string;
  method: string;
  variant: string | undefined;
  answer: { text: string; kind: 'generated' | 'extractive' | 'none'; label?: string };
  citations: Citation[];
  context: {
    chunks: ContextChunk[];
    ranking?: RankingInfo;
    entities?: Array<{ id: string; title: string; type: string; description: string }>;
    relations?: Array<{ id: string; source: string; target: string; description: string; weight: number }>;
    communities?: Array<{ id: string; title: string; level: number }>;
    keywords?: Array<{ id: string; text: string; score: number }>;
    subgraph?: QuerySubgraph;
    tokens: number;
    text?: string;
  };
  trace: { steps: TraceStep[]; params: Record<string, unknown>; unknownReferences: number };
  usage: { llmCalls: number; inputTokens: number; outputTokens: number; costUsd: number; latencyMs: number };
  index: { generation: number; publishedAt: string | null };
  warnings: string[];
}

export interface QueryRequest {
  question: string;
  method?: string;
  variant?: string;
  params?: Record<string, unknown>;
  topK?: number;
  contextOnly?: boolean;
}

export interface DocumentInfo {
  id: string;
  title: string;
  source: string;
  chunks: number;
  indexedAt: string | null;
  status: string;
}

/** A document with its text, as `GET /documents/{id}` returns it. */
export interface DocumentDetail {
  id: string;
  title: string;
  source: string;
  metadata: Record<string, unknown>;
  indexedAt: string;
  status: string;
  text: string;
  chunkIds: string[];
}

export interface JobStep {
  step: string;
  status: 'pending' | 'running' | 'done' | 'skipped';
  done: number;
  total: number;
  unit: string;
  durationMs: number | undefined;
}

export interface JobView {
  id: string;
  kind: string;
  status: 'queued' | 'running' | 'succeeded' | 'failed' | 'cancelled';
  createdAt: string;
  startedAt: string | null;
  endedAt: string | null;
  input: { documents: string[]; files: string[]; selectors: string[]; mode: string | null; methods: string[] | null };
  steps: JobStep[];
  resumed: number;
  warnings: string[];
  error: { code: string; message: string } | null;
  result: { durationMs: number; deleted?: string[] } | null;
}

export interface WorkspaceStats {
  name: string;
  index: { generation: number | null; publishedAt: string | null };
  counts: Record<string, number>;
  jobs: { running: string[]; queued: string[] };
  /** Whether an LLM is configured; without one, answers are extractive. */
  llm?: { configured: boolean; model: string | null };
}

/** An `application/problem+json` error document. */
export interface Problem {
  type?: string;
  title?: string;
  status: number;
  detail?: string;
  code?: string;
  hint?: string;
}
