import { mapWithConcurrency } from '../core/map-with-concurrency.js';
import type { LanguageModel } from '../providers/llm/language-model.js';
import { withCallCount } from '../providers/llm/with-call-count.js';
import { ownsItem } from './owns-item.js';
import type { StepContext, StepPrefetchResult, StepShard } from './pipeline-step.js';

/**
 * The prefetch of a step whose LLM work is one conversation per chunk (graph extraction, claims): the shard's
 * chunks of `pending`, `conversations` at a time, with progress, counting the calls made through `llm`.
 */
export async function prefetchOwnedChunks<C extends { id: string }>(
  context: StepContext,
  shard: StepShard,
  llm: LanguageModel,
  pending: readonly C[],
  conversations: number,
  converse: (model: LanguageModel, chunk: C) => Promise<unknown>,
): Promise<StepPrefetchResult> {
  const owned = pending.filter((chunk) => ownsItem(shard, chunk.id));
  const counted = withCallCount(llm);
  let done = 0;
  context.progress(done, owned.length, 'chunks');
  await mapWithConcurrency(
    owned,
    conversations,
    async (chunk) => {
      await converse(counted.model, chunk);
      context.progress(++done, owned.length, 'chunks');
    },
    context.signal,
  );
  return { items: owned.length, calls: counted.calls() };
}
