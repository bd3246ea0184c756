/** USD per million tokens. */
export interface ModelPrice {
  input: number;
  output: number;
}

/**
 * OpenAI list prices (USD per million tokens, standard tier, uncached input) as published in 2025.
 * They are **estimates** for progress displays and budgets, not billing: prices change, cached-input
 * and batch discounts are ignored, and other providers charge differently. Add or correct models with
 * `llm.prices` (merged over this table), or set one price for every model with `llm.pricePerMillionTokens`.
 */
export const OPENAI_MODEL_PRICES: Readonly<Record<string, ModelPrice>> = {
  'gpt-4.1': { input: 2, output: 8 },
  'gpt-4.1-mini': { input: 0.4, output: 1.6 },
  'gpt-4.1-nano': { input: 0.1, output: 0.4 },
  'gpt-4o': { input: 2.5, output: 10 },
  'gpt-4o-mini': { input: 0.15, output: 0.6 },
  o3: { input: 2, output: 8 },
  'o4-mini': { input: 1.1, output: 4.4 },
  'gpt-5': { input: 1.25, output: 10 },
  'gpt-5-mini': { input: 0.25, output: 2 },
  'gpt-5-nano': { input: 0.05, output: 0.4 },
};

/**
 * Price of a model id: an exact entry, else the longest entry that prefixes a dated snapshot id
 * (`gpt-4o-mini-2024-07-18` → `gpt-4o-mini`); `undefined` for unknown models.
 */
export function findModelPrice(modelId: string, prices: Readonly<Record<string, ModelPrice>> = OPENAI_MODEL_PRICES): ModelPrice | undefined {
  const id = modelId.toLowerCase().replace(/^openai\//, '');
  const exact = prices[id];
  if (exact !== undefined) return exact;
  let best: string | undefined;
  for (const known of Object.keys(prices)) {
    if (id.startsWith(`${known}-`) && /^\d/.test(id.slice(known.length + 1)) && (best === undefined || known.length > best.length)) best = known;
  }
  return best === undefined ? undefined : prices[best];
}

/** Where a model's price came from: the single configured price, the configured table, or the built-in table. */
export type ModelPriceSource = 'llm.pricePerMillionTokens' | 'llm.prices' | 'built-in';

/** A model's price and its origin, so a cost can say which price it used. */
export interface ResolvedModelPrice extends ModelPrice {
  source: ModelPriceSource;
}

/** The price settings of the configuration (`llm.pricePerMillionTokens`, `llm.prices`). */
export interface PriceSettings {
  /** One price for every model; wins over both tables. */
  pricePerMillionTokens?: ModelPrice | undefined;
  /** Prices by model id, merged over {@link OPENAI_MODEL_PRICES} (an entry here wins). */
  prices?: Readonly<Record<string, ModelPrice>> | undefined;
}

/**
 * The built-in table with `overrides` merged over it. Keys are lowercased, because {@link findModelPrice}
 * looks ids up lowercased and a user writing `GPT-4.1` in `llm.prices` means the same model.
 */
export function mergeModelPrices(overrides: Readonly<Record<string, ModelPrice>> = {}): Record<string, ModelPrice> {
  const merged: Record<string, ModelPrice> = { ...OPENAI_MODEL_PRICES };
  for (const [id, price] of Object.entries(overrides)) merged[id.toLowerCase().replace(/^openai\//, '')] = price;
  return merged;
}

/**
 * The price of `modelId` under the configuration: `llm.pricePerMillionTokens` when set, else the entry of
 * `llm.prices` merged over the built-in table (exact id, else a dated snapshot of a listed id); `undefined`
 * for a model neither table knows — callers report the cost as unknown rather than as free.
 */
export function resolveModelPrice(modelId: string, settings: PriceSettings = {}): ResolvedModelPrice | undefined {
  if (settings.pricePerMillionTokens) return { ...settings.pricePerMillionTokens, source: 'llm.pricePerMillionTokens' };
  const configured = mergeModelPrices(settings.prices);
  const price = findModelPrice(modelId, configured);
  if (price === undefined) return undefined;
  // Merged entries from the configuration are the user's own objects; built-in ones are the table's.
  const fromConfig = Object.values(settings.prices ?? {}).includes(price);
  return { input: price.input, output: price.output, source: fromConfig ? 'llm.prices' : 'built-in' };
}

/** The price settings of an `llm` configuration section; an empty `prices:` in YAML reads as `null`. */
export function priceSettings(config: { llm: { pricePerMillionTokens?: ModelPrice | undefined; prices?: Readonly<Record<string, ModelPrice>> | null | undefined } }): PriceSettings {
  return { pricePerMillionTokens: config.llm.pricePerMillionTokens, prices: config.llm.prices ?? undefined };
}
