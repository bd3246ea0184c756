import { z } from 'zod';
import type { CitedDataset } from '../../answer/answer-types.js';
import { generateAnswer, type CitableRecord, type GeneratedAnswer } from '../../answer/generate-answer.js';
import { packTable, tableCell } from '../../answer/pack-table.js';
import { fillPrompt } from '../../core/prompt-library.js';
import type { ReportRecord, TokenUsage } from '../../core/types.js';
import { generateObject } from '../../providers/llm/generate-object.js';
import { modelScore } from '../../providers/llm/model-score.js';
import type { LanguageModel } from '../../providers/llm/language-model.js';
import { LlmCallError } from '../../providers/llm/llm-call-error.js';
import { buildLocalContext } from '../local/index.js';
import type { MethodContext } from '../query-method.js';
import { driftLocalOptions, type DriftConfig } from './config.js';
import { driftPrompts } from './drift-prompts.js';
import { topReports } from './top-reports.js';

const score = modelScore(100, 'How well the answer serves the question, from 0 to 100');

const primerSchema = z.object({
  intermediate_answer: z.string(),
  score,
  follow_up_queries: z.array(z.string()),
});

const localSchema = z.object({
  response: z.string(),
  score,
  follow_up_queries: z.array(z.string()).default([]),
});

/** One node of the answer tree: a follow-up question, and its answer once it has one. */
export interface DriftAction {
  query: string;
  /** Score of the answer that proposed this question; orders the queue. */
  priority: number;
  /** Round it was answered in (1-based), or undefined while open. */
  round?: number;
  answer?: string;
  score?: number;
}

/** What a DRIFT search produced. */
export interface DriftResult {
  generated: GeneratedAnswer;
  /** The answer tree as given to the reduce call, and its size. */
  contextText: string;
  contextTokens: number;
  primer: { answers: string[]; score: number; reports: ReportRecord[] };
  actions: DriftAction[];
  usage: TokenUsage;
  llmCalls: number;
}

/** Options of {@link runDrift}. */
export interface RunDriftOptions {
  llm: LanguageModel;
  onText?: (delta: string) => void;
}

const normalize = (text: string): string => text.trim().replace(/\s+/g, ' ').toLowerCase();

/**
 * GraphRAG DRIFT search (microsoft/graphrag `query/structured_search/drift_search/`): a HyDE expansion, a primer over the top reports in
 * parallel folds, `nDepth` rounds of local searches on the open follow-ups, and a streamed reduce. Unlike
 * GraphRAG it is deterministic: the HyDE template is the report nearest to the question (not a random one),
 * and each round answers the open follow-ups with the best-scoring parents first, ties by text.
 */
