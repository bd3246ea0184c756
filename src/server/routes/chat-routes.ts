import { createHash } from 'node:crypto';
import { streamSSE } from 'hono/streaming';
import { z } from 'zod';
import type { Citation } from '../../answer/answer-types.js';
import { lastQuestionAlone, type QueryResult } from '../../methods/query-engine.js';
import type { AnyQueryMethod } from '../../methods/query-method.js';
import type { ChatMessage } from '../../providers/llm/language-model.js';
import { defineRoute } from '../api-route.js';
import { httpError, problemOf } from '../http-problem.js';
import type { QueryGate } from '../query-gate.js';
import { type ChatCompletionRequest, chatCompletionRequestSchema, looseObject } from '../request-schemas.js';
import { problemResponse } from '../response-schemas.js';
import { sourceList } from '../../answer/source-list.js';

const modelPrefix = 'kgrag-';

/** Every model the chat endpoint offers for a workspace's methods: `kgrag-<method>` and `kgrag-<method>:<variant>`. */
export function chatModels(methods: readonly AnyQueryMethod[]): string[] {
  return methods.flatMap((method) => [`${modelPrefix}${method.name}`, ...method.variants.map((variant) => `${modelPrefix}${method.name}:${variant}`)]);
}

/** The method (`name` or `name:variant`) a chat model names; 404 naming the models for any other. */
export function methodOfModel(model: string, methods: readonly AnyQueryMethod[]): string {
  const models = chatModels(methods);
  if (!models.includes(model)) {
    throw httpError(404, 'SERVER_UNKNOWN_MODEL', `no model "${model.slice(0, 100)}"`, `choose one of GET /v1/models, e.g. ${models.slice(0, 4).join(', ')}`);
  }
  return model.slice(modelPrefix.length);
}

function textOf(content: ChatCompletionRequest['messages'][number]['content']): string {
  if (content === undefined || content === null) return '';
  if (typeof content === 'string') return content;
  return content.flatMap((part) => (part.type === 'text' && typeof part.text === 'string' ? [part.text] : [])).join('\n');
}

/**
 * The question and the conversation before it. The last user message is the question; earlier user and assistant
 * turns are the history the answering LLM reads; system and developer messages are not passed on (the method's own
 * prompt is the system prompt), tool messages neither. Ollama's messages (text content) read the same.
 */
export function conversationOf(messages: ReadonlyArray<{ role: string; content?: ChatCompletionRequest['messages'][number]['content'] }>): { question: string; history: ChatMessage[] } {
  let last = -1;
  messages.forEach((message, index) => {
    if (message.role === 'user') last = index;
  });
  const question = last < 0 ? '' : textOf(messages[last]?.content).trim();
  if (question.length === 0) throw httpError(400, 'SERVER_NO_QUESTION', 'the conversation has no user message with text to answer', 'end the messages with {"role": "user", "content": "your question"}');
  const history = messages
    .slice(0, last)
    .filter((message) => message.role === 'user' || message.role === 'assistant')
    .map((message) => ({ role: message.role as 'user' | 'assistant', content: textOf(message.content) }))
    .filter((message) => message.content.length > 0);
  return { question, history };
}

/**
 * What a chat reader must know beside the answer: that the earlier turns went unused (without an LLM, or a method
 * that does not read them), so "it" in the question was not resolved. The same words are in `kgrag.warnings`.
 */
function historyNote(result: QueryResult): string {
  if (!result.warnings.some((warning) => warning.includes(lastQuestionAlone))) return '';
  const why = result.answer.kind === 'generated' ? `the ${result.method} method does not read them` : 'the server has no LLM to read them';
  return `\n\n_Only your last message was used; the earlier turns of this conversation were not (${why})._`;
}

/**
 * What a chat reply holds after the answer's streamed text (`streamed`), or all of it: the answer when it was not
 * streamed (an extractive or cached one arrives whole), the note on the conversation, and the sources.
 */
export function replyText(result: QueryResult, streamed = false): string {
  return (streamed ? '' : result.answer.text) + historyNote(result) + sourcesText(result.citations);
}

/** The sources list appended to the answer text, so that a plain chat front-end shows where the answer comes from. */
export function sourcesText(citations: readonly Citation[]): string {
  const lines = sourceList(citations);
  return lines.length === 0 ? '' : `\n\nSources:\n${lines.join('\n')}`;
}

/** A method as OpenAI describes a model. */
function modelObject(id: string) {
  return { id, object: 'model', created: 0, owned_by: 'kgrag' };
}

function completionId(request: ChatCompletionRequest, requestId: string): string {
  return `chatcmpl-${createHash('sha256').update(requestId).update(JSON.stringify(request.messages)).digest('hex').slice(0, 24)}`;
}

