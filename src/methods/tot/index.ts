export { createTotMethod, totMethod } from './tot-method.js';
export type { TotMethodOptions } from './tot-method.js';
export { totConfig } from './config.js';
export type { TotConfig } from './config.js';
export { createWorkspaceKnowledgeGraph } from './workspace-knowledge-graph.js';
export type { WorkspaceKnowledgeGraphOptions } from './workspace-knowledge-graph.js';
// Tot's knowledge-graph providers: the interface, the SPARQL graph with Wikidata's vocabulary, several graphs linked
// as one, and the in-memory graph for tests and library users.
export type { KgCallOptions, KgEdge, KgEdgeList, KgEntity, KgRelation, KgRelationList, KnowledgeGraph } from './kg/knowledge-graph.js';
export { createSparqlKnowledgeGraph } from './kg/sparql-knowledge-graph.js';
export type { SparqlKnowledgeGraphOptions } from './kg/sparql-knowledge-graph.js';
export { createMultiKnowledgeGraph } from './kg/multi-knowledge-graph.js';
export type { MultiKnowledgeGraphOptions } from './kg/multi-knowledge-graph.js';
export { createInMemoryKnowledgeGraph } from './kg/in-memory-knowledge-graph.js';
export type { InMemoryGraphData, InMemoryKnowledgeGraph, InMemoryStatement } from './kg/in-memory-knowledge-graph.js';
export type { KnowledgeGraphConfig } from './kg/knowledge-graphs-config.js';
