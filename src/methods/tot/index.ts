export { totMethod } from './tot-method.js';
export { totConfig } from './config.js';
export type { TotConfig } from './config.js';
export { createWorkspaceKnowledgeGraph } from './workspace-knowledge-graph.js';
export type { WorkspaceKnowledgeGraphOptions } from './workspace-knowledge-graph.js';
