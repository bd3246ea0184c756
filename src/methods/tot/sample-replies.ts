import type { TraversalContext } from './traversal-context.js';

/** Settings of one group of sampled calls. */
export interface SampleOptions {
  /** What the calls are for (usage accounting, scripted test matching). */
  purpose: string;
  /** Calls to make. */
  count: number;
  temperature: number;
  stop?: readonly string[];
  maxOutputTokens?: number;
}

/**
 * `count` replies to one prompt, in sample order. The reference asks for `n` completions in one call;
 * our `LanguageModel` has no `n`, so this makes `count` calls with seeds `seed + i`: distinct seeds keep
 * the samples distinct under the LLM cache (identical requests would all be answered by the first one's
 * cached reply) and make a rerun of the same question ask exactly the same requests. The prompt is one
 * user message, as the reference sends its completion prompts.
 */
export async function sampleReplies(context: TraversalContext, prompt: string, options: SampleOptions): Promise<string[]> {
  const model = context.model(options.purpose);
  const ask = async (index: number, stop: readonly string[] | undefined): Promise<string> =>
    (
      await model.generate({
        messages: [{ role: 'user', content: prompt }],
        temperature: options.temperature,
        seed: context.seed + index,
        ...(stop === undefined ? {} : { stop }),
        ...(options.maxOutputTokens === undefined ? {} : { maxOutputTokens: options.maxOutputTokens }),
        ...(context.signal === undefined ? {} : { abortSignal: context.signal }),
      })
    ).text;
  return Promise.all(
    Array.from({ length: options.count }, async (_, index) => {
      const text = await ask(index, options.stop);
      // Some chat models, local ones especially, open their reply with a line break, which a "\n" stop
      // turns into an empty reply; such a sample is asked once more without the stop, and the callers read
      // its first non-empty line.
      if (text.trim().length > 0 || options.stop === undefined) return text;
      return ask(index, undefined);
    }),
  );
}
