import type { KgragConfig } from '../../core/config/config-schema.js';
import type { PromptLibrary } from '../../core/prompt-library.js';
import { extractClaimsPrompts } from '../../extract/claims/extract-claims-prompt.js';
import type { Store } from '../../store/store.js';
import { graphExtractionTemplates, llmGraphExtractor, promptsHash } from '../steps/llm-extract-step.js';
import { llmOpenieExtractor, openiePromptsHash } from '../steps/triples-step.js';

/**
 * `extractor` and prompt-hash recipe of the claims step (`steps/claims-step.ts`), which keeps both private;
 * `test/dry-run.test.ts` checks that a finished run's claims are found with them.
 */
const claimsExtractor = 'llm-claims';

function claimsHash(config: KgragConfig, prompts: PromptLibrary, modelId: string): string {
  const format = config.extract.llm.format;
  const variant = extractClaimsPrompts[format];
  return promptsHash(prompts, [variant.extract, variant.continue, extractClaimsPrompts.loop], {
    ...config.extract.claims,
    types: config.extract.llm.entityTypes,
    format,
    model: modelId,
  });
}

/** Chunks whose extraction replies a run would reuse instead of calling the model. */
export interface StoredExtractionChunks {
  graph: Set<string>;
  claims: Set<string>;
  /** Chunks whose LLM OpenIE replies are stored (the `triples` step). */
  triples: Set<string>;
}

/**
 * The chunk ids whose graph, claim and OpenIE extraction is stored in `store` under the hash the steps would
 * use now — the same prompts, settings and model id (`llmExtractStep`, `claimsStep`, the triples step) — so
 * the next run reuses them. Reads only ids and hashes, never the stored replies.
 */
export async function storedExtractionChunks(store: Store, options: { config: KgragConfig; prompts: PromptLibrary; modelId: string }): Promise<StoredExtractionChunks> {
  const { config, prompts, modelId } = options;
  const graphHash = promptsHash(prompts, graphExtractionTemplates(config.extract.llm.format), { ...config.extract.llm, model: modelId });
  const claimHash = claimsHash(config, prompts, modelId);
  const openieHash = openiePromptsHash(prompts, modelId);
  const rows = await store
    .table('extractions')
    .pick(['chunkId', 'extractor', 'promptHash'], { column: 'extractor', values: [llmGraphExtractor, claimsExtractor, llmOpenieExtractor] });
  const result: StoredExtractionChunks = { graph: new Set(), claims: new Set(), triples: new Set() };
  for (const row of rows) {
    if (row.extractor === llmGraphExtractor && row.promptHash === graphHash) result.graph.add(row.chunkId);
    if (row.extractor === claimsExtractor && row.promptHash === claimHash) result.claims.add(row.chunkId);
    if (row.extractor === llmOpenieExtractor && row.promptHash === openieHash) result.triples.add(row.chunkId);
  }
  return result;
}
