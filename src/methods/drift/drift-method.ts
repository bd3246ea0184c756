import { packTable, tableCell } from '../../answer/pack-table.js';
import { buildLocalContext } from '../local/build-local-context.js';
import { localSubgraph } from '../local/local-method.js';
import type { MethodAnswer, QueryMethod, Retrieval } from '../query-method.js';
import { requireLlm } from '../require-llm.js';
import { driftLocalOptions, driftParams, type DriftParams } from './drift-params.js';
import { runDrift } from './run-drift.js';
import { topReports } from './top-reports.js';

/** The context shown by `--context-only` for each retrieval: what DRIFT would start from, without an LLM. */
const previews = new WeakMap<Retrieval, { text: string; tokens: number }>();

/**
 * `drift`: GraphRAG DRIFT search (reference/msgraphrag.md §3.5). Needs an LLM to answer; its retrieval
 * (for evaluation and `--context-only`) needs none: the reports nearest to the question itself and a local
 * search of the question with DRIFT's follow-up settings.
 */
export const driftMethod: QueryMethod<DriftParams> = {
  name: 'drift',
  description: 'GraphRAG DRIFT search: report-primed answer refined by rounds of follow-up local searches (needs an LLM)',
  variants: [],
  params: driftParams,
  topKParam: 'localSearchTopKMappedEntities',
  requires: ['chunk', 'communities', 'reports', 'embed-entities', 'embed-reports'],

  async retrieve(context, question, params): Promise<Retrieval> {
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
    const retrieval: Retrieval = {
      chunks: local.chunks,
      entities: local.entities,
      relations: local.relations,
      communities: reports.flatMap((hit) => rows.get(hit.report.communityId) ?? []),
      subgraph,
    };
    const primer = packTable(
      'Reports',
      'id|title|content',
      reports.map(({ report }) => ({ row: `${report.hid ?? 0}|${tableCell(report.title)}|${tableCell(report.fullContent)}`, item: report })),
      context.tokenizer,
      context.config.query.maxContextTokens,
    );
    const text = [primer.text, local.text].filter((part) => part.length > 0).join('\n\n');
    previews.set(retrieval, { text, tokens: context.tokenizer.count(text) });
    return retrieval;
  },

  async answer(context, question, retrieval, params, options): Promise<MethodAnswer> {
    if (options.contextOnly) {
      const preview = previews.get(retrieval) ?? { text: '', tokens: 0 };
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
