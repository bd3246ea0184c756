import { z } from 'zod';
import { builtInPrompts, fillPrompt } from '../../core/prompt-library.js';
import type { PromptLibrary } from '../../core/prompt-library.js';
import type { ReportFinding } from '../../core/types.js';
import { generateObject, responseJsonSchema } from '../../providers/llm/generate-object.js';
import type { ChatRequest, JsonResponseFormat, LanguageModel } from '../../providers/llm/language-model.js';
import { LlmCallError } from '../../providers/llm/llm-call-error.js';
import { parseJsonLoose } from '../../providers/llm/parse-json-loose.js';
import { communityReportPrompt, communityReportRepairPrompt } from './community-report-prompt.js';
import { reportMarkdown } from './extractive-report.js';

/** Options of {@link generateCommunityReport}. */
export interface GenerateCommunityReportOptions {
  /** The CSV context from `buildCommunityReportContext`. */
  context: string;
  /** Word limit asked of the model (config `reports.maxWords`, GraphRAG max_length: 2000). */
  maxWords: number;
  /** Workspace prompt overrides. @default the built-in prompts */
  prompts?: PromptLibrary;
  /** Content hashes of the chunk texts the context was built from, to tag the cached replies (`ChatRequest.sources`). */
  sources?: readonly string[];
  abortSignal?: AbortSignal;
}

/** A report as the model wrote it, normalized. */
export interface GeneratedCommunityReport {
  title: string;
  summary: string;
  /** 0–10 (GraphRAG `rank`). */
  rating: number;
  ratingExplanation: string;
  /** 1–10 findings. */
  findings: ReportFinding[];
  /** GraphRAG's markdown `full_content` (`reportMarkdown`). */
  fullContent: string;
}

/** The outcome of one community's report: a report, or why there is none. `attempts` counts model calls. */
export type CommunityReportOutcome = { ok: true; report: GeneratedCommunityReport; attempts: number } | { ok: false; error: string; attempts: number };

/** Most findings kept; the prompt asks for 5–10, extra ones are dropped rather than failing the report. */
const maxFindings = 10;

/**
 * The reply GraphRAG's `CommunityReportResponse` describes, read leniently: the rating may be a numeric
 * string, a finding may be a bare string, extra keys anywhere are dropped.
 */
export const communityReportSchema = z.object({
  title: z.string().trim().min(1),
  summary: z.string(),
  // A numeric string ("7.5") is read as its number; null, "" or "high" are errors the repair can fix.
  rating: z.preprocess((value) => (typeof value === 'string' && value.trim() !== '' ? Number(value) : value), z.number()),
  rating_explanation: z.string().default(''),
  findings: z.array(z.union([z.object({ summary: z.string(), explanation: z.string().default('') }), z.string()])).min(1),
});

type ReportReply = z.output<typeof communityReportSchema>;

/**
 * Writes one community report with the LLM (GraphRAG `create_community_reports`,
 * microsoft/graphrag `index/operations/summarize_communities/`; `purpose: 'community-report'`), from the prompt of `community-report-prompt.ts`.
 *
 * **Attempts.** `generateObject` makes the first call and, if its reply is not a valid report, one repair turn
 * in the same conversation (2 calls). If that also fails, exactly **one** more call is made — not another
 * `generateObject`, which could make two: a fresh request with the original prompt followed by a short note
 * listing the problems (`community-report-repair`). The fresh conversation keeps the model from copying its
 * broken reply, and the different text keeps the LLM cache from returning it. So at most 3 calls, and
 * `attempts` says how many were made. This is SPEC §4.3's "retried once with a repair prompt, then recorded as
 * failed": the first repair is structured output's own, the retry is the report's.
 *
 * **Failures.** A reply still invalid after the retry gives `{ ok: false, error }` with the problems (the
 * caller records it in `ReportRecord.error` and keeps an extractive report); GraphRAG logs and drops the
 * community (microsoft/graphrag#452, #604, #877). Provider errors — authentication, rate limits after the
 * retry wrapper gave up, aborts — are thrown: they are not the report's fault and must stop the step.
 *
 * The rating is clamped to 0–10, findings beyond ten dropped, bare-string findings become
 * `{ summary: <first sentence>, explanation: <text> }`, and `fullContent` is GraphRAG's markdown.
 */
