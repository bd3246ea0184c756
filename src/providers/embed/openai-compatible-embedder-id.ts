/** The vector-space id of an OpenAI-compatible embedding model: its model id and requested dimension. */
export function openAiCompatibleEmbedderId(options: { modelId: string; dimensions?: number }): string {
  return `openai-compatible:${options.modelId}:${options.dimensions ?? 'auto'}`;
}
