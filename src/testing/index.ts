/*
 * Test utilities of `kgrag/testing`: the scripted fake LLM, the fault-injecting OpenAI-compatible
 * mock server, an in-memory LLM cache, an in-memory knowledge graph (for `tot`), and the contract suite a
 * custom `Store` backend must pass.
 */
export * from './llm.js';
export { sampleRows, storeContractCases } from '../store/store-contract.js';
export { describeStoreContract } from '../store/describe-store-contract.js';
export type { StoreContractCase, StoreContractOptions } from '../store/store-contract.js';
export { createInMemoryKnowledgeGraph } from '../methods/tot/index.js';
export type { InMemoryGraphData, InMemoryKnowledgeGraph, InMemoryStatement } from '../methods/tot/index.js';
