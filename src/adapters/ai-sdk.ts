import { tool } from 'ai';
import { z } from 'zod';
import type { Kgrag } from '../api/kgrag.js';

/** Options of {@link kgragTools}. */
export interface KgragToolsOptions {
  /** The method the `query` tool uses when the model names none. @default the workspace's `query.method` */
  method?: string;
  /** Whether the model may choose the method (an enum of the workspace's methods in the tool's input). @default true */
  chooseMethod?: boolean;
}

/**
 * Vercel AI SDK tools over a kgrag workspace (`import { kgragTools } from 'kgrag/ai-sdk'`): `query` answers from the
 * indexed documents with citations, `search_entities` finds entities of the knowledge graph by name. Pass them to
 * `generateText({ tools })` or `streamText`; each returns JSON the model reads (answer text, citations with quotes).
 */
export function kgragTools(kgrag: Kgrag, options: KgragToolsOptions = {}) {
  const names = kgrag.engine.methods.flatMap((method) => [method.name, ...method.variants.map((variant) => `${method.name}:${variant}`)]);
  const methodInput = z.enum(names as [string, ...string[]]).optional().describe(`Retrieval method; default ${options.method ?? kgrag.config.query.method}`);
  return {
    query: tool({
      description:
        'Answers a question from the indexed documents, with citations to the passages, entities or reports it rests on. Ask one self-contained question at a time.',
      inputSchema: options.chooseMethod === false ? z.object({ question: z.string().min(1) }) : z.object({ question: z.string().min(1), method: methodInput }),
      execute: async (input: { question: string; method?: string | undefined }, { abortSignal }) => {
        const result = await kgrag.query(input.question, { method: input.method ?? options.method, ...(abortSignal === undefined ? {} : { signal: abortSignal }) });
        return {
          answer: result.answer.text,
          answerKind: result.answer.kind,
          method: result.variant ? `${result.method}:${result.variant}` : result.method,
          citations: result.citations.map((citation) => ({ dataset: citation.dataset, id: citation.hid, title: citation.title, source: citation.source ?? null, quote: citation.quote ?? null })),
          warnings: result.warnings,
        };
      },
    }),
    search_entities: tool({
      description: 'Finds entities of the knowledge graph (people, places, organisations, concepts) by any part of their name or an alias, best connected first.',
      inputSchema: z.object({ query: z.string().min(1).max(200), limit: z.number().int().min(1).max(50).optional() }),
      execute: async (input: { query: string; limit?: number | undefined }) => {
        const entities = await kgrag.graph.searchEntities(input.query, { limit: input.limit ?? 10 });
        return { entities: entities.map((entity) => ({ id: entity.id, title: entity.title, type: entity.type, degree: entity.degree, match: entity.match })) };
      },
    }),
  };
}
