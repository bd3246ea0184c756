import { packSourcesTable } from '../../answer/pack-context.js';
import { answerFromContext } from '../shared/answer-from-context.js';
import { createCallMeter, type CallMeter } from '../shared/call-meter.js';
import { methodSpecificationVersion, type MethodAnswer, type MethodContext, type QueryMethod, type Retrieval } from '../query-method.js';
import { queryEntitiesPrompt, startQueryEntities } from '../shared/query-entities.js';
import { prefetchQuestionNounPhrases } from '../shared/question-noun-phrases.js';
import { relationsGraph } from './relations-graph.js';
import { relationsConfig, type RelationsConfig } from './config.js';
import { relationsRerankPrompt } from './relations-rerank-prompt.js';
import { relationsSubgraph } from './relations-subgraph.js';
import { retrieveRelations, usesLlmRerank } from './retrieve-relations.js';

/**
 * `relations`: Graph RAG with Milvus (milvus-io/bootcamp
 * `tutorials/quickstart/graph_rag_with_milvus.ipynb`) over the index's triples. Query entities (LLM NER, or noun phrases without an LLM) seed their nearest
 * phrases and the question seeds its nearest facts; incidence-matrix products expand them by
 * `expansionDegree`; the candidates, ordered by question similarity then fact index and capped at
 * `maxCandidates`, go to one LLM call that picks the useful facts with the one-shot JSON prompt (without an
 * LLM they are ranked by question similarity plus `pathWeight` × path support between seeds, see
 * `rerankByPathSupport`); the passages of the ranked facts, in order and deduplicated, are the result.
 *
 * `Retrieval.chunks` holds the whole ranked passage list, `max(k, finalTopK)` long (k = 10 by default), so
 * that evaluation measures Recall@5 and @10; when the facts reach fewer passages (an LLM picks a handful) the
 * rest are the best remaining chunks by dense search, marked `dense` in their scores. The answer reads only the
 * first `finalTopK` (2, as in the notebook). A request's `topK` (CLI `-k`) sets both `k` and `finalTopK`: the
 * passages returned are then the passages the answer reads.
 */
export const relationsMethod: QueryMethod<RelationsConfig, CallMeter | undefined> = {
  specificationVersion: methodSpecificationVersion,
  name: 'relations',
  description: 'Graph RAG with Milvus: entity and fact seeds, incidence-matrix expansion, one LLM rerank of the facts (LLM-free: similarity and paths), their passages',
  variants: [],
  config: relationsConfig,
  ranking: { kind: 'native' },
  prompts: [queryEntitiesPrompt, relationsRerankPrompt],
  topKParam: ['k', 'finalTopK'],
  requires: ['chunk', 'embed-chunks', 'triples', 'embed-triples'],
  // Without an LLM the question's entities are its noun phrases: the extractor's model loads on another thread.
  prepare: (question) => prefetchQuestionNounPhrases(question),

  async retrieve(context, question, params): Promise<Retrieval<CallMeter | undefined>> {
    // Under --context-only the query entities are noun phrases and the facts are ranked without the LLM.
    const meter = context.llm && !context.contextOnly ? createCallMeter(context.llm) : undefined;
    if (context.llm && context.contextOnly) {
      context.warn('context-only: relations found the query entities as noun phrases and ranked the facts without the LLM rerank; with the LLM it may choose other facts');
    }
    // The question's entities are found while the graph loads (an LLM call, or the noun-phrase model in a worker).
    const nerContext: MethodContext = { ...context, llm: meter?.model('query-entities') };
    const queryEntities = startQueryEntities(nerContext, question);
    const graph = await context.trace.time('relations-graph', () => relationsGraph(context), (built) => ({ phrases: built.triples.phraseTexts.length, facts: built.triples.factSubject.length }));
    const mentions = await queryEntities;
    const run = await retrieveRelations(context, {
      graph,
      question,
      mentions,
      params: context.contextOnly ? { ...params, rerank: 'similarity' } : params,
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
    // The meter travels with the retrieval so that the answer reports the NER and rerank calls too.
    return { chunks, subgraph: relationsSubgraph(question, graph.triples, run, (chunkId) => titles.get(chunkId) ?? chunkId), state: meter };
  },

  async answer(context, question, retrieval, params, options): Promise<MethodAnswer> {
    const meter = retrieval.state ?? (context.llm && !options.contextOnly ? createCallMeter(context.llm) : undefined);
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
