import { builtMode } from '../../pipeline/built-methods.js';
import { answerFromContext } from '../shared/answer-from-context.js';
import { prefetchQuestionNounPhrases } from '../shared/question-noun-phrases.js';
import { methodSpecificationVersion, type MethodAnswer, type MethodContext, type QueryMethod, type Retrieval } from '../query-method.js';
import { buildLocalContext, type LocalContext, type LocalContextOptions } from './build-local-context.js';
import { localSubgraph } from './local-subgraph.js';
import { localAnswerSystemPrompt, renderLocalAnswerPrompt } from './local-answer-prompt.js';
import { localConfig, type LocalConfig } from './config.js';
import { writtenRecords } from './written-records.js';

/** Resolves the parameters into builder options (the budget defaults to `query.maxContextTokens`). */
export function localContextOptions(context: MethodContext, params: LocalConfig): LocalContextOptions {
  return { ...params, maxContextTokens: params.maxContextTokens ?? context.config.query.maxContextTokens };
}

/**
 * `local`: GraphRAG local search (microsoft/graphrag `query/structured_search/local_search/mixed_context.py`). Entities matched to the question anchor a
 * context of their communities' reports, their descriptions, relationships and claims, and the text units
 * they come from; the LLM answers from it with `[Data: …]` citations.
 */
export const localMethod: QueryMethod<LocalConfig, LocalContext> = {
  specificationVersion: methodSpecificationVersion,
  name: 'local',
  description: 'GraphRAG local search: entities matched to the question, with their reports, relationships, claims and text units',
  variants: [],
  config: localConfig,
  ranking: { kind: 'native' },
  // The entities the question names are found by the noun-phrase extractor (`namedEntities`): load it meanwhile.
  prepare: (question) => prefetchQuestionNounPhrases(question),
  prompts: [localAnswerSystemPrompt],
  topKParam: 'topKEntities',
  requires: ['chunk', 'communities', 'reports', 'embed-entities'],

  async retrieve(context, question, params): Promise<Retrieval<LocalContext>> {
    const built = await buildLocalContext(context, question, localContextOptions(context, params), { communities: true });
    return {
      chunks: built.chunks,
      entities: built.entities,
      relations: built.relations,
      communities: built.communities,
      subgraph: localSubgraph(question, built),
      // The answer is given from this very context instead of rebuilding it.
      state: built,
    };
  },

  async answer(context, question, retrieval, _params, options): Promise<MethodAnswer> {
    const built = retrieval.state;
    const records = context.llm === undefined && !options.contextOnly ? writtenRecords(built, (await context.memo('local:graph-mode', () => builtMode(context.store))) === 'standard') : [];
    return answerFromContext(
      context,
      {
        question,
        contextText: built.text,
        contextTokens: built.tokens,
        passages: built.chunks,
        systemPrompt: renderLocalAnswerPrompt(context.prompts.text(localAnswerSystemPrompt), built.text, context.config.query.responseType),
        citable: built.citable,
        records,
      },
      options,
    );
  },
};
