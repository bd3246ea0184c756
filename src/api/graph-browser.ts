import type { DocumentRecord, ReportRecord } from '../core/types.js';

/** An entity as a list shows it. */
export interface EntitySummary {
  id: string;
  title: string;
  type: string;
  degree: number;
  frequency: number;
}

/** One hit of {@link GraphBrowser.searchEntities}: how the name matched decides the order before degree does. */
export interface EntityMatch extends EntitySummary {
  /** `exact` title or alias, `prefix` of the title, a title `word` starting with the query, `contains`, or `text` (full-text match of title/description). */
  match: 'exact' | 'prefix' | 'word' | 'contains' | 'text';
  /** The alias that matched, when an alias rather than the title did. */
  alias?: string;
}

/** A passage that mentions an entity, with the document it comes from. */
export interface SourcePassage {
  chunkId: string;
  documentId: string;
  documentTitle: string;
  text: string;
}

/** A community an entity belongs to, at one hierarchy level. */
export interface EntityCommunity {
  id: string;
  level: number;
  title: string;
  /** The title of its report, when one exists. */
  reportTitle: string | undefined;
}

/** Everything the explorer's and the API's entity view shows. */
export interface EntityDetail extends EntitySummary {
  description: string;
  aliases: string[];
  chunkIds: string[];
  /** Up to `maxSources` passages (in chunk order), each with its document. */
  sources: SourcePassage[];
  /** The communities containing it, from level 0 (the coarsest) down. */
  communities: EntityCommunity[];
}

/** An edge of a neighbourhood or slice. */
export interface GraphEdge {
  id: string;
  source: string;
  target: string;
  description: string;
  weight: number;
}

/** A subgraph: nodes, the edges among them, and whether limits cut it short. */
export interface GraphSlice {
  nodes: Array<EntitySummary & { /** Hops from the start entity (neighbours), or 0 (slice). */ depth: number }>;
  edges: GraphEdge[];
  /** True when `limit` or `maxEdges` left nodes or edges out. */
  truncated: boolean;
}

/** A community with its report, as the communities view lists it. */
export interface CommunityView {
  id: string;
  level: number;
  parent: string | null;
  children: string[];
  title: string;
  size: number;
  report: Pick<ReportRecord, 'title' | 'summary' | 'rating' | 'ratingExplanation' | 'findings' | 'fullContent' | 'generatedBy'> | undefined;
}

/** A chunk with the document it belongs to. */
export interface ChunkView {
  id: string;
  ordinal: number;
  text: string;
  nTokens: number;
  start: number;
  end: number;
  document: Pick<DocumentRecord, 'id' | 'title' | 'source' | 'createdAt'>;
}

/** Read-only browsing of the published index's graph (HTTP graph endpoints, MCP tools, the web explorer). */
export interface GraphBrowser {
  /** Entities whose title or an alias matches `query` (case-insensitive): exact, prefix, word prefix, substring, then full text; within a kind by degree, then title. */
  searchEntities(query: string, options?: { limit?: number; type?: string }): Promise<EntityMatch[]>;
  /** One entity by id, or undefined. */
  entity(id: string, options?: { maxSources?: number }): Promise<EntityDetail | undefined>;
  /** Breadth-first neighbourhood up to `depth` hops (1–3), at most `limit` nodes (highest edge weight first per hop) and `maxEdges` edges; undefined for an unknown id. */
  neighbours(id: string, options?: { depth?: number; limit?: number; maxEdges?: number }): Promise<GraphSlice | undefined>;
  /** Communities at `level` (every level when omitted), ordered by level then size descending, with their reports. */
  communities(options?: { level?: number; limit?: number; offset?: number }): Promise<{ total: number; levels: number[]; communities: CommunityView[] }>;
  /** One community with its report, or undefined. */
  community(id: string): Promise<CommunityView | undefined>;
  /** One chunk with its document, or undefined. */
  chunk(id: string): Promise<ChunkView | undefined>;
  /** The `top` entities by degree and the edges among them (heaviest first, at most `maxEdges`), for a viewer. */
  slice(options?: { top?: number; maxEdges?: number; type?: string }): Promise<GraphSlice>;
}
