import { wrapLanguageModel } from 'ai';
import { estimateUsageMiddleware } from './estimate-usage-middleware.js';
import type { LanguageModel } from './language-model.js';
import { languageModelFromSdk } from './language-model-from-sdk.js';
import { providerErrorMiddleware } from './provider-error-middleware.js';
import type { SdkLanguageModel, SdkLanguageModelMiddleware } from './sdk-types.js';
import type { ProviderCallContext } from './to-llm-call-error.js';
import type { CountTokens } from './token-estimate.js';

/** Options of {@link composeLanguageModel}. */
export interface ComposeLanguageModelOptions {
  /** What is called, for error messages and hints (the base URL is redacted before it is shown). */
  context: Omit<ProviderCallContext, 'streaming'>;
  /** Policy middleware (see `llmPolicyMiddleware`), outermost first. @default none */
  middleware?: readonly SdkLanguageModelMiddleware[];
  /** Token counter for providers that report no usage. @default about four characters per token */
  countTokens?: CountTokens;
}

/**
 * kgrag's {@link LanguageModel} over an AI SDK model: `middleware`, then the provider middleware every stack ends
 * with (usage estimated where the provider reports none; the provider's failures as `LlmCallError`), composed
 * with the SDK's `wrapLanguageModel` and adapted by `languageModelFromSdk`.
 */
export function composeLanguageModel(model: SdkLanguageModel, options: ComposeLanguageModelOptions): LanguageModel {
  return languageModelFromSdk(
    wrapLanguageModel({
      model,
      middleware: [...(options.middleware ?? []), estimateUsageMiddleware(options.countTokens), providerErrorMiddleware(options.context)],
    }),
  );
}
