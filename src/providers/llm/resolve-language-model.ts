import type { LlmConfig } from '../../core/config/config-schema.js';
import { KgragError } from '../../core/errors.js';
import { createLanguageModel } from './create-language-model.js';
import type { LanguageModelDependencies } from './language-model-dependencies.js';
import type { LanguageModel } from './language-model.js';
import { lazyLanguageModel } from './lazy-language-model.js';
import { sdkModelFromV2 } from './sdk-model-from-v2.js';
import type { SdkLanguageModel, SdkLanguageModelV2 } from './sdk-types.js';

/**
 * A chat model as `createKgrag({ llm })` takes it: any AI SDK language model of specification v3 or v2 (`ollama('qwen3')`,
 * `createOpenAICompatible(…).chatModel(…)`, `MockLanguageModelV3`…), or kgrag's own {@link LanguageModel}.
 */
export type LanguageModelInput = LanguageModel | SdkLanguageModel | SdkLanguageModelV2;

/**
 * The workspace's chat model: the configured one (`createLanguageModel`) when none is `given`; a given AI SDK model
 * under the same middleware as the configured one (`llm.*`: cache, retries, concurrency and priorities, rate limits,
 * timeout, request defaults, usage meter); kgrag's own model under the usage meter only, as it is (a test's
 * scripted fake answers every call itself).
 */
export function resolveLanguageModel(
  given: LanguageModelInput | undefined,
  config: LlmConfig,
  dependencies: LanguageModelDependencies = {},
): LanguageModel | undefined {
  if (given === undefined) return createLanguageModel(config, dependencies);
  if ('specificationVersion' in given) {
    const sdkModel = given.specificationVersion === 'v2' ? sdkModelFromV2(given) : given;
    if (sdkModel.specificationVersion !== 'v3') {
      throw new KgragError(`The AI SDK model "${given.modelId}" of ${given.provider} implements specification ${String(sdkModel.specificationVersion)}; kgrag takes v3 and v2 models`, {
        code: 'CONFIG_LLM_UNSUPPORTED_MODEL',
        category: 'config',
        hint: 'Use a provider package made for AI SDK 5 or 6 (`ai@5`, `ai@6`), whose models implement specification v2 or v3',
      });
    }
    return lazyLanguageModel(given.provider, given.modelId, async () => {
      const [{ composeLanguageModel }, { llmPolicyMiddleware }] = await Promise.all([import('./compose-language-model.js'), import('./llm-policy-middleware.js')]);
      return composeLanguageModel(sdkModel, {
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
