import type { CitableRecord } from '../../answer/generate-answer.js';
import { generateAnswer } from '../../answer/generate-answer.js';
import { packTable } from '../../answer/pack-table.js';
import type { CommunityRecord } from '../../core/types.js';
import { methodSpecificationVersion, type MethodAnswer, type MethodContext, type QueryMethod, type QuerySubgraph, type Retrieval } from '../query-method.js';
import { buildReportBatches, prepareReportRows, reportsTableHeader, reportsTableTitle, weightReports, type PreparedRow, type ReportBatches } from './build-report-batches.js';
import { createCallMeter, type CallMeter } from '../shared/call-meter.js';
import { contextOnlyUnsupported } from '../shared/context-only-unsupported.js';
import { extractiveGlobalAnswer } from './extractive-global-answer.js';
import { globalKnowledgePrompt, globalReduceSystemPrompt, renderGlobalReducePrompt } from './global-reduce-prompt.js';
import { chunkVectors, fullOccurrences, globalIndex, reportVectors, similarityTo, staticSelection, type GlobalReport } from './global-lookups.js';
import { globalMapSystemPrompt, renderGlobalMapPrompt } from './global-map-prompt.js';
import { globalConfig, type GlobalConfig } from './config.js';
import { globalRateSystemPrompt, renderGlobalRatePrompt } from './global-rate-prompt.js';
import { mapReportBatches } from './map-report-batches.js';
import { packAnalystPoints } from './pack-analyst-points.js';
import { selectCommunitiesDynamically, type DynamicSelection } from './select-communities-dynamically.js';

/** GraphRAG's canned reply when no analyst found anything relevant (`NO_DATA_ANSWER`), made without a call. */
export const noDataAnswer = 'I am sorry but I am unable to answer this question given the provided data.';

/** Retrieval passages are taken from the best communities until they hold this many times `k` chunks. */
const chunkPoolFactor = 5;

/** What a retrieval chose, kept so that answering neither re-selects nor re-rates. */
interface GlobalSelection {
  dynamic: boolean;
  /** Memo key of a static selection (its rows and sentences are prepared once per index); none for dynamic ones. */
  staticKey: string | undefined;
  reports: GlobalReport[];
  occurrences: ReadonlyMap<string, number>;
  /** Community id → similarity of its report to the question. */
  similarity: ReadonlyMap<string, number>;
  /** The meter that counted the rating calls; the answer's calls are added to it. */
  meter: CallMeter | undefined;
}

/** Whether the query asks for dynamic selection: the `dynamic` variant or the GraphRAG flag. */
function isDynamic(params: GlobalConfig, variant: string | undefined): boolean {
  return variant === 'dynamic' || params.dynamicCommunitySelection;
}

/** The explorer's view of a dynamic selection: the question, every rated report (score = rating) and the descent. */
function ratingSubgraph(selection: DynamicSelection, communityOf: ReadonlyMap<string, CommunityRecord>, titleOf: (id: string) => string): QuerySubgraph {
  const nodes: QuerySubgraph['nodes'] = [{ id: 'query', label: 'question', kind: 'query' }];
  const edges: QuerySubgraph['edges'] = [];
  const rated = new Set(selection.ratings.map((rating) => rating.communityId));
  const chosen = new Set(selection.reports.map((report) => report.communityId));
  for (const rating of selection.ratings) {
    nodes.push({ id: rating.communityId, label: titleOf(rating.communityId), kind: chosen.has(rating.communityId) ? 'community' : 'community-rated', score: rating.rating });
    const parent = communityOf.get(rating.communityId)?.parent;
    if (parent && rated.has(parent)) edges.push({ source: parent, target: rating.communityId, kind: 'child', weight: rating.rating });
    else edges.push({ source: 'query', target: rating.communityId, kind: 'rated', weight: rating.rating });
  }
  return { nodes, edges };
}

