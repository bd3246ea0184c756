/*
 * Test utilities of `kgrag/testing`: the scripted fake LLM, the fault-injecting OpenAI-compatible
 * mock server, an in-memory LLM cache, an in-memory knowledge graph (for `tot`), and the contract suite a
 * custom `Store` backend must pass.
 */
export * from './llm.js';
export { describeStoreContract, sampleRows } from '../store/store-contract.js';
export type { StoreContractOptions } from '../store/store-contract.js';
export { createInMemoryKnowledgeGraph } from '../methods/tot/index.js';
export type { InMemoryGraphData, InMemoryKnowledgeGraph, InMemoryStatement } from '../methods/tot/index.js';
