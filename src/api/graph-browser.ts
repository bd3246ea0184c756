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

/** An entity as a node of a neighbourhood or slice. */
export interface GraphNode extends EntitySummary {
  /** Hops from the start entity (neighbours), or 0 (slice). */
  depth: number;
  /** Its community at each hierarchy level, index = level (0 is the coarsest); empty when the index has no communities. */
  communities: string[];
  /** Its position in the slice's ForceAtlas2 drawing, with `slice({ layout: true })` only. */
  x?: number;
  y?: number;
}

/** A subgraph: nodes, the edges among them, and whether limits cut it short. */
export interface GraphSlice {
  nodes: GraphNode[];
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

/** A community with its report and the ids of its member entities (the explorer highlights them). */
export interface CommunityDetail extends CommunityView {
  entityIds: string[];
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

/** A numeric option of the browser: its default when omitted, and the range it must lie in. */
export interface OptionRange {
  readonly default: number;
  readonly min: number;
  readonly max: number;
}

/**
 * Defaults and ranges of the browser's numeric options. A value out of its range (or not an integer) is refused
 * with `GRAPH_BAD_OPTION` rather than clamped, so that a caller learns the bound instead of getting less than it
 * asked for; the HTTP and MCP schemas use the same bounds.
 */
export const graphBrowserLimits = {
  /** Hits of `searchEntities`. */
  searchLimit: { default: 10, min: 1, max: 100 },
  /** Merges listed by `aliasMerges`. */
  mergeLimit: { default: 100, min: 1, max: 10_000 },
  /** Passages of `entity`. */
  maxSources: { default: 5, min: 0, max: 50 },
  /** Hops of `neighbours`. */
  depth: { default: 1, min: 1, max: 3 },
  /** Nodes of `neighbours`, the start entity included. */
  neighbourLimit: { default: 50, min: 1, max: 500 },
  /** Edges of `neighbours`. */
  neighbourMaxEdges: { default: 200, min: 0, max: 2000 },
  /** Communities of one `communities` page. */
  communityLimit: { default: 100, min: 1, max: 1000 },
  /** Entities of `slice`. */
  sliceTop: { default: 300, min: 1, max: 2000 },
  /** Edges of `slice`. */
  sliceMaxEdges: { default: 1500, min: 0, max: 20000 },
} as const satisfies Record<string, OptionRange>;

/** Longest `searchEntities` query, in characters: a name, not a document. */
export const maxSearchQueryLength = 500;

/**
 * Read-only browsing of the published index's graph (HTTP graph endpoints, MCP tools, the web explorer). Every
 * call reads the newest published generation. Unknown ids give `undefined`; an option out of its
 * {@link graphBrowserLimits} range is a `KgragError` (`GRAPH_BAD_OPTION`).
 */
export interface GraphBrowser {
  /**
   * Entities whose title or an alias matches `query` (case-insensitive, whitespace-insensitive): exact, prefix,
   * word prefix, substring, then a full-text (BM25) match of title or description. Within each name kind by degree,
   * then title; full-text hits by score. `type` keeps one entity type (case-insensitive).
   */
  searchEntities(query: string, options?: { limit?: number; type?: string }): Promise<EntityMatch[]>;
  /** One entity by id, or undefined. */
  entity(id: string, options?: { maxSources?: number }): Promise<EntityDetail | undefined>;
  /** Breadth-first neighbourhood up to `depth` hops (1–3), at most `limit` nodes (highest edge weight first per hop) and `maxEdges` edges; undefined for an unknown id. */
  neighbours(id: string, options?: { depth?: number; limit?: number; maxEdges?: number }): Promise<GraphSlice | undefined>;
  /** Communities at `level` (every level when omitted), ordered by level then size descending, with their reports. */
  communities(options?: { level?: number; limit?: number; offset?: number }): Promise<{ total: number; levels: number[]; communities: CommunityView[] }>;
  /** One community with its report and its member entities, or undefined. */
  community(id: string): Promise<CommunityDetail | undefined>;
  /** One chunk with its document, or undefined. */
  chunk(id: string): Promise<ChunkView | undefined>;
  /**
   * The `top` entities by degree (ties by id) and the edges among them (heaviest first, at most `maxEdges`), for a
   * viewer; `truncated` when entities beyond `top` or edges beyond `maxEdges` were left out. With `layout`, each
   * node also gets `x` and `y` from a ForceAtlas2 drawing of the slice (nodes of one coarsest community start
   * together), computed once per index generation and options: later calls return the same object, which callers
   * must not change.
   */
  slice(options?: { top?: number; maxEdges?: number; type?: string; layout?: boolean }): Promise<GraphSlice>;
  /**
   * The names fast mode merged into another entity, as recorded in the entities' aliases, by entity degree then title:
   * short names (`extract.nlp.mergeShortNames`: "Babbage" into "Charles Babbage") and document titles
   * (`extract.nlp.titleAliases`: "Sam Davis" into "Samuel George Davis MM"). `kgrag entities merges --undo` keeps a
   * name apart (`extract.nlp.keepApart`).
   */
  aliasMerges(options?: { limit?: number }): Promise<AliasMerge[]>;
}

/**
 * A name merged into another entity: a short name into the longer name that ends in it, or a document's title into
 * the name its text opens with.
 */
export interface AliasMerge {
  /** The merged name as written ("Babbage", "Sam Davis"). */
  name: string;
  /** `short name`: a one-word name after a longer one in its chunk; `document title`: the title of a document whose text opens with the entity's name. */
  kind: 'short name' | 'document title';
  /** The entity it was merged into. */
  entityId: string;
  title: string;
  /** Chunks the entity is mentioned in (under any of its names). */
  frequency: number;
}
