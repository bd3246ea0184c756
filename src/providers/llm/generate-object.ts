import { z } from 'zod';
import type { ChatMessage, ChatRequest, ChatResult, LanguageModel } from './language-model.js';
import { LlmCallError } from './llm-call-error.js';
import { parseJsonLoose } from './parse-json-loose.js';

/** Options of {@link generateObject}: a chat request whose reply must match `schema`. */
export interface GenerateObjectOptions<Schema extends z.ZodType> extends Omit<ChatRequest, 'responseFormat' | 'messages'> {
  model: LanguageModel;
  messages: readonly ChatMessage[];
  /** Zod 4 schema of the reply; its JSON Schema is sent as the response format. */
  schema: Schema;
  /** Name of the schema for `json_schema` mode (letters, digits, `_`, `-`). @default 'response' */
  schemaName?: string;
}

/** A validated structured reply. */
export interface GenerateObjectResult<T> {
  object: T;
  /** The call that produced the accepted reply. */
  result: ChatResult;
  /** True when the first reply was invalid and the repair turn fixed it. */
  repaired: boolean;
  /** Model calls made: 1, or 2 after a repair. */
  attempts: number;
}

type Verdict<T> = { ok: true; object: T } | { ok: false; problems: string[] };

/**
 * Asks for JSON matching `schema`, parses the reply tolerantly (`parseJsonLoose`) and validates it
 * with zod. An unparseable or invalid reply gets exactly one repair turn: the conversation, the bad
 * reply as the assistant's turn, and a user turn listing the problems. If that reply fails too,
 * throws `LLM_INVALID_OUTPUT` (not retryable) carrying the raw text.
 */
export async function generateObject<Schema extends z.ZodType>(
  options: GenerateObjectOptions<Schema>,
): Promise<GenerateObjectResult<z.output<Schema>>> {
  const { model, messages, schema, schemaName, ...requestOptions } = options;
  const responseFormat = { type: 'json' as const, schema: responseJsonSchema(schema), name: schemaName ?? 'response' };

  const first = await model.generate({ ...requestOptions, messages, responseFormat });
  const firstVerdict = judge(first, schema);
  if (firstVerdict.ok) return { object: firstVerdict.object, result: first, repaired: false, attempts: 1 };

  const repairMessages: ChatMessage[] = [
    ...messages,
    { role: 'assistant', content: first.text },
    { role: 'user', content: repairInstruction(firstVerdict.problems) },
  ];
  const second = await model.generate({ ...requestOptions, messages: repairMessages, responseFormat });
  const secondVerdict = judge(second, schema);
  if (secondVerdict.ok) return { object: secondVerdict.object, result: second, repaired: true, attempts: 2 };

  throw new LlmCallError(
    `The model's reply did not match the expected "${responseFormat.name}" JSON schema, even after one repair turn: ${secondVerdict.problems.join('; ')}`,
    {
      code: 'LLM_INVALID_OUTPUT',
      retryable: false,
      rawText: second.text,
      hint: 'Use a model that follows JSON instructions better, or set llm.structuredOutputs to "json_schema" if the server supports it',
      details: { modelId: second.modelId, problems: secondVerdict.problems, firstProblems: firstVerdict.problems },
    },
  );
}

/** JSON Schemas by zod schema: converting one costs more CPU than sending a request, and every chunk's call sends the same. */
const jsonSchemas = new WeakMap<z.ZodType, Readonly<Record<string, unknown>>>();

/** The JSON Schema of `schema` as sent in a response format (shared between calls: read it, never change it). */
export function responseJsonSchema(schema: z.ZodType): Readonly<Record<string, unknown>> {
  let jsonSchema = jsonSchemas.get(schema);
  if (jsonSchema === undefined) {
    const converted = z.toJSONSchema(schema, { unrepresentable: 'any' }) as Record<string, unknown>;
    // Servers validate the schema body, not the dialect URI, and some reject unknown `$schema` values.
    delete converted['$schema'];
    jsonSchemas.set(schema, (jsonSchema = deepFreeze(converted)));
  }
  return jsonSchema;
}

/** Freezes a JSON value and everything in it, so a caller that tried to change a shared schema would throw. */
function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}

function judge<Schema extends z.ZodType>(result: ChatResult, schema: Schema): Verdict<z.output<Schema>> {
  const parsed = parseJsonLoose(result.text);
  if (!parsed.ok) {
    const cut = result.finishReason === 'length' ? ' (the reply hit the output token limit and was cut off)' : '';
    return { ok: false, problems: [`the reply is not valid JSON: ${parsed.error}${cut}`] };
  }
  const validated = schema.safeParse(parsed.value);
  if (validated.success) return { ok: true, object: validated.data };
  return {
    ok: false,
    problems: validated.error.issues.map((issue) => `${issue.path.length === 0 ? '(root)' : issue.path.map(String).join('.')}: ${issue.message}`),
  };
}

function repairInstruction(problems: readonly string[]): string {
  return [
    'Your previous reply could not be used:',
    ...problems.map((problem) => `- ${problem}`),
    'Reply again with only the corrected JSON, matching the required schema: no explanations, no markdown fences.',
  ].join('\n');
}
