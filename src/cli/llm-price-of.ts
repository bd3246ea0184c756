import type { Kgrag } from '../api/create-kgrag.js';
import { priceSettings, resolveModelPrice } from '../providers/llm/model-prices.js';
import type { RunPrice } from './format-run-cost.js';

/** The workspace's chat model and the price its costs are computed with; no price for a model kgrag knows none of. */
export function llmPriceOf(kgrag: Pick<Kgrag, 'llm' | 'config'>): RunPrice {
  return { modelId: kgrag.llm?.modelId ?? '(none)', price: kgrag.llm ? resolveModelPrice(kgrag.llm.modelId, priceSettings(kgrag.config)) : undefined };
}
