import { mapWithConcurrency } from '../../core/map-with-concurrency.js';
import type { LanguageModel } from '../../providers/llm/language-model.js';
import { summarizeDescriptions } from './summarize-descriptions.js';
import type { SummarizeDescriptionsOptions } from './summarize-descriptions.js';

/** One element to summarize: an entity (by title) or a relationship (by its two titles). */
export interface SummaryItem {
  /** Caller's key for the result, e.g. the entity or relation id. */
  key: string;
  name: string | readonly [string, string];
  descriptions: readonly string[];
  /** Content hashes of the texts the descriptions come from, to tag the cached replies (`ChatRequest.sources`). */
  sources?: readonly string[];
}

/** Options of {@link summarizeAll}. */
export interface SummarizeAllOptions extends Omit<SummarizeDescriptionsOptions, 'name' | 'descriptions' | 'sources'> {
  /** Summaries in flight at once (GraphRAG: `concurrent_requests`, 25). */
  concurrency: number;
  /** Called after each item that needed the model, with the count done and the count needing it. */
  onProgress?: (done: number, total: number) => void;
}

/** Summaries of many elements. */
export interface SummarizeAllResult {
  /** Summary by item key, for every item (an item with one description keeps it; with none, `''`). */
  summaries: Map<string, string>;
  calls: number;
  /** Calls of the item that made the most (an item's calls run one after another). */
  criticalPath: number;
  failures: number;
  /** Keys of the items that needed the model and whose summary did not fail (a failed one falls back to its descriptions). */
  summarizedKeys: string[];
}

/**
 * {@link summarizeDescriptions} over many elements through a bounded pool, as GraphRAG runs them under a
 * semaphore (microsoft/graphrag `index/operations/summarize_descriptions/`). Items with fewer than two distinct descriptions never enter the
 * pool. The first provider error stops the pool and is thrown once the calls in flight have settled.
 */
export async function summarizeAll(model: LanguageModel, items: readonly SummaryItem[], options: SummarizeAllOptions): Promise<SummarizeAllResult> {
  const { concurrency, onProgress, ...limits } = options;
  const direct = new Map<string, string>();
  const pending: SummaryItem[] = [];
  for (const item of items) {
    const distinct = new Set(item.descriptions.map((description) => description.trim()).filter((description) => description.length > 0));
    if (distinct.size >= 2) pending.push(item);
    else direct.set(item.key, [...distinct][0] ?? '');
  }
  let done = 0;
  const results = await mapWithConcurrency(
    pending,
    concurrency,
    async (item) => {
      const result = await summarizeDescriptions(model, {
        ...limits,
        name: item.name,
        descriptions: item.descriptions,
        ...(item.sources === undefined ? {} : { sources: item.sources }),
      });
      done++;
      onProgress?.(done, pending.length);
      return result;
    },
    options.abortSignal,
  );
  let calls = 0;
  let criticalPath = 0;
  let failures = 0;
  const summarized = new Map<string, string>();
  const summarizedKeys: string[] = [];
  pending.forEach((item, index) => {
    const result = results[index];
    if (!result) return;
    summarized.set(item.key, result.summary);
    if (result.failures === 0) summarizedKeys.push(item.key);
    calls += result.calls;
    criticalPath = Math.max(criticalPath, result.calls);
    failures += result.failures;
  });
  // Input order, whichever path an item took.
  const summaries = new Map(items.map((item) => [item.key, summarized.get(item.key) ?? direct.get(item.key) ?? '']));
  return { summaries, calls, criticalPath, failures, summarizedKeys };
}