export async function generateCommunityReport(model: LanguageModel, options: GenerateCommunityReportOptions): Promise<CommunityReportOutcome> {
  const prompts = options.prompts ?? builtInPrompts;
  const prompt = fillPrompt(prompts.text(communityReportPrompt), { input_text: options.context, max_report_length: String(options.maxWords) });
  const common: Pick<ChatRequest, 'purpose' | 'abortSignal' | 'sources'> = {
    purpose: 'community-report',
    ...(options.sources === undefined ? {} : { sources: options.sources }),
    ...(options.abortSignal ? { abortSignal: options.abortSignal } : {}),
  };

  let problems: string[];
  try {
    const reply = await generateObject({ model, messages: [{ role: 'user', content: prompt }], schema: communityReportSchema, schemaName: 'community_report', ...common });
    return { ok: true, report: normalize(reply.object), attempts: reply.attempts };
  } catch (error) {
    if (!LlmCallError.isInstance(error) || error.code !== 'LLM_INVALID_OUTPUT') throw error;
    const listed = error.details?.['problems'];
    problems = Array.isArray(listed) && listed.length > 0 ? listed.map(String) : [error.message];
  }

  const note = fillPrompt(prompts.text(communityReportRepairPrompt), { problems: problems.map((problem) => `- ${problem}`).join('\n') });
  const retry = await model.generate({ ...common, messages: [{ role: 'user', content: `${prompt}\n\n${note}` }], responseFormat: responseFormat() });
  const parsed = parseJsonLoose(retry.text);
  if (!parsed.ok) {
    const cut = retry.finishReason === 'length' ? ' (the reply hit the output token limit)' : '';
    return { ok: false, error: failure([`the reply is not valid JSON: ${parsed.error}${cut}`]), attempts: 3 };
  }
  const validated = communityReportSchema.safeParse(parsed.value);
  if (!validated.success) {
    return {
      ok: false,
      error: failure(validated.error.issues.map((issue) => `${issue.path.length === 0 ? '(root)' : issue.path.map(String).join('.')}: ${issue.message}`)),
      attempts: 3,
    };
  }
  return { ok: true, report: normalize(validated.data), attempts: 3 };
}

function failure(problems: readonly string[]): string {
  return `The model's community report did not match the report JSON after 3 attempts: ${problems.join('; ')}`;
}

/** The JSON Schema `generateObject` sends, for the retry that bypasses it. */
function responseFormat(): JsonResponseFormat {
  return { type: 'json', schema: responseJsonSchema(communityReportSchema), name: 'community_report' };
}

function normalize(reply: ReportReply): GeneratedCommunityReport {
  const findings = reply.findings
    .map((finding): ReportFinding => {
      if (typeof finding !== 'string') return { summary: finding.summary.trim(), explanation: finding.explanation.trim() };
      const text = finding.trim();
      const sentence = /^.{1,160}?[.!?](?=\s|$)/s.exec(text)?.[0] ?? text.slice(0, 160);
      return { summary: sentence.trim(), explanation: text };
    })
    .filter((finding) => finding.summary.length > 0 || finding.explanation.length > 0)
    .slice(0, maxFindings);
  const title = reply.title.trim();
  const summary = reply.summary.trim();
  const rating = Number.isFinite(reply.rating) ? Math.min(10, Math.max(0, reply.rating)) : 0;
  return { title, summary, rating, ratingExplanation: reply.rating_explanation.trim(), findings, fullContent: reportMarkdown(title, summary, findings) };
}
