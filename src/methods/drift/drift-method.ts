import { packTable, tableCell } from '../../answer/pack-table.js';
import { buildLocalContext, localSubgraph } from '../local/index.js';
import { prefetchQuestionNounPhrases } from '../shared/question-noun-phrases.js';
import { methodSpecificationVersion, type MethodAnswer, type QueryMethod, type Retrieval } from '../query-method.js';
import { requireLlm } from '../shared/require-llm.js';
import { driftLocalOptions, driftConfig, type DriftConfig } from './config.js';
import { driftPrompts } from './drift-prompts.js';
import { runDrift } from './run-drift.js';
import { topReports } from './top-reports.js';

/** What DRIFT starts from, without an LLM: the context `--context-only` shows. */
interface DriftPreview {
  text: string;
  tokens: number;
}

/**
 * `drift`: GraphRAG DRIFT search (microsoft/graphrag `query/structured_search/drift_search/`). Needs an LLM to answer; its retrieval
 * (for evaluation and `--context-only`) needs none: the reports nearest to the question itself and a local
 * search of the question with DRIFT's follow-up settings.
 */
export const driftMethod: QueryMethod<DriftConfig, DriftPreview> = {
  specificationVersion: methodSpecificationVersion,
  name: 'drift',
  description: 'GraphRAG DRIFT search: report-primed answer refined by rounds of follow-up local searches (needs an LLM)',
  variants: [],
  config: driftConfig,
  // DRIFT answers from a primer over reports and rounds of follow-up local searches; its passages for
  // evaluation are a local search of the question itself.
  ranking: { kind: 'proxy', note: 'passages of a local search of the question; DRIFT answers from reports and follow-up searches' },
  // The entities the question names are found by the noun-phrase extractor (`namedEntities`): load it meanwhile.
  prepare: (question) => prefetchQuestionNounPhrases(question),
  needsLlm: true,
  prompts: [driftPrompts.hyde, driftPrompts.primer, driftPrompts.local, driftPrompts.reduce],
  topKParam: 'localSearchTopKMappedEntities',
  requires: ['chunk', 'communities', 'reports', 'embed-entities', 'embed-reports'],

  async retrieve(context, question, params): Promise<Retrieval<DriftPreview>> {
    const [reports, local] = await Promise.all([
      context.embedQuery(question).then((vector) => topReports(context, vector, params.driftKFollowups, params.communityLevel)),
      buildLocalContext(context, question, driftLocalOptions(params)),
    ]);
    const rows = new Map((await context.store.table('communities').get(reports.map((hit) => hit.report.communityId))).map((community) => [community.id, community]));
    const subgraph = localSubgraph(question, local);
    for (const { report, score } of reports) {
      subgraph.nodes.push({ id: report.communityId, label: report.title, kind: 'community', score });
      subgraph.edges.push({ source: 'query', target: report.communityId, kind: 'match', weight: score });
    }
    const primer = packTable(
      'Reports',
      'id|title|content',
      reports.map(({ report }) => ({ row: `${report.hid ?? 0}|${tableCell(report.title)}|${tableCell(report.fullContent)}`, item: report })),
      context.tokenizer,
      context.config.query.maxContextTokens,
    );
    const text = [primer.text, local.text].filter((part) => part.length > 0).join('\n\n');
    return {
      chunks: local.chunks,
      entities: local.entities,
      relations: local.relations,
      communities: reports.flatMap((hit) => rows.get(hit.report.communityId) ?? []),
      subgraph,
      state: { text, tokens: context.tokenizer.count(text) },
    };
  },

  async answer(context, question, retrieval, params, options): Promise<MethodAnswer> {
    if (options.contextOnly) {
      const preview = retrieval.state;
      return { answer: { text: '', kind: 'none' }, citations: [], contextText: preview.text, contextTokens: preview.tokens, usage: { inputTokens: 0, outputTokens: 0 }, llmCalls: 0, unknownReferences: 0 };
    }
    const llm = requireLlm(context, 'the drift method needs an LLM to answer', 'use --method local / basic, or --context-only');
    const drift = await runDrift(context, question, params, { llm, ...(options.onText === undefined ? {} : { onText: options.onText }) });
    return {
      answer: drift.generated.answer,
      citations: drift.generated.citations,
      contextText: drift.contextText,
      contextTokens: drift.contextTokens,
      usage: drift.usage,
      llmCalls: drift.llmCalls,
      unknownReferences: drift.generated.unknownReferences,
    };
  },
};
