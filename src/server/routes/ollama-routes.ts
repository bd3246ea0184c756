import type { Context } from 'hono';
import { stream } from 'hono/streaming';
import { z } from 'zod';
import type { QueryResult } from '../../methods/query-engine.js';
import type { AnyQueryMethod } from '../../methods/query-method.js';
import type { ChatMessage } from '../../providers/llm/language-model.js';
import { type ApiRoute, defineRoute, type ServerEnv } from '../api-route.js';
import { httpError, problemOf } from '../http-problem.js';
import type { QueryGate } from '../query-gate.js';
import { looseObject, ollamaChatRequestSchema, ollamaGenerateRequestSchema, ollamaShowRequestSchema } from '../request-schemas.js';
import { problemResponse } from '../response-schemas.js';
import type { ServedWorkspace } from '../workspace-registry.js';
import { chatModels, conversationOf, methodOfModel, replyText } from './chat-routes.js';

/**
 * The Ollama API version these endpoints follow, reported by `/api/version`: clients such as Open WebUI read it to
 * decide what they may ask, so it names the API kgrag speaks, not kgrag's own version.
 */
export const ollamaApiVersion = '0.9.0';

const latest = ':latest';

/** Each method as an Ollama model: `kgrag-<method>:latest` (its default variant) and `kgrag-<method>:<variant>`. */
function ollamaModels(methods: readonly AnyQueryMethod[]): string[] {
  return chatModels(methods).map((model) => (model.includes(':') ? model : `${model}${latest}`));
}

/** The method an Ollama model name asks for; an Ollama client adds `:latest` to a name without a tag. */
function methodOfOllamaModel(model: string, methods: readonly AnyQueryMethod[]): string {
  const name = model.endsWith(latest) ? model.slice(0, -latest.length) : model;
  if (!chatModels(methods).includes(name)) {
    throw httpError(404, 'SERVER_UNKNOWN_MODEL', `model "${model.slice(0, 100)}" not found`, `choose one of /api/tags, e.g. ${ollamaModels(methods).slice(0, 4).join(', ')}`);
  }
  return methodOfModel(name, methods);
}

/** Ollama's model details, for a method: no weights, no quantization. */
const details = { parent_model: '', format: 'kgrag', family: 'kgrag', families: ['kgrag'], parameter_size: '', quantization_level: '' };

/** Ollama's timing and token fields of a finished reply (durations in nanoseconds). */
function finalFields(result: QueryResult, startedNs: bigint) {
  return {
    done: true,
    done_reason: 'stop',
    total_duration: Number(process.hrtime.bigint() - startedNs),
    load_duration: 0,
    prompt_eval_count: result.usage.inputTokens,
    prompt_eval_duration: 0,
    eval_count: result.usage.outputTokens,
    eval_duration: 0,
  };
}

/**
 * Answers one Ollama request, whole or as NDJSON lines (Ollama streams unless `stream` is false): each line is
 * `{model, created_at, …content(text), done}`, the last one with the timings and counts (and `finalExtra`). A failure
 * while streaming ends the stream with `{"error": …}`, as Ollama does.
 */
async function answer(
  c: Context<ServerEnv>,
  gate: QueryGate,
  workspace: ServedWorkspace,
  request: { model: string; question: string; history: ChatMessage[]; method: string; stream: boolean },
  content: (text: string) => Record<string, unknown>,
  finalExtra: Record<string, unknown> = {},
): Promise<Response> {
  const startedNs = process.hrtime.bigint();
  const line = (text: string) => ({ model: request.model, created_at: new Date().toISOString(), ...content(text) });
  const shape = {
    partial: (delta: string) => ({ ...line(delta), done: false }),
    final: (result: QueryResult, text: string) => ({ ...line(text), ...finalExtra, ...finalFields(result, startedNs) }),
  };
  const ask = (signal: AbortSignal, onText?: (delta: string) => void): Promise<QueryResult> =>
    workspace.kgrag.query(request.question, { method: request.method, history: request.history, signal, ...(onText === undefined ? {} : { onText }) });
  const slot = gate.admit(c.get('caller'));
  if (!request.stream) {
    const result = await slot.run(c.req.raw.signal, (signal) => ask(signal));
    return c.json(shape.final(result, replyText(result)));
  }
  c.header('content-type', 'application/x-ndjson');
  return stream(c, async (out) => {
    const client = new AbortController();
    out.onAbort(() => client.abort());
    const write = (value: Record<string, unknown>) => out.write(`${JSON.stringify(value)}\n`);
    let streamed = false;
    try {
      const result = await slot.run(client.signal, (signal) =>
        ask(signal, (delta) => {
          streamed = true;
          void write(shape.partial(delta));
        }),
      );
      const rest = replyText(result, streamed);
      if (rest.length > 0) await write(shape.partial(rest));
      await write(shape.final(result, ''));
    } catch (error) {
      await write({ error: problemOf(error, c.get('requestId')).problem.detail });
    }
  });
}

