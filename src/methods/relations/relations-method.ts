import { packSourcesTable } from '../../answer/pack-context.js';
import { answerFromContext } from '../answer-from-context.js';
import { createCallMeter, type CallMeter } from '../call-meter.js';
import type { MethodAnswer, MethodContext, QueryMethod, Retrieval } from '../query-method.js';
import { extractQueryEntities } from '../query-entities.js';
import { relationsGraph } from './relations-graph.js';
import { relationsParams, type RelationsParams } from './relations-params.js';
import { relationsSubgraph } from './relations-subgraph.js';
import { retrieveRelations, usesLlmRerank } from './retrieve-relations.js';

/** The meter of each retrieval's LLM calls (query NER, rerank), so that its answer reports them too. */
const meters = new WeakMap<Retrieval, CallMeter>();

/**
 * `relations`: Graph RAG with Milvus (milvus-io/bootcamp `graph_rag_with_milvus.ipynb`, reference/seed-methods.md
 * §D) over the index's triples. Query entities (LLM NER, or noun phrases without an LLM) seed their nearest
 * phrases and the question seeds its nearest facts; incidence-matrix products expand them by
 * `expansionDegree`; the candidates, ordered by question similarity then fact index and capped at
 * `maxCandidates`, go to one LLM call that picks the useful facts with the one-shot JSON prompt (without an
 * LLM they are ranked by question similarity plus `pathWeight` × path support between seeds, see
 * `rerankByPathSupport`); the passages of the ranked facts, in order and deduplicated, are the result.
 *
 * `Retrieval.chunks` holds the whole ranked passage list, `max(k, finalTopK)` long (k = 10 by default), so
 * that evaluation measures Recall@5 and @10; when the facts reach fewer passages (an LLM picks a handful) the
 * rest are the best remaining chunks by dense search, marked `dense` in their scores. The answer reads only the
 * first `finalTopK` (2, as in the notebook). A request's `topK` (CLI `-k`) sets `finalTopK`: it is the number
 * of passages the answer sees.
 */
export const relationsMethod: QueryMethod<RelationsParams> = {
  name: 'relations',
  description: 'Graph RAG with Milvus: entity and fact seeds, incidence-matrix expansion, one LLM rerank of the facts (LLM-free: similarity and paths), their passages',
  variants: [],
  params: relationsParams,
  topKParam: 'finalTopK',
  requires: ['chunk', 'embed-chunks', 'triples', 'embed-triples'],

  async retrieve(context, question, params): Promise<Retrieval> {
    const graph = await context.trace.time('relations-graph', () => relationsGraph(context), (built) => ({ phrases: built.triples.phraseTexts.length, facts: built.triples.factSubject.length }));
    const meter = context.llm ? createCallMeter(context.llm) : undefined;
    const nerContext: MethodContext = meter ? { ...context, llm: meter.model('query-entities') } : context;
    const mentions = await extractQueryEntities(nerContext, question);
    const run = await retrieveRelations(context, {
      graph,
      question,
      mentions,
      params,
      model: meter && usesLlmRerank(params, true) ? meter.model('relations-rerank') : undefined,
    });
    const chunks = await context.chunks(
      run.passages.map((passage) => {
        const scores: Record<string, number> =
          passage.source === 'fact' ? { relations: passage.score, factRank: (passage.factRank ?? 0) + 1 } : { dense: passage.score };
        return { id: passage.chunkId, score: passage.score, scores };
      }),
    );
    const titles = new Map(chunks.map((chunk) => [chunk.id, chunk.documentTitle || chunk.id]));
    const retrieval: Retrieval = { chunks, subgraph: relationsSubgraph(question, graph.triples, run, (chunkId) => titles.get(chunkId) ?? chunkId) };
    if (meter) meters.set(retrieval, meter);
    return retrieval;
  },

  async answer(context, question, retrieval, params, options): Promise<MethodAnswer> {
    const meter = meters.get(retrieval) ?? (context.llm ? createCallMeter(context.llm) : undefined);
    const packed = packSourcesTable(retrieval.chunks.slice(0, params.finalTopK), context.tokenizer, context.config.query.maxContextTokens);
    const answered = await answerFromContext(
      context,
      { question, contextText: packed.text, contextTokens: packed.tokens, passages: packed.included, ...(meter ? { model: meter.model('answer') } : {}) },
      options,
    );
    // The query's usage holds every call the meter saw: query NER and the rerank as well as the answer.
    return { ...answered, usage: meter?.usage ?? { inputTokens: 0, outputTokens: 0 }, llmCalls: meter?.paidCalls ?? 0 };
  },
};