export async function runDrift(context: MethodContext, question: string, params: DriftConfig, options: RunDriftOptions): Promise<DriftResult> {
  const { llm } = options;
  const { tokenizer, prompts, config } = context;
  const usage: TokenUsage = { inputTokens: 0, outputTokens: 0 };
  let llmCalls = 0;
  const account = (result: { usage: TokenUsage; cached?: boolean }, attempts = 1): void => {
    usage.inputTokens += result.usage.inputTokens;
    usage.outputTokens += result.usage.outputTokens;
    if (result.cached !== true) llmCalls += attempts;
  };
  const request = (purpose: string) => ({ purpose, priority: 'interactive' as const, temperature: 0, ...(context.signal === undefined ? {} : { abortSignal: context.signal }) });
  const citable: Partial<Record<CitedDataset, Map<number, CitableRecord>>> = {};
  const cite = (dataset: CitedDataset, entries: Iterable<[number, CitableRecord]>): void => {
    const map = citable[dataset] ?? new Map<number, CitableRecord>();
    for (const [hid, record] of entries) map.set(hid, record);
    citable[dataset] = map;
  };

  const unusable = { primer: 0, followUps: 0 };
  /**
   * One fold or follow-up the model cannot answer in JSON (after the repair turn) should not sink the whole
   * search: it counts as unusable, its two paid calls are still metered, and `fallback` stands for its reply.
   */
  const unlessUnusable = async <T>(part: keyof typeof unusable, call: () => Promise<T>, fallback: T): Promise<T> => {
    try {
      return await call();
    } catch (error) {
      if (!LlmCallError.isInstance(error) || error.code !== 'LLM_INVALID_OUTPUT') throw error;
      llmCalls += 2;
      unusable[part]++;
      return fallback;
    }
  };
  const [template] = await topReports(context, await context.embedQuery(question), 1, params.communityLevel);
  const hyde = await context.trace.time('drift-hyde', () =>
    llm.generate({
      ...request('drift-hyde'),
      messages: [{ role: 'user', content: fillPrompt(prompts.text(driftPrompts.hyde), { query: question, template: template?.report.fullContent ?? '' }) }],
    }),
  );
  account(hyde);
  const expanded = hyde.text.trim().length > 0 ? hyde.text : question;
  const reports = (await topReports(context, await context.embedQuery(expanded), params.driftKFollowups, params.communityLevel)).map((hit) => hit.report);
  cite('Reports', reports.map((report) => [report.hid ?? 0, { id: report.communityId, title: report.title, source: 'community' }]));

  // numpy.array_split: the first (n mod folds) folds get one report more.
  const folds: ReportRecord[][] = [];
  const foldCount = Math.min(params.primerFolds, reports.length);
  for (let fold = 0, start = 0; fold < foldCount; fold++) {
    const size = Math.floor(reports.length / foldCount) + (fold < reports.length % foldCount ? 1 : 0);
    folds.push(reports.slice(start, start + size));
    start += size;
  }
  const primed = await context.trace.time('drift-primer', () =>
    Promise.all(
      folds.map(async (fold) => {
        const table = packTable(
          'Reports',
          'id|title|content',
          fold.map((report) => ({ row: `${report.hid ?? 0}|${tableCell(report.title)}|${tableCell(report.fullContent)}`, item: report })),
          tokenizer,
          config.query.maxContextTokens,
        );
        return unlessUnusable(
          'primer',
          async () => {
            const reply = await generateObject({
              ...request('drift-primer'),
              model: llm,
              schema: primerSchema,
              schemaName: 'drift_primer',
              messages: [{ role: 'user', content: fillPrompt(prompts.text(driftPrompts.primer), { query: question, community_reports: table.text }) }],
            });
            account(reply.result, reply.attempts);
            return reply.object;
          },
          undefined,
        );
      }),
    ),
  ).then((replies) => replies.filter((reply) => reply !== undefined));
  const primerScore = primed.length === 0 ? 0 : primed.reduce((sum, reply) => sum + reply.score, 0) / primed.length;

  const actions: DriftAction[] = [];
  const known = new Set([normalize(question)]);
  const propose = (queries: readonly string[], priority: number): void => {
    for (const query of queries) {
      const key = normalize(query);
      if (key.length === 0 || known.has(key)) continue;
      known.add(key);
      actions.push({ query: query.trim(), priority });
    }
  };
  for (const reply of primed) propose(reply.follow_up_queries, primerScore);

  const localOptions = driftLocalOptions(params);
  for (let round = 1; round <= params.nDepth; round++) {
    const open = actions
      .filter((action) => action.round === undefined)
      .sort((left, right) => right.priority - left.priority || (left.query < right.query ? -1 : left.query > right.query ? 1 : 0))
      .slice(0, params.driftKFollowups);
    if (open.length === 0) break;
    // Contexts are built first and the calls made after, in queue order, so the call order never depends on
    // which context finished first.
    const locals = await Promise.all(open.map((action) => buildLocalContext(context, action.query, localOptions)));
    for (const local of locals) {
      for (const [dataset, records] of Object.entries(local.citable) as Array<[CitedDataset, Map<number, CitableRecord>]>) cite(dataset, records);
    }
    const replies = await context.trace.time(
      `drift-round-${round}`,
      () =>
        Promise.all(
          open.map(async (action, index) => {
            const local = locals[index];
            return unlessUnusable(
              'followUps',
              async () => {
                const reply = await generateObject({
                  ...request('drift-local'),
                  model: llm,
                  schema: localSchema,
                  schemaName: 'drift_local',
                  messages: [
                    {
                      role: 'system',
                      content: fillPrompt(prompts.text(driftPrompts.local), { global_query: question, context_data: local?.text ?? '', response_type: config.query.responseType }),
                    },
                    { role: 'user', content: action.query },
                  ],
                });
                account(reply.result, reply.attempts);
                return reply.object;
              },
              { response: '', score: 0, follow_up_queries: [] },
            );
          }),
        ),
      (answered) => ({ followUps: answered.length }),
    );
    // New follow-ups are queued in the round's (deterministic) order, not in completion order.
    replies.forEach((reply, index) => {
      const action = open[index] as DriftAction;
      action.round = round;
      action.answer = reply.response;
      action.score = reply.score;
      propose(reply.follow_up_queries, reply.score);
    });
  }

  if (unusable.primer + unusable.followUps > 0) {
    const parts = [
      ...(unusable.primer > 0 ? [`${unusable.primer} of ${folds.length} primer folds`] : []),
      ...(unusable.followUps > 0 ? [`${unusable.followUps} follow-up answers`] : []),
    ];
    context.warn(`drift: the model's replies to ${parts.join(' and ')} did not match the JSON schema even after a repair turn, so they were left out of the answer`);
  }
  const answered = actions.filter((action) => action.round !== undefined && (action.answer ?? '').trim().length > 0);
  const rows = [
    ...primed.map((reply) => ({ query: question, score: reply.score, answer: reply.intermediate_answer })),
    ...answered.map((action) => ({ query: action.query, score: action.score ?? 0, answer: action.answer ?? '' })),
  ]
    .map((row, index) => ({ ...row, index }))
    .sort((left, right) => right.score - left.score || left.index - right.index);
  const tree = packTable(
    'Intermediate Answers',
    'id|query|score|answer',
    rows.map((row, id) => ({ row: `${id + 1}|${tableCell(row.query)}|${row.score}|${tableCell(row.answer)}`, item: row })),
    tokenizer,
    params.dataMaxTokens,
  );
  const generated = await context.trace.time('drift-reduce', () =>
    generateAnswer({
      model: llm,
      systemPrompt: fillPrompt(prompts.text(driftPrompts.reduce), { response_type: config.query.responseType, context_data: tree.text }),
      question,
      history: context.history,
      citable,
      temperature: 0,
      ...(options.onText === undefined ? {} : { onText: options.onText }),
      ...(context.signal === undefined ? {} : { abortSignal: context.signal }),
    }),
  );
  account(generated);
  return {
    generated,
    contextText: tree.text,
    contextTokens: tree.tokens,
    primer: { answers: primed.map((reply) => reply.intermediate_answer), score: primerScore, reports },
    actions,
    usage,
    llmCalls,
  };
}