/** Chooses the reports (statically by roll-up, or by LLM ratings), for retrieval and answering alike. */
async function select(
  context: MethodContext,
  question: string,
  params: GlobalConfig,
  dynamic: boolean,
): Promise<{ selection: Omit<GlobalSelection, 'similarity'>; dynamicSelection?: DynamicSelection }> {
  const index = await globalIndex(context);
  const { llm } = context;
  if (dynamic && llm) {
    const meter = createCallMeter(llm);
    const rateText = context.prompts.text(globalRateSystemPrompt);
    const dynamicSelection = await context.trace.time(
      'global-rate',
      () =>
        selectCommunitiesDynamically({
          model: meter.model('global-rate'),
          index,
          question,
          systemPrompt: (report) => renderGlobalRatePrompt(rateText, question, report),
          threshold: params.dynamicSearchThreshold,
          keepParent: params.dynamicSearchKeepParent,
          numRepeats: params.dynamicSearchNumRepeats,
          useSummary: params.dynamicSearchUseSummary,
          maxLevel: params.dynamicSearchMaxLevel,
          minCommunityRank: params.minCommunityRank,
          concurrency: params.concurrency,
          ...(context.signal === undefined ? {} : { abortSignal: context.signal }),
        }),
      (result) => ({
        rated: result.ratings.length,
        relevant: result.reports.length,
        defaulted: result.ratings.filter((rating) => rating.defaulted).length,
        fallbackLevels: result.fallbackLevels,
        calls: meter.calls,
      }),
    );
    return {
      selection: { dynamic: true, staticKey: undefined, reports: dynamicSelection.reports, occurrences: await fullOccurrences(context), meter },
      dynamicSelection,
    };
  }
  const staticKey = `${params.communityLevel}:${params.minCommunityRank}`;
  if (dynamic) context.warn(`global:dynamic needs an LLM to rate the community reports and none is configured: the static selection of level ${params.communityLevel} was used`);
  const chosen = await context.trace.time(
    'global-select',
    async () => {
      const rolledUp = await staticSelection(context, params.communityLevel);
      return { ...rolledUp, reports: rolledUp.reports.filter((report) => report.rating >= params.minCommunityRank) };
    },
    (result) => ({
      level: params.communityLevel,
      reports: result.reports.length,
      // Rating needs an LLM; without one the dynamic variant falls back to the roll-up of communityLevel.
      ...(dynamic ? { dynamicFallback: 'no LLM configured: static selection used', rated: 0 } : {}),
    }),
  );
  return { selection: { dynamic: false, staticKey, reports: chosen.reports, occurrences: chosen.occurrences, meter: undefined } };
}

/** The rows of the selection's reports, formatted and counted once per index for static selections. */
function selectionRows(context: MethodContext, selection: GlobalSelection): Promise<PreparedRow[]> {
  const build = async (): Promise<PreparedRow[]> => prepareReportRows(weightReports(selection.reports, selection.occurrences), context.tokenizer);
  return selection.staticKey === undefined ? build() : context.memo(`global:rows:${selection.staticKey}`, build);
}

/**
 * `global`: GraphRAG global search (microsoft/graphrag `query/indexer_adapters.py`, `query/structured_search/global_search/search.py`, `query/context_builder/dynamic_community_selection.py`). The reports of the selected communities
 * are shuffled (seed 86) into Reports tables of at most `maxContextTokens`; one JSON map call per table lists
 * scored key points; the points, best first, within `dataMaxTokens`, feed one streamed reduce call that cites
 * `[Data: Reports (ids)]`. Selection is GraphRAG's roll-up at `communityLevel` (variant `static`, the default),
 * or LLM ratings descending from level 0 (variant `dynamic`, or `dynamicCommunitySelection: true`; without an
 * LLM it falls back to the roll-up). Without an LLM the answer quotes the most relevant, diverse report findings.
 *
 * Retrieval, for evaluation: `communities` are the selected ones, by their report's embedding similarity to the
 * question (ties: higher rating, then table order); `chunks` are the `k` passages most similar to the question
 * (chunk embeddings) among those of the best-ranked communities, taken in rank order until they hold at least
 * 5·k distinct passages — cheap (no LLM, vectors loaded once per index) and anchored in what the map would read.
 */
