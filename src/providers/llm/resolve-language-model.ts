import type { LlmConfig } from '../../core/config/config-schema.js';
import { KgragError } from '../../core/errors.js';
import { createLanguageModel } from './create-language-model.js';
import type { LanguageModelDependencies } from './language-model-dependencies.js';
import type { LanguageModel } from './language-model.js';
import { lazyLanguageModel } from './lazy-language-model.js';
import type { SdkLanguageModel, SdkLanguageModelV2 } from './sdk-types.js';

/**
 * A chat model as `createKgrag({ llm })` takes it: any AI SDK language model (`ollama('qwen3')`,
 * `createOpenAICompatible(…).chatModel(…)`, `MockLanguageModelV3`…), or kgrag's own {@link LanguageModel}.
 */
export type LanguageModelInput = LanguageModel | SdkLanguageModel;

/**
 * The workspace's chat model: the configured one (`createLanguageModel`) when none is `given`; a given AI SDK model
 * under the same middleware as the configured one (`llm.*`: cache, retries, concurrency and priorities, rate limits,
 * timeout, request defaults, usage meter); kgrag's own model under the usage meter only, as it is (a test's
 * scripted fake answers every call itself).
 */
export function resolveLanguageModel(
  given: LanguageModelInput | SdkLanguageModelV2 | undefined,
  config: LlmConfig,
  dependencies: LanguageModelDependencies = {},
): LanguageModel | undefined {
  if (given === undefined) return createLanguageModel(config, dependencies);
  if ('specificationVersion' in given) {
    if (given.specificationVersion !== 'v3') {
      throw new KgragError(`The AI SDK model "${given.modelId}" of ${given.provider} implements specification ${given.specificationVersion}; kgrag takes v3 models`, {
        code: 'CONFIG_LLM_UNSUPPORTED_MODEL',
        category: 'config',
        hint: 'Upgrade its provider package to the release for AI SDK 6 (`ai@6`), whose models implement specification v3',
      });
    }
    return lazyLanguageModel(given.provider, given.modelId, async () => {
      const [{ composeLanguageModel }, { llmPolicyMiddleware }] = await Promise.all([import('./compose-language-model.js'), import('./llm-policy-middleware.js')]);
      return composeLanguageModel(given, {
        context: { service: 'llm', baseURL: `the ${given.provider} provider`, modelId: given.modelId },
        middleware: llmPolicyMiddleware(config, dependencies),
        ...(dependencies.countTokens === undefined ? {} : { countTokens: dependencies.countTokens }),
      });
    });
  }
  const { meter } = dependencies;
  if (meter === undefined) return given;
  return lazyLanguageModel(given.provider, given.modelId, async () => {
    const [{ wrapKgragLanguageModel }, { usageMeterMiddleware }] = await Promise.all([import('./wrap-kgrag-language-model.js'), import('./usage-meter-middleware.js')]);
    return wrapKgragLanguageModel(given, usageMeterMiddleware({ meter }));
  });
}
