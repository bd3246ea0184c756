import { KgragError } from '../../core/errors.js';
import type { LanguageModel } from '../../providers/llm/language-model.js';
import type { MethodContext } from '../query-method.js';
import { expandRelations } from './expand-relations.js';
import { findRelationSeeds, type RelationSeeds } from './find-relation-seeds.js';
import { orderCandidates, type OrderedCandidates } from './order-candidates.js';
import type { ParsedRerankReply } from './parse-rerank-reply.js';
import type { RelationsGraph } from './relations-graph.js';
import type { RelationsConfig } from './config.js';
import { relationsRerankPrompt } from './relations-rerank-prompt.js';
import { rerankByPathSupport } from './rerank-by-path-support.js';
import { rerankWithLlm } from './rerank-with-llm.js';
import { walkFactPassages } from './walk-fact-passages.js';

/** A fact in the reranked order. */
export interface RerankedFact {
  fact: number;
  /** LLM-free: similarity + pathWeight · support; LLM: 1 / rank (1 for the first chosen). */
  score: number;
  /** Cosine similarity of the fact to the question. */
  similarity: number;
  /** Path support between seeds (LLM-free rerank only). */
  support?: number;
}

/** A ranked passage: reached from a fact, or filled from dense chunk search. */
export interface RelationsPassage {
  chunkId: string;
  score: number;
  source: 'fact' | 'dense';
  /** For `fact` passages: the fact that reached it and that fact's position in the reranked list (0-based). */
  fact?: number;
  factRank?: number;
}

/** Everything one `relations` retrieval decided, for the result, the subgraph and the trace. */
export interface RelationsRun {
  mentions: string[];
  seeds: RelationSeeds;
  candidates: OrderedCandidates;
  rerank: { kind: 'llm' | 'similarity'; facts: RerankedFact[]; reply?: ParsedRerankReply };
  passages: RelationsPassage[];
}

/** Options of {@link retrieveRelations}. */
export interface RetrieveRelationsOptions {
  graph: RelationsGraph;
  question: string;
  /** Entities of the question (query NER). */
  mentions: readonly string[];
  params: RelationsConfig;
  /** The model for the rerank call (metered by the caller); required when the rerank is `llm`. */
  model: LanguageModel | undefined;
}

/** Whether the parameters ask for the LLM rerank, given whether a model is configured. */
export function usesLlmRerank(params: Pick<RelationsConfig, 'rerank'>, hasModel: boolean): boolean {
  return params.rerank === 'llm' || (params.rerank === 'auto' && hasModel);
}

/**
 * Graph RAG with Milvus over the triple index (milvus-io/bootcamp `tutorials/quickstart/graph_rag_with_milvus.ipynb`): seeds (phrases per query
 * entity, facts for the question), expansion by incidence products, candidates in a fixed order and capped,
 * one rerank (LLM, or LLM-free by question similarity and path support), then the passages of the reranked
 * facts in order. Returns `max(k, finalTopK)` passages; when the facts reach fewer, the rest are the best
 * chunks by dense similarity to the question that were not reached yet.
 */
export async function retrieveRelations(context: MethodContext, options: RetrieveRelationsOptions): Promise<RelationsRun> {
  const { graph, question, params } = options;
  const { triples } = graph;
  const mentions = [...options.mentions];
  const seeds = await context.trace.time(
    'seeds',
    () => findRelationSeeds(context, graph, question, mentions, params),
    (found) => ({
      entities: found.entities.map((entity) => ({ mention: entity.mention, phrases: Array.from(entity.phrases, (phrase) => triples.phraseTexts[phrase]) })),
      facts: Array.from(found.facts, (fact) => triples.factTexts[fact]),
    }),
  );
  const candidates = await context.trace.time(
    'expand',
    async () => {
      const expansion = expandRelations(graph, seeds.phrases, Array.from(seeds.facts), params.expansionDegree);
      return orderCandidates(expansion.candidates, seeds.questionSimilarity, params.maxCandidates);
    },
    (ordered) => ({ degree: params.expansionDegree, candidates: ordered.facts.length, evicted: ordered.evicted }),
  );

  let rerank: RelationsRun['rerank'];
  if (usesLlmRerank(params, options.model !== undefined)) {
    const model = options.model;
    if (model === undefined) {
      throw new KgragError('the relations rerank "llm" needs an LLM, and none is configured', {
        code: 'RELATIONS_RERANK_NEEDS_LLM',
        category: 'config',
        hint: 'configure llm.baseURL or OPENAI_API_KEY (README), or set methods.relations.rerank to "similarity"',
      });
    }
    rerank = await context.trace.time(
      'rerank',
      async () => {
        if (candidates.facts.length === 0) return { kind: 'llm' as const, facts: [] };
        const chosen = await rerankWithLlm({
          model,
          promptText: context.prompts.text(relationsRerankPrompt),
          question,
          candidates: candidates.facts,
          factTexts: triples.factTexts,
          ...(context.signal === undefined ? {} : { abortSignal: context.signal }),
        });
        const facts = chosen.facts.map((fact, rank) => ({ fact, score: 1 / (rank + 1), similarity: seeds.questionSimilarity[fact] as number }));
        return { kind: 'llm' as const, facts, reply: chosen.reply };
      },
      (result) => ({
        kind: result.kind,
        chosen: result.facts.length,
        ...(result.reply
          ? { format: result.reply.format, byId: result.reply.byId, byText: result.reply.byText, unknownIds: result.reply.unknownIds, unmatched: result.reply.unmatched, duplicates: result.reply.duplicates }
          : {}),
      }),
    );
  } else {
    rerank = await context.trace.time(
      'rerank',
      async () => {
        // One group per query entity (its matched phrases) and one per seed fact (its two ends).
        const groups = [...seeds.entities.map((entity) => Array.from(entity.phrases)), ...Array.from(seeds.facts, (fact) => [triples.factSubject[fact] as number, triples.factObject[fact] as number])];
        const ranked = rerankByPathSupport({ ...graph, factSubject: triples.factSubject, factObject: triples.factObject }, { groups }, candidates.facts, seeds.questionSimilarity, params.pathWeight);
        return { kind: 'similarity' as const, facts: ranked };
      },
      (result) => ({ kind: result.kind, ranked: result.facts.length, supported: result.facts.filter((fact) => (fact.support ?? 0) > 0).length }),
    );
  }

  const limit = Math.max(params.k, params.finalTopK);
  const passages = await context.trace.time(
    'passages',
    async () => {
      const walked = walkFactPassages(rerank.facts.map((item) => item.fact), triples.factChunks, limit);
      const found: RelationsPassage[] = walked.map((passage) => ({
        chunkId: triples.chunkIds[passage.chunk] as string,
        score: rerank.facts[passage.factRank]?.score ?? 0,
        source: 'fact',
        fact: passage.fact,
        factRank: passage.factRank,
      }));
      if (found.length >= limit) return found;
      // Fewer passages than asked for (few seeds, few triples): the rest come from dense chunk search.
      const taken = new Set(found.map((passage) => passage.chunkId));
      const hits = await context.store.vectors('chunks').search(await context.embedQuery(question), limit + found.length);
      for (const hit of hits) {
        if (found.length >= limit) break;
        if (taken.has(hit.id)) continue;
        taken.add(hit.id);
        found.push({ chunkId: hit.id, score: hit.score, source: 'dense' });
      }
      return found;
    },
    (found) => ({ fromFacts: found.filter((passage) => passage.source === 'fact').length, fromDense: found.filter((passage) => passage.source === 'dense').length }),
  );
  return { mentions, seeds, candidates, rerank, passages };
}
