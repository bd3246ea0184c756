import { APICallError } from 'ai';
import type { SdkCallOptions, SdkLanguageModelMiddleware } from './sdk-types.js';

/** How JSON replies are requested from the server. */
export type StructuredOutputsMode = 'auto' | 'json_schema' | 'json_object';

/** The `providerOptions` key `@ai-sdk/openai-compatible` reads its options from. */
const OPENAI_COMPATIBLE_OPTIONS = 'openaiCompatible';
const SCHEMA_REJECTION_PATTERN = /response_format|json_schema|structured output|guided_json/i;

/**
 * How an OpenAI-compatible chat model (created with `supportsStructuredOutputs: true`) is asked for JSON:
 * `json_schema` sends the schema (strict when OpenAI's strict mode accepts it); `json_object` sends only JSON mode
 * and puts the schema in the system prompt; `auto` starts with `json_schema` and switches to `json_object` for the
 * rest of the model's life once the server rejects it. A JSON request without a schema always names JSON in the
 * prompt, which OpenAI's JSON mode requires.
 */
export function structuredOutputsMiddleware(mode: StructuredOutputsMode): SdkLanguageModelMiddleware {
  let sendsJsonSchema = mode !== 'json_object';

  /** The call as sent: `fallback` forces `json_object`. */
  const prepare = (params: SdkCallOptions, fallback: boolean): SdkCallOptions => {
    const format = params.responseFormat;
    if (format?.type !== 'json') return params;
    const schema = format.schema as Record<string, unknown> | undefined;
    if (schema !== undefined && sendsJsonSchema && !fallback) {
      return { ...params, providerOptions: { ...params.providerOptions, [OPENAI_COMPATIBLE_OPTIONS]: { ...params.providerOptions?.[OPENAI_COMPATIBLE_OPTIONS], strictJsonSchema: isStrictCompatible(schema) } } };
    }
    const { schema: _sent, ...withoutSchema } = format;
    return { ...params, responseFormat: withoutSchema, prompt: withJsonInstruction(params.prompt, schema) };
  };
  /** True when `auto` mode should give up on `json_schema` after this failure of a call that sent one. */
  const shouldFallBack = (error: unknown, params: SdkCallOptions): boolean =>
    mode === 'auto' &&
    sendsJsonSchema &&
    params.responseFormat?.type === 'json' &&
    params.responseFormat.schema !== undefined &&
    APICallError.isInstance(error) &&
    (error.statusCode === 400 || error.statusCode === 422) &&
    SCHEMA_REJECTION_PATTERN.test(error.responseBody ?? error.message);

  const withFallback = async <R>(params: SdkCallOptions, call: (sent: SdkCallOptions) => PromiseLike<R>): Promise<R> => {
    try {
      return await call(prepare(params, false));
    } catch (error) {
      if (!shouldFallBack(error, params)) throw error;
      sendsJsonSchema = false;
      return call(prepare(params, true));
    }
  };

  return {
    specificationVersion: 'v3',
    wrapGenerate: ({ params, model }) => withFallback(params, (sent) => model.doGenerate(sent)),
    // A server that rejects the schema does so in its HTTP status, before the stream starts: `doStream` throws.
    wrapStream: ({ params, model }) => withFallback(params, (sent) => model.doStream(sent)),
  };
}

type Prompt = SdkCallOptions['prompt'];

/**
 * In `json_object` mode the server never sees the schema, so it goes into the system prompt; OpenAI also refuses
 * JSON mode unless a message mentions "JSON". Merged into the first system message because several chat templates
 * reject system messages after the first turn.
 */
function withJsonInstruction(prompt: Prompt, schema: Record<string, unknown> | undefined): Prompt {
  const instruction =
    schema === undefined
      ? 'Reply with a single JSON value and nothing else.'
      : `Reply with a single JSON object and nothing else. It must conform to this JSON Schema:\n${JSON.stringify(schema)}`;
  const mentionsJson = prompt.some((message) =>
    message.role === 'system' ? /json/i.test(message.content) : message.content.some((part) => part.type === 'text' && /json/i.test(part.text)),
  );
  if (schema === undefined && mentionsJson) return prompt;
  const systemIndex = prompt.findIndex((message) => message.role === 'system');
  if (systemIndex === -1) return [{ role: 'system', content: instruction }, ...prompt];
  return prompt.map((message, index) => (index === systemIndex && message.role === 'system' ? { ...message, content: `${message.content}\n\n${instruction}` } : message));
}

/**
 * OpenAI's strict mode only accepts schemas whose objects are closed and list every property as
 * required; other schemas are sent non-strict rather than rejected.
 */
function isStrictCompatible(schema: unknown): boolean {
  if (Array.isArray(schema)) return schema.every(isStrictCompatible);
  if (typeof schema !== 'object' || schema === null) return true;
  const node = schema as Record<string, unknown>;
  const properties = node['properties'];
  const hasProperties = typeof properties === 'object' && properties !== null;
  if (node['type'] === 'object' || hasProperties) {
    if (node['additionalProperties'] !== false) return false;
    const required = Array.isArray(node['required']) ? (node['required'] as unknown[]) : [];
    if (hasProperties && !Object.keys(properties).every((key) => required.includes(key))) return false;
  }
  // Property names are not schemas (a property may be called "type"): descend into their values only.
  const nested = Object.entries(node).flatMap(([key, value]) => (key === 'properties' && hasProperties ? Object.values(value as object) : [value]));
  return nested.every(isStrictCompatible);
}
