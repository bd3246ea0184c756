import type { Store } from '../store/store.js';
import { isMostlyCjk } from '../text/is-mostly-cjk.js';
import type { StepName } from './pipeline-step.js';

/**
 * The warning for chunks that English-only steps cannot read, or undefined when there are none: how many chunks
 * are Chinese, Japanese or Korean text, which steps find nothing in them, and what does read them. Without it an
 * index of such text had 0 entities and every graph method answered from nothing, silently.
 */
export async function unreadableLanguageWarning(store: Store, englishOnlySteps: readonly StepName[]): Promise<string | undefined> {
  if (englishOnlySteps.length === 0) return undefined;
  const chunks = await store.table('chunks').pick(['text']);
  const unreadable = chunks.filter((chunk) => isMostlyCjk(chunk.text)).length;
  if (unreadable === 0) return undefined;
  const steps = englishOnlySteps.map((step) => `"${step}"`).join(', ');
  return (
    `${unreadable} of ${chunks.length} chunks are Chinese, Japanese or Korean text, which step${englishOnlySteps.length === 1 ? '' : 's'} ${steps} ` +
    'cannot read (their NLP is English-only): they find no entities, triples or keywords there, so the graph methods have little ' +
    'or nothing of that text. basic (bm25, dense, hybrid) searches it; index with --mode standard and an LLM to build its graph.'
  );
}
