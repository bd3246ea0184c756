/*
 * Microsoft GraphRAG's output tables, as kgrag reads and writes them: one row type per table, with the values
 * normalized (ids as strings, integers as numbers, lists as arrays, GraphRAG's "NONE" kept as it is). Column
 * names follow `graphrag/data_model/schemas.py` (reference/msgraphrag.md §1.3); the 1.x and 2.x generations differ
 * in file names (`create_final_entities.parquet` against `entities.parquet`) and in a few columns, which the
 * reader maps onto these types.
 */

/** A row of `documents`. */
export interface GraphragDocument {
  id: string;
  humanReadableId: number | null;
  title: string;
  text: string;
  textUnitIds: string[];
  creationDate: string | null;
  /** `metadata` (2.x) or `raw_data`/`attributes` (1.x), when present and not null. */
  metadata: unknown;
}

/** A row of `text_units`. */
export interface GraphragTextUnit {
  id: string;
  humanReadableId: number | null;
  text: string;
  nTokens: number | null;
  /** `document_id` (2.x) or `document_ids` (1.x). */
  documentIds: string[];
}

/** A row of `entities`. */
export interface GraphragEntity {
  id: string;
  /** The kgrag id of a row kgrag exported (its extra `kgrag_id` column), so that a round trip keeps ids. */
  kgragId?: string;
  humanReadableId: number | null;
  title: string;
  type: string;
  description: string;
  textUnitIds: string[];
  frequency: number | null;
  degree: number | null;
  x: number | null;
  y: number | null;
  /** Other names of the entity (an extra `aliases` column kgrag writes; GraphRAG has none). */
  aliases?: string[];
}

/** A row of `relationships`: directed, with the entities' titles as `source` and `target`. */
export interface GraphragRelationship {
  id: string;
  humanReadableId: number | null;
  source: string;
  target: string;
  description: string;
  weight: number;
  combinedDegree: number | null;
  textUnitIds: string[];
}

/** A row of `communities`. */
export interface GraphragCommunity {
  id: string;
  /** The kgrag id of a row kgrag exported (its extra `kgrag_id` column), so that a round trip keeps ids. */
  kgragId?: string;
  humanReadableId: number | null;
  community: number;
  level: number;
  /** The parent community's number; null for a root (GraphRAG writes -1). */
  parent: number | null;
  /** The children's numbers, when the table has them (2.x); 1.x derives them from `parent`. */
  children: number[] | null;
  title: string;
  entityIds: string[];
  relationshipIds: string[];
  textUnitIds: string[];
  period: string | null;
  size: number | null;
}

/** One finding of a community report. */
export interface GraphragFinding {
  summary: string;
  explanation: string;
}

/** A row of `community_reports`. */
export interface GraphragCommunityReport {
  id: string;
  humanReadableId: number | null;
  community: number;
  level: number;
  title: string;
  summary: string;
  fullContent: string;
  rank: number | null;
  /** `rating_explanation` (2.x) or `rank_explanation` (1.x). */
  ratingExplanation: string;
  findings: GraphragFinding[];
  fullContentJson: string | null;
  period: string | null;
  size: number | null;
  /** How kgrag made the report (its extra `kgrag_generated_by` column); GraphRAG's reports are an LLM's. */
  generatedBy?: 'llm' | 'extractive';
}

/** A row of `covariates` (claims). */
export interface GraphragCovariate {
  id: string;
  /** The kgrag id of a row kgrag exported (its extra `kgrag_id` column), so that a round trip keeps ids. */
  kgragId?: string;
  humanReadableId: number | null;
  covariateType: string;
  type: string;
  description: string;
  subjectId: string;
  objectId: string | null;
  status: string;
  startDate: string | null;
  endDate: string | null;
  sourceText: string;
  textUnitId: string;
}

/** The tables of one GraphRAG output folder. */
export interface GraphragTables {
  documents: GraphragDocument[];
  textUnits: GraphragTextUnit[];
  entities: GraphragEntity[];
  relationships: GraphragRelationship[];
  /** Absent when the index was built without clustering. */
  communities: GraphragCommunity[] | undefined;
  communityReports: GraphragCommunityReport[] | undefined;
  /** Absent unless claim extraction was enabled. */
  covariates: GraphragCovariate[] | undefined;
}

/** The table names, as kgrag calls them, and the file stems GraphRAG 2.x gives them. */
export const graphragTableFiles = {
  documents: 'documents',
  textUnits: 'text_units',
  entities: 'entities',
  relationships: 'relationships',
  communities: 'communities',
  communityReports: 'community_reports',
  covariates: 'covariates',
} as const;

/** A table of {@link GraphragTables}. */
export type GraphragTableName = keyof typeof graphragTableFiles;
