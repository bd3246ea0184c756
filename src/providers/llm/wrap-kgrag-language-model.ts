import { wrapLanguageModel } from 'ai';
import type { LanguageModel } from './language-model.js';
import { languageModelFromSdk } from './language-model-from-sdk.js';
import { sdkModelFromLanguageModel } from './sdk-model-from-language-model.js';
import type { SdkLanguageModelMiddleware } from './sdk-types.js';

/**
 * kgrag's `model` under AI SDK middleware (kgrag's own, such as `cacheMiddleware`, or any other), outermost first:
 * the model is seen as an AI SDK model (`sdkModelFromLanguageModel`), wrapped with `wrapLanguageModel` and adapted
 * back, so its callers keep kgrag's interface.
 */
export function wrapKgragLanguageModel(model: LanguageModel, middleware: SdkLanguageModelMiddleware | readonly SdkLanguageModelMiddleware[]): LanguageModel {
  return languageModelFromSdk(wrapLanguageModel({ model: sdkModelFromLanguageModel(model), middleware: Array.isArray(middleware) ? [...middleware] : [middleware as SdkLanguageModelMiddleware] }));
}
