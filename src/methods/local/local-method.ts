import { answerFromContext } from '../answer-from-context.js';
import type { MethodAnswer, MethodContext, QueryMethod, QuerySubgraph, Retrieval } from '../query-method.js';
import { buildLocalContext, type LocalContext, type LocalContextOptions } from './build-local-context.js';
import { localAnswerSystemPrompt, renderLocalAnswerPrompt } from './local-answer-prompt.js';
import { localParams, type LocalParams } from './local-params.js';

/** The context each retrieval was built from, so that answering reuses it instead of rebuilding it. */
const contexts = new WeakMap<Retrieval, LocalContext>();

/** Resolves the parameters into builder options (the budget defaults to `query.maxContextTokens`). */
export function localContextOptions(context: MethodContext, params: LocalParams): LocalContextOptions {
  return { ...params, maxContextTokens: params.maxContextTokens ?? context.config.query.maxContextTokens };
}

/** The explorer's view of a local context: the question, the matched entities, their relationships and text units. */
export function localSubgraph(question: string, built: LocalContext): QuerySubgraph {
  const nodes: QuerySubgraph['nodes'] = [{ id: 'query', label: question, kind: 'query' }];
  const edges: QuerySubgraph['edges'] = [];
  const present = new Set<string>();
  for (const { entity, score } of built.selected) {
    nodes.push({ id: entity.id, label: entity.title, kind: 'entity', score });
    edges.push({ source: 'query', target: entity.id, kind: 'match', weight: score });
    present.add(entity.id);
  }
  for (const relation of built.relations) {
    for (const endpoint of [relation.source, relation.target]) {
      if (present.has(endpoint)) continue;
      present.add(endpoint);
      nodes.push({ id: endpoint, label: built.endpointTitles.get(endpoint) ?? endpoint, kind: 'entity' });
    }
    edges.push({ source: relation.source, target: relation.target, kind: 'relation', weight: relation.weight });
  }
  for (const chunk of built.chunks) {
    nodes.push({ id: chunk.id, label: chunk.documentTitle || chunk.id, kind: 'chunk', score: chunk.score });
    for (const { entity } of built.selected) if (entity.chunkIds.includes(chunk.id)) edges.push({ source: entity.id, target: chunk.id, kind: 'mention' });
  }
  return { nodes, edges };
}

/** Builds (or finds) the context of a retrieval. */
async function contextOf(context: MethodContext, question: string, retrieval: Retrieval, params: LocalParams): Promise<LocalContext> {
  return contexts.get(retrieval) ?? buildLocalContext(context, question, localContextOptions(context, params));
}

/**
 * `local`: GraphRAG local search (reference/msgraphrag.md §3.4). Entities matched to the question anchor a
 * context of their communities' reports, their descriptions, relationships and claims, and the text units
 * they come from; the LLM answers from it with `[Data: …]` citations.
 */
export const localMethod: QueryMethod<LocalParams> = {
  name: 'local',
  description: 'GraphRAG local search: entities matched to the question, with their reports, relationships, claims and text units',
  variants: [],
  params: localParams,
  topKParam: 'topKEntities',
  requires: ['chunk', 'communities', 'reports', 'embed-entities'],

  async retrieve(context, question, params): Promise<Retrieval> {
    const built = await buildLocalContext(context, question, localContextOptions(context, params));
    const rows = new Map((await context.store.table('communities').get(built.reports.map((report) => report.communityId))).map((community) => [community.id, community]));
    const communities = built.reports.flatMap((report) => rows.get(report.communityId) ?? []);
    const retrieval: Retrieval = {
      chunks: built.chunks,
      entities: built.entities,
      relations: built.relations,
      communities,
      subgraph: localSubgraph(question, built),
    };
    contexts.set(retrieval, built);
    return retrieval;
  },

  async answer(context, question, retrieval, params, options): Promise<MethodAnswer> {
    const built = await contextOf(context, question, retrieval, params);
    return answerFromContext(
      context,
      {
        question,
        contextText: built.text,
        contextTokens: built.tokens,
        passages: built.chunks,
        systemPrompt: renderLocalAnswerPrompt(context.prompts.text(localAnswerSystemPrompt), built.text, context.config.query.responseType),
        citable: built.citable,
      },
      options,
    );
  },
};
