/*
 * One CSV file of a Neo4j export, described once: the CSV writer derives its header and rows from it and the
 * Cypher script its LOAD CSV statement, so the two ways into Neo4j cannot disagree about a column.
 */

/** A property's type in `neo4j-admin` header terms (`name:int`); `string` is the untyped default. */
export type Neo4jPropertyType = 'string' | 'int' | 'double' | 'string[]';

/** A property value; null (and an empty array) is written as an empty field, which both importers read as no property. */
export type Neo4jValue = string | number | readonly string[] | null;

/** A property column. */
export interface Neo4jProperty {
  name: string;
  type: Neo4jPropertyType;
}

/** A row of a node file: the node's id and its property values in the order of `properties`. */
export interface Neo4jNodeRow {
  id: string;
  values: readonly Neo4jValue[];
}

/** A row of a relationship file: the ids of its start and end nodes and its property values. */
export interface Neo4jRelationshipRow {
  start: string;
  end: string;
  values: readonly Neo4jValue[];
}

/** A file of nodes with one label, whose ids (stored as the property `id`) are unique within the label. */
export interface Neo4jNodeFile {
  kind: 'nodes';
  file: string;
  label: string;
  properties: readonly Neo4jProperty[];
  /** The rows, in batches so that large tables (chunks, documents) are never all in memory. */
  rows(): AsyncIterable<readonly Neo4jNodeRow[]>;
}

/** A file of relationships of one type, from nodes of label `start` to nodes of label `end`. */
export interface Neo4jRelationshipFile {
  kind: 'relationships';
  file: string;
  type: string;
  start: string;
  end: string;
  properties: readonly Neo4jProperty[];
  rows(): AsyncIterable<readonly Neo4jRelationshipRow[]>;
}

export type Neo4jFile = Neo4jNodeFile | Neo4jRelationshipFile;
