import type { LlmConfig } from '../../core/config/config-schema.js';
import { KgragError } from '../../core/errors.js';
import type { LanguageModel } from './language-model.js';
import type { LanguageModelDependencies } from './language-model-dependencies.js';
import { lazyLanguageModel } from './lazy-language-model.js';
import { openAiCompatibleProvider } from './openai-compatible-provider.js';

export type { LanguageModelDependencies } from './language-model-dependencies.js';

const OPENAI_BASE_URL = 'https://api.openai.com/v1';
/** Local servers (Ollama, vLLM, llama.cpp) accept any key; some clients and proxies insist on one. */
const PLACEHOLDER_API_KEY = 'kgrag-no-key';

/**
 * Builds the configured chat model (`@ai-sdk/openai-compatible`'s, under the middleware of `llmPolicyMiddleware`,
 * loaded on its first call), or returns `undefined` when no LLM is
 * configured (`provider: none`, or `auto` without a base URL or key after the environment
 * fallbacks `KGRAG_LLM_BASE_URL`/`OPENAI_BASE_URL` and `KGRAG_LLM_API_KEY`/`OPENAI_API_KEY`).
 */
export function createLanguageModel(config: LlmConfig, dependencies: LanguageModelDependencies = {}): LanguageModel | undefined {
  if (config.provider === 'none') return undefined;
  const env = dependencies.env ?? process.env;
  const apiKey = nonEmpty(config.apiKey) ?? nonEmpty(env['KGRAG_LLM_API_KEY']) ?? nonEmpty(env['OPENAI_API_KEY']);
  const configuredBaseURL = nonEmpty(config.baseURL) ?? nonEmpty(env['KGRAG_LLM_BASE_URL']) ?? nonEmpty(env['OPENAI_BASE_URL']);
  if (apiKey === undefined && configuredBaseURL === undefined) {
    if (config.provider === 'auto') return undefined;
    throw new KgragError('llm.provider is "openai-compatible" but neither llm.baseURL nor an API key is set', {
      code: 'CONFIG_LLM_ENDPOINT_MISSING',
      category: 'config',
      hint: 'Set llm.baseURL (e.g. http://localhost:11434/v1 for Ollama) or OPENAI_API_KEY, or set llm.provider to "none"',
    });
  }
  const baseURL = configuredBaseURL ?? OPENAI_BASE_URL;

  const options = {
    baseURL,
    apiKey: apiKey ?? PLACEHOLDER_API_KEY,
    modelId: config.model,
    structuredOutputs: config.structuredOutputs,
    maxReplyBytes: config.maxReplyBytes,
    ...(config.headers === undefined ? {} : { headers: config.headers }),
    ...(dependencies.fetch === undefined ? {} : { fetch: dependencies.fetch }),
    ...(dependencies.countTokens === undefined ? {} : { countTokens: dependencies.countTokens }),
  };
  return lazyLanguageModel(openAiCompatibleProvider, config.model, async () => {
    const [{ createOpenAiCompatibleLanguageModel }, { llmPolicyMiddleware }] = await Promise.all([
      import('./openai-compatible-language-model.js'),
      import('./llm-policy-middleware.js'),
    ]);
    return createOpenAiCompatibleLanguageModel({ ...options, middleware: llmPolicyMiddleware(config, dependencies) });
  });
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value;
}