export const globalMethod: QueryMethod<GlobalConfig, GlobalSelection> = {
  specificationVersion: methodSpecificationVersion,
  name: 'global',
  description: 'GraphRAG global search: map-reduce over community reports (static roll-up or dynamic LLM-rated selection)',
  variants: ['static', 'dynamic'],
  config: globalConfig,
  // Global search answers from community reports; its passages for evaluation stand in for them.
  ranking: { kind: 'proxy', note: 'passages of the communities whose reports are most similar to the question; global answers from the reports' },
  prompts: [globalMapSystemPrompt, globalReduceSystemPrompt, globalKnowledgePrompt, globalRateSystemPrompt],
  requires: ['chunk', 'embed-chunks', 'communities', 'reports', 'embed-reports'],

  async retrieve(context, question, params, variant): Promise<Retrieval<GlobalSelection>> {
    const dynamic = isDynamic(params, variant);
    if (dynamic && context.contextOnly && context.llm) {
      throw contextOnlyUnsupported('global:dynamic', 'it chooses the reports by LLM relevance ratings', 'use global:static --context-only to see the roll-up of a level');
    }
    const { selection, dynamicSelection } = await select(context, question, params, dynamic);
    const index = await globalIndex(context);
    const ranked = await context.trace.time(
      'global-rank',
      async () => {
        const [questionVector, reports, chunks] = await Promise.all([context.embedQuery(question), reportVectors(context), chunkVectors(context)]);
        const similarity = new Map(selection.reports.map((report) => [report.communityId, similarityTo(reports, report.communityId, questionVector) ?? 0]));
        const order = selection.reports
          .map((report, position) => ({ report, position, score: similarity.get(report.communityId) ?? 0 }))
          .sort((left, right) => right.score - left.score || right.report.rating - left.report.rating || left.position - right.position);
        const pool = new Set<string>();
        for (const { report } of order) {
          if (pool.size >= chunkPoolFactor * params.k) break;
          for (const chunkId of index.communityOf.get(report.communityId)?.chunkIds ?? []) pool.add(chunkId);
        }
        const hits = [...pool]
          .map((id, position) => ({ id, position, score: similarityTo(chunks, id, questionVector) ?? Number.NEGATIVE_INFINITY }))
          .filter((hit) => hit.score > Number.NEGATIVE_INFINITY)
          .sort((left, right) => right.score - left.score || left.position - right.position)
          .slice(0, params.k)
          .map(({ id, score }) => ({ id, score, scores: { dense: score } }));
        return { similarity, order, hits };
      },
      (result) => ({ communities: result.order.length, passages: result.hits.length }),
    );
    const retrieval: Retrieval<GlobalSelection> = {
      chunks: await context.chunks(ranked.hits),
      communities: ranked.order.flatMap(({ report }) => {
        const community = index.communityOf.get(report.communityId);
        return community ? [community] : [];
      }),
      // Answering reuses the selection: it neither re-selects nor re-rates.
      state: { ...selection, similarity: ranked.similarity },
    };
    if (dynamicSelection) {
      retrieval.subgraph = ratingSubgraph(dynamicSelection, index.communityOf, (id) => index.reportOf.get(id)?.title ?? id);
    }
    if (dynamic && !selection.dynamic) {
      retrieval.ranking = { kind: 'fallback', note: 'no LLM: the static roll-up of communityLevel instead of LLM-rated selection' };
    }
    return retrieval;
  },

  async answer(context, question, retrieval, params, options): Promise<MethodAnswer> {
    const selection = retrieval.state;
    const { llm, tokenizer } = context;
    const meter = selection.meter ?? (llm ? createCallMeter(llm) : undefined);
    const spent = (): Pick<MethodAnswer, 'usage' | 'llmCalls'> => ({
      usage: meter?.usage ?? { inputTokens: 0, outputTokens: 0 },
      llmCalls: meter?.paidCalls ?? 0,
    });

    if (!llm && !options.contextOnly) {
      const selected = selection;
      const extractive = await context.trace.time(
        'extractive-answer',
        () =>
          extractiveGlobalAnswer(context, question, {
            selectionKey: selected.staticKey,
            reports: selected.reports,
            reportSimilarity: selected.similarity,
            reportWeight: new Map(weightReports(selected.reports, selected.occurrences).map((item) => [item.report.communityId, item.weight])),
          }),
        (result) => ({ points: result.citations.length }),
      );
      // The context of a quoted answer is the table of the reports it quotes, not every map batch.
      const quoted = new Set(extractive.citations.map((citation) => citation.id));
      const rows = prepareReportRows(
        weightReports(selected.reports, selected.occurrences).filter((item) => quoted.has(item.report.communityId)),
        tokenizer,
      );
      const table = packTable(reportsTableTitle, reportsTableHeader, rows, tokenizer, params.maxContextTokens);
      return { ...extractive, contextText: table.text, contextTokens: table.tokens, ...spent(), unknownReferences: 0 };
    }

    const rows = await selectionRows(context, selection);
    const pack = async (): Promise<ReportBatches> => buildReportBatches(rows, tokenizer, params.maxContextTokens, params.shuffleSeed);
    const packed: ReportBatches = await context.trace.time(
      'global-batches',
      // The batches of a static selection depend only on the index, the budget and the seed.
      () => (selection.staticKey === undefined ? pack() : context.memo(`global:batches:${selection.staticKey}:${params.maxContextTokens}:${params.shuffleSeed}`, pack)),
      (result) => ({
        reports: rows.length,
        batches: result.batches.length,
        tokens: result.batches.map((batch) => batch.tokens),
        truncatedRows: result.truncated,
      }),
    );
    const contextText = packed.batches.map((batch) => batch.text).join('\n\n');
    const contextTokens = packed.batches.reduce((sum, batch) => sum + batch.tokens, 0);
    if (options.contextOnly || !llm || !meter) {
      return { answer: { text: '', kind: 'none' }, citations: [], contextText, contextTokens, ...spent(), unknownReferences: 0 };
    }

    const mapText = context.prompts.text(globalMapSystemPrompt);
    const mapped = await context.trace.time(
      'global-map',
      () =>
        mapReportBatches({
          model: meter.model('global-map'),
          question,
          batches: packed.batches,
          systemPrompt: (batch) => renderGlobalMapPrompt(mapText, batch.text, params.mapMaxLength),
          concurrency: params.concurrency,
          ...(context.signal === undefined ? {} : { abortSignal: context.signal }),
        }),
      (result) => ({ batches: packed.batches.length, points: result.points.length, unusable: result.unusable }),
    );
    const points = await context.trace.time(
      'global-points',
      async () => packAnalystPoints(mapped.points, tokenizer, params.dataMaxTokens),
      (result) => ({ points: mapped.points.length, relevant: result.relevant, packed: result.included.length, tokens: result.tokens }),
    );
    if (points.included.length === 0 && !params.allowGeneralKnowledge) {
      // Made without a reduce call, but a streaming caller still receives it as the answer's text.
      options.onText?.(noDataAnswer);
      return { answer: { text: noDataAnswer, kind: 'generated' }, citations: [], contextText, contextTokens, ...spent(), unknownReferences: 0 };
    }

    const citable = new Map<number, CitableRecord>(
      selection.reports.map((report) => [report.hid, { id: report.communityId, title: report.title, source: 'community' }]),
    );
    const reduceText = renderGlobalReducePrompt(
      context.prompts.text(globalReduceSystemPrompt),
      points.text,
      context.config.query.responseType,
      params.reduceMaxLength,
      params.allowGeneralKnowledge ? context.prompts.text(globalKnowledgePrompt) : undefined,
    );
    const generated = await context.trace.time('global-reduce', () =>
      generateAnswer({
        model: meter.model('global-reduce'),
        systemPrompt: reduceText,
        question,
        history: context.history,
        citable: { Reports: citable },
        ...(options.onText === undefined ? {} : { onText: options.onText }),
        ...(context.signal === undefined ? {} : { abortSignal: context.signal }),
      }),
    );
    return { answer: generated.answer, citations: generated.citations, contextText, contextTokens, ...spent(), unknownReferences: generated.unknownReferences };
  },
};