function usageOf(result: QueryResult) {
  return { prompt_tokens: result.usage.inputTokens, completion_tokens: result.usage.outputTokens, total_tokens: result.usage.inputTokens + result.usage.outputTokens };
}

/** The extra field of a completion: the citations, the method's label and warnings, and the index generation. */
function kgragField(result: QueryResult) {
  return { method: result.method, variant: result.variant, citations: result.citations, answerKind: result.answer.kind, label: result.answer.label, warnings: result.warnings, index: result.index };
}

/** The OpenAI-compatible endpoints: each method is a model, so OpenAI clients and chat front-ends can use a workspace. */
export function chatRoutes(gate: QueryGate) {
  return [
    defineRoute({
      method: 'get',
      path: '/models',
      tag: 'openai',
      summary: 'The methods as OpenAI models (kgrag-<method>, kgrag-<method>:<variant>)',
      responses: { 200: { description: 'OpenAI model list', schema: z.object({ object: z.literal('list'), data: z.array(looseObject) }) } },
      handler: (c, { workspace }) => c.json({ object: 'list', data: chatModels(workspace.kgrag.engine.methods).map(modelObject) }),
    }),
    defineRoute({
      method: 'get',
      path: '/models/:model',
      tag: 'openai',
      summary: 'One method as an OpenAI model (`models.retrieve`)',
      params: z.object({ model: z.string().min(1).max(200) }),
      responses: { 200: { description: 'OpenAI model', schema: looseObject }, 404: problemResponse('Unknown model') },
      handler: (c, { params, workspace }) => {
        methodOfModel(params.model, workspace.kgrag.engine.methods);
        return c.json(modelObject(params.model));
      },
    }),
    defineRoute({
      method: 'post',
      role: 'read',
      path: '/chat/completions',
      tag: 'openai',
      summary: 'OpenAI-compatible chat completion: the last user message is the question, earlier turns the history',
      description:
        'Streams like OpenAI with `stream: true` (`chat.completion.chunk` events, then `data: [DONE]`). The answer text ends with a "Sources:" list; the citations are also in the extra `kgrag` field (on the last chunk when streaming).',
      body: chatCompletionRequestSchema,
      responses: {
        200: { description: 'A chat.completion (or an event stream of chat.completion.chunk)', schema: looseObject },
        400: problemResponse('Invalid request'),
        404: problemResponse('Unknown model'),
      },
      handler: async (c, { body, workspace }) => {
        // Checked before a query slot is taken: a bad request must not count against the caller's concurrency.
        const method = methodOfModel(body.model, workspace.kgrag.engine.methods);
        const { question, history } = conversationOf(body.messages);
        const answer = (signal: AbortSignal, onText?: (delta: string) => void): Promise<QueryResult> =>
          workspace.kgrag.query(question, { method, history, signal, ...(onText === undefined ? {} : { onText }) });
        const slot = gate.admit(c.get('caller'));
        const id = completionId(body, c.get('requestId'));
        const created = Math.floor(Date.now() / 1000);
        if (!body.stream) {
          const result = await slot.run(c.req.raw.signal, (signal) => answer(signal));
          return c.json({
            id,
            object: 'chat.completion',
            created,
            model: body.model,
            choices: [{ index: 0, message: { role: 'assistant', content: replyText(result) }, finish_reason: 'stop', logprobs: null }],
            usage: usageOf(result),
            kgrag: kgragField(result),
          });
        }
        return streamSSE(c, async (stream) => {
          const chunk = (delta: Record<string, unknown>, finish: string | null, extra: Record<string, unknown> = {}) =>
            stream.writeSSE({ data: JSON.stringify({ id, object: 'chat.completion.chunk', created, model: body.model, choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }], ...extra }) });
          const client = new AbortController();
          stream.onAbort(() => client.abort());
          await chunk({ role: 'assistant', content: '' }, null);
          let streamed = false;
          try {
            const result = await slot.run(client.signal, (signal) =>
              answer(signal, (delta) => {
                streamed = true;
                void chunk({ content: delta }, null);
              }),
            );
            const rest = replyText(result, streamed);
            if (rest.length > 0) await chunk({ content: rest }, null);
            await chunk({}, 'stop', { kgrag: kgragField(result), ...(body.stream_options?.include_usage ? { usage: usageOf(result) } : {}) });
          } catch (error) {
            const { problem } = problemOf(error, c.get('requestId'));
            await stream.writeSSE({ data: JSON.stringify({ error: problem.error }) });
          }
          await stream.writeSSE({ data: '[DONE]' });
        });
      },
    }),
  ];
}