/**
 * The Ollama-compatible endpoints (`/api/chat`, `/api/generate`, `/api/tags`, `/api/show`, `/api/version`), as
 * LightRAG offers them: Open WebUI and other Ollama clients connect with no plug-in, and each method is a model.
 * Errors are Ollama's `{"error": "…"}`.
 */
export function ollamaRoutes(gate: QueryGate): ApiRoute[] {
  /** `/api/chat` and `/api/generate`: a model names the method, the body the question; the reply ends with the sources. */
  const answeringRoute = <B extends { model: string; stream?: boolean | undefined }>(route: {
    path: string;
    summary: string;
    body: z.ZodType<B>;
    conversation: (body: B) => { question: string; history: ChatMessage[] };
    content: (text: string) => Record<string, unknown>;
    finalExtra?: Record<string, unknown>;
  }): ApiRoute =>
    defineRoute({
      method: 'post',
      role: 'read',
      path: route.path,
      tag: 'ollama',
      summary: route.summary,
      description: 'The answer ends with a "Sources:" list, as the OpenAI-compatible chat.',
      body: route.body,
      responses: { 200: { description: 'An Ollama response (or NDJSON lines of them)', schema: looseObject }, 400: problemResponse('Invalid request'), 404: problemResponse('Unknown model') },
      handler: (c, { body, workspace }) => {
        const method = methodOfOllamaModel(body.model, workspace.kgrag.engine.methods);
        return answer(c, gate, workspace, { model: body.model, method, stream: body.stream !== false, ...route.conversation(body) }, route.content, route.finalExtra);
      },
    });
  return [
    defineRoute({
      method: 'get',
      path: '/api/version',
      tag: 'ollama',
      summary: 'The Ollama API version these endpoints follow',
      responses: { 200: { description: 'Version', schema: z.object({ version: z.string() }) } },
      handler: (c) => c.json({ version: ollamaApiVersion }),
    }),
    defineRoute({
      method: 'get',
      path: '/api/tags',
      tag: 'ollama',
      summary: 'The methods as Ollama models (kgrag-<method>:latest, kgrag-<method>:<variant>)',
      responses: { 200: { description: 'Ollama model list', schema: z.object({ models: z.array(looseObject) }) } },
      handler: (c, { workspace }) =>
        c.json({
          models: ollamaModels(workspace.kgrag.engine.methods).map((name) => ({ name, model: name, modified_at: new Date(0).toISOString(), size: 0, digest: '', details })),
        }),
    }),
    defineRoute({
      method: 'post',
      role: 'read',
      path: '/api/show',
      tag: 'ollama',
      summary: 'One method as an Ollama model',
      body: ollamaShowRequestSchema,
      responses: { 200: { description: 'Ollama model', schema: looseObject }, 404: problemResponse('Unknown model') },
      handler: (c, { body, workspace }) => {
        const model = body.model ?? body.name ?? '';
        const method = methodOfOllamaModel(model, workspace.kgrag.engine.methods);
        const description = workspace.kgrag.engine.methods.find((candidate) => candidate.name === method.split(':')[0])?.description ?? '';
        return c.json({ license: '', modelfile: '', parameters: '', template: '', system: description, details, model_info: {}, capabilities: ['completion'], modified_at: new Date(0).toISOString() });
      },
    }),
    answeringRoute({
      path: '/api/chat',
      summary: 'Ollama chat: the last user message is the question, earlier turns the conversation; NDJSON unless stream is false',
      body: ollamaChatRequestSchema,
      conversation: (body) => conversationOf(body.messages),
      content: (text) => ({ message: { role: 'assistant', content: text } }),
    }),
    answeringRoute({
      path: '/api/generate',
      summary: 'Ollama generate: the prompt is the question; NDJSON unless stream is false',
      body: ollamaGenerateRequestSchema,
      conversation: (body) => {
        const question = body.prompt.trim();
        if (question.length === 0) throw httpError(400, 'SERVER_NO_QUESTION', 'the prompt is empty', 'send the question as "prompt"');
        return { question, history: [] };
      },
      content: (text) => ({ response: text }),
      finalExtra: { context: [] },
    }),
  ];
}
