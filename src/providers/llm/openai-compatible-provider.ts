/** The provider name of the OpenAI-compatible HTTP adapter, known without loading it. */
export const openAiCompatibleProvider = 'openai-compatible';
