import { createQueryEngine, type QueryEngine } from '../methods/query-engine.js';
import { resolveModelPrice } from '../providers/llm/model-prices.js';
import type { WorkspaceSession } from './workspace-session.js';

/**
 * The query service of a workspace: the engine that answers with the workspace's methods over its newest published
 * index, with its providers and prompts, pricing each answer's LLM usage at the configured model's price.
 */
export function createWorkspaceQueryEngine(session: WorkspaceSession): QueryEngine {
  const { llm, prices, options } = session;
  return createQueryEngine({
    prompts: session.prompts,
    index: session.storage,
    config: session.config,
    embedder: session.newEmbedder(),
    embedderFor: (from) => session.embedderFor(from),
    tokenizer: session.tokenizer,
    ...(llm === undefined ? {} : { llm }),
    methods: session.methods,
    costOf: (usage) => {
      const price = llm ? resolveModelPrice(llm.modelId, prices) : undefined;
      return price ? (usage.inputTokens * price.input + usage.outputTokens * price.output) / 1e6 : 0;
    },
  });
}
