/*
 * The knowledge-graph interface Tree-of-Traversals explores (Markowitz et al., ACL 2024 §3.1;
 * amazon-science/tree-of-traversals `wikidata/*.py`). The paper's three
 * operations are `initialize(q)`, `get_relations(E)` and `get_edges(E, r)`; we add `searchEntities`, the
 * candidate lookup `initialize` is built from (the LLM's mention extraction and disambiguation live in
 * methods/tot, so every graph shares them), and `linkEntity` for linking one graph's entity into another.
 *
 * Ids are what the LLM reads and types back, so they are short and never contain one another's full token:
 * Wikidata uses `Q42` / `P31`, the workspace index `E12` / `R3`. A backward relation is the same id with
 * direction `backward`, shown to the LLM as `~P31`.
 */

/** An entity of a knowledge graph. */
export interface KgEntity {
  /** Id the LLM selects by, e.g. `Q42` or `E12`. Unique within its graph. */
  id: string;
  label: string;
  description: string;
  /** Name of the graph that holds it ({@link KnowledgeGraph.name}). */
  graph: string;
  /**
   * The same thing in other graphs: graph name → id there (`{ wikidata: 'Q42' }`), from explicit identifier
   * links (an index entity's Wikidata id, an owl:sameAs) or from linking by label.
   */
  sameAs?: Record<string, string>;
}

/** A relation type an entity set has, in one direction. */
export interface KgRelation {
  /** `P31`, `R3`. */
  id: string;
  /** `instance of`. */
  label: string;
  /** `forward`: the selected entities are subjects; `backward`: they are objects (`~P31`, "is instance of of"). */
  direction: 'forward' | 'backward';
  graph: string;
}

/** Relation options of a set of entities. */
export interface KgRelationList {
  relations: KgRelation[];
  /** True when a limit cut the list; `limit` says which. Never silent. */
  truncated: boolean;
  limit?: number;
  /**
   * Why the list is incomplete, one line per cut or failure (a limit on one direction, a query that failed),
   * when a graph can say more than `limit`; the traversal shows them to the model.
   */
  warnings?: string[];
}

/** One edge found by {@link KnowledgeGraph.getEdges}: `source` is always one of the selected entities. */
export interface KgEdge {
  source: string;
  relation: KgRelation;
  /** An entity id (present in `entities` or already known), or `undefined` when the object is a literal. */
  target?: string;
  /** A literal value (a formatted date, a quantity, a string) when the object is not an entity. */
  value?: string;
  /** Qualifier text shown after the object, e.g. ` (start time: 2001)`; empty when none. */
  attributes?: string;
}

/** Edges and the entities they reach. */
export interface KgEdgeList {
  edges: KgEdge[];
  /** Labels and descriptions of every entity an edge reaches. */
  entities: KgEntity[];
  truncated: boolean;
  limit?: number;
}

/** Options every call accepts. */
export interface KgCallOptions {
  signal?: AbortSignal;
}

/**
 * A knowledge graph Tree-of-Traversals can walk. Implementations: the workspace index
 * (methods/tot/workspace-knowledge-graph.ts), a SPARQL 1.1 endpoint with Wikidata's vocabulary
 * (sparql-knowledge-graph.ts), several graphs at once (multi-knowledge-graph.ts), and the in-memory fake
 * for tests (in-memory-knowledge-graph.ts).
 */
export interface KnowledgeGraph {
  /** Short name, e.g. `index`, `wikidata`; the key of {@link KgEntity.sameAs}. */
  readonly name: string;
  /** Candidate entities for a mention from the question, best first (search by label and alias). */
  searchEntities(text: string, options?: KgCallOptions & { limit?: number }): Promise<KgEntity[]>;
  /** Labels and descriptions of known ids (unknown ids are left out). */
  getEntities(ids: readonly string[], options?: KgCallOptions): Promise<KgEntity[]>;
  /** Forward and backward relation types of the entities. */
  getRelations(entities: readonly string[], options?: KgCallOptions): Promise<KgRelationList>;
  /** Edges of `relation` from (forward) or into (backward) the entities. */
  getEdges(entities: readonly string[], relation: KgRelation, options?: KgCallOptions): Promise<KgEdgeList>;
  /**
   * This graph's entity for another graph's entity: by an explicit identifier link first (its `sameAs`
   * names this graph, or this graph stores a link to it), then by exact label. `undefined` when none.
   */
  linkEntity(entity: KgEntity, options?: KgCallOptions): Promise<KgEntity | undefined>;
}
