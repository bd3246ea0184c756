/**
 * The built-in methods as `kgrag query --help` lists them: name, variants (the first is the default) and what each
 * needs. Static, so the help loads no method; `test/cli-method-help.test.ts` holds it to the registry.
 */
export const methodListHelp = `
Methods (-m name, or name:variant; the first variant is the default):
  basic       hybrid, bm25, dense      passages by BM25 and dense search, fused
  local                                GraphRAG local search: matched entities, their reports, relations and text units
  global      static, dynamic          GraphRAG global search over community reports (dynamic rates them with an LLM)
  drift                                GraphRAG DRIFT: global primer, then local follow-ups (needs an LLM)
  ppr         v2, v1                   HippoRAG personalized PageRank over phrases and passages
  relations                            relation retrieval with subgraph expansion (Graph RAG with Milvus)
  kgp         lexical-agent, kg-tfidf, tfidf, bm25, agent, agent-iterative
                                       KGP passage-graph traversal (agent variants use an LLM, else kg-tfidf runs)
  autokg      paper, notebook          AutoKG keyword graph
  tot                                  Tree-of-Traversals (needs an LLM)
LightRAG's modes: naive is basic:dense; hybrid and mix are closest to local (or relations).
A workspace's own methods (plugins in kgrag.yaml) are named in \`kgrag serve\`'s /v1/methods.
`;
