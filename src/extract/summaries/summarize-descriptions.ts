import { KgragError } from '../../core/errors.js';
import { builtInPrompts, fillPrompt } from '../../core/prompt-library.js';
import type { PromptLibrary } from '../../core/prompt-library.js';
import type { LanguageModel } from '../../providers/llm/language-model.js';
import type { Tokenizer } from '../../text/tokenizer.js';
import { summarizeDescriptionsPrompt } from './summarize-descriptions-prompt.js';
import { truncateToTokens } from './truncate-to-tokens.js';

/** What to summarize and within which limits. */
export interface SummarizeDescriptionsOptions {
  /** The entity's title, or `[source, target]` titles for a relationship. */
  name: string | readonly [string, string];
  descriptions: readonly string[];
  /** Token budget of one call's whole prompt (config `summaries.maxInputTokens`, GraphRAG max_input_tokens: 4000). */
  maxInputTokens: number;
  /** Word limit asked of the model (config `summaries.maxWords`, GraphRAG max_length: 500). */
  maxWords: number;
  tokenizer: Tokenizer;
  /** Workspace prompt overrides. @default the built-in prompts */
  prompts?: PromptLibrary;
  /** Content hashes of the texts the descriptions were extracted from (`ChatRequest.sources`), to tag the cached replies. */
  sources?: readonly string[];
  abortSignal?: AbortSignal;
}

/** A merged description. */
export interface DescriptionSummary {
  summary: string;
  /** Model calls made. */
  calls: number;
  /** Calls whose reply was empty; their descriptions were kept joined and cut to `maxWords` instead. */
  failures: number;
}

/**
 * One description from many (GraphRAG `summarize_descriptions`, microsoft/graphrag `index/operations/summarize_descriptions/`), with
 * `purpose: 'summarize-descriptions'` and a plain-text reply:
 *
 * - the descriptions are trimmed, de-duplicated and sorted (so the prompt, and its cache key, do not depend
 *   on extraction order); none gives `''` and one is returned as it is, both without a call;
 * - otherwise a **rolling summary**: descriptions are added while the whole filled prompt, counted with
 *   `tokenizer`, stays within `maxInputTokens`; the batch is summarized and the summary becomes the first item
 *   of the next batch, until every description is used.
 *
 * Differences from GraphRAG, deliberate: GraphRAG estimates the prompt from the template and lets the
 * description that overflows the budget into the batch; here the filled prompt is counted and never exceeds
 * the budget. To guarantee progress, every description (and every intermediate summary) is first cut to half
 * the room the template leaves, so any two fit together, and a description that still does not fit next to
 * the running summary is cut to the room left. A reply that is empty after trimming counts as a failure and is
 * replaced by the batch's descriptions joined and cut to `maxWords` words. Provider errors propagate.
 *
 * @throws KgragError `SUMMARY_BUDGET_TOO_SMALL` when the template leaves no room for two descriptions.
 */
export async function summarizeDescriptions(model: LanguageModel, options: SummarizeDescriptionsOptions): Promise<DescriptionSummary> {
  const list = [...new Set(options.descriptions.map((description) => description.trim()).filter((description) => description.length > 0))].sort();
  if (list.length === 0) return { summary: '', calls: 0, failures: 0 };
  if (list.length === 1) return { summary: list[0] as string, calls: 0, failures: 0 };

  const { tokenizer, maxInputTokens, maxWords } = options;
  const template = (options.prompts ?? builtInPrompts).text(summarizeDescriptionsPrompt);
  const values = { entity_name: JSON.stringify(options.name), max_length: String(maxWords) };
  const render = (items: readonly string[]): string => fillPrompt(template, { ...values, description_list: JSON.stringify(items) });
  const fits = (items: readonly string[]): boolean => tokenizer.count(render(items)) <= maxInputTokens;

  // Room for descriptions once the template, the name and the JSON punctuation of two items are paid for;
  // one token per item is kept for the `…` of a cut description.
  const room = maxInputTokens - tokenizer.count(render(['', '']));
  const cap = Math.floor(room / 2) - 1;
  if (cap < 1) {
    throw new KgragError(`The description summary prompt alone takes ${maxInputTokens - room} of the ${maxInputTokens} tokens allowed per call.`, {
      code: 'SUMMARY_BUDGET_TOO_SMALL',
      category: 'config',
      hint: 'Raise summaries.maxInputTokens, or shorten the summarize-descriptions prompt',
      details: { maxInputTokens, promptTokens: maxInputTokens - room },
    });
  }

  let calls = 0;
  let failures = 0;
  const summarize = async (batch: readonly string[]): Promise<string> => {
    calls++;
    const result = await model.generate({
      messages: [{ role: 'user', content: render(batch) }],
      purpose: 'summarize-descriptions',
      ...(options.sources === undefined ? {} : { sources: options.sources }),
      ...(options.abortSignal ? { abortSignal: options.abortSignal } : {}),
    });
    const text = result.text.trim();
    if (text.length > 0) return text;
    failures++;
    return truncateWords(batch.join('\n'), maxWords);
  };

  let batch: string[] = [];
  for (const description of list.map((item) => truncateToTokens(item, cap, tokenizer))) {
    if (batch.length === 0 || fits([...batch, description])) {
      batch.push(description);
      continue;
    }
    if (batch.length >= 2) batch = [truncateToTokens(await summarize(batch), cap, tokenizer)];
    batch.push(fits([...batch, description]) ? description : fitNext(batch, description, fits, tokenizer));
  }
  const summary = batch.length >= 2 ? await summarize(batch) : (batch[0] as string);
  return { summary, calls, failures };
}

/** The longest token prefix of `next` that fits after `batch` (binary search; the prompt is counted each time). */
function fitNext(batch: readonly string[], next: string, fits: (items: readonly string[]) => boolean, tokenizer: Tokenizer): string {
  let low = 0;
  let high = tokenizer.count(next);
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (fits([...batch, truncateToTokens(next, middle, tokenizer)])) low = middle;
    else high = middle - 1;
  }
  return truncateToTokens(next, low, tokenizer);
}

/** The first `maxWords` words of `text`, with `…` when some were cut. */
function truncateWords(text: string, maxWords: number): string {
  const words = text.split(/\s+/).filter((word) => word.length > 0);
  return words.length <= maxWords ? words.join(' ') : `${words.slice(0, maxWords).join(' ')}…`;
}
