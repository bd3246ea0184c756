import { fillPrompt } from '../../core/prompt-library.js';
import { renderFullPrompt } from './render-full-prompt.js';
import type { TraversalContext } from './traversal-context.js';
import { totPrompts } from './tot-prompts.js';
import type { TraversalState } from './traversal-state.js';

/** A value in [0, 1], the reply it came from, and why it is 0 when the reply had none. */
export interface Rating {
  value: number;
  reply: string;
  /** Set when no rating could be read; the value is then 0. */
  error?: string;
}

const number = String.raw`([-+]?(?:\d+(?:\.\d*)?|\.\d+))`;
/** `RATING: 0.8`, `Rating: 0.8`, `**RATING:** 0.8`, `RATING [0.1-1.0]: 0.8`, `RATING = 0.8`. */
const ratingLine = new RegExp(String.raw`^rating\s*(?:\[[^\]]*\]\s*)?[:=]\s*\[?\s*${number}`, 'i');
/** A line that is only a number (`0.8`, `0.8.`): what a completion after "RATING:" looks like. */
const bareNumberLine = new RegExp(String.raw`^${number}\.?$`);

const clamp = (value: number): number => Math.min(1, Math.max(0, value));

/**
 * Reads a value reply strictly: the last line of the form `RATING: <number>` (case-insensitive, Markdown
 * emphasis ignored), else a last line that is a bare number; clamped to [0, 1]. The reference took the
 * first `\d\.\d+` anywhere (`evaluate_state`), which for the answer prompt — reasoning first — is often a
 * number quoted in the reasoning ("0.7 for probably correct…"), not the score. Unreadable → 0, with the
 * reason kept for the trace.
 */
export function parseRating(reply: string): Rating {
  const lines = reply
    .split(/\r?\n/)
    .map((line) => line.replace(/[*_`]/g, '').trim())
    .filter((line) => line.length > 0);
  for (let index = lines.length - 1; index >= 0; index--) {
    const match = ratingLine.exec(lines[index] as string);
    if (match) return { value: clamp(Number(match[1])), reply };
  }
  const last = lines.at(-1);
  const bare = last === undefined ? null : bareNumberLine.exec(last);
  if (bare) return { value: clamp(Number(bare[1])), reply };
  return { value: 0, reply, error: reply.trim().length === 0 ? 'empty value reply' : 'no "RATING: <number>" line in the value reply' };
}

/** The answer text of an answered state: what follows `ANSWER:` on its last trajectory line. */
export function answerOf(state: TraversalState): string {
  const last = state.trajectory.at(-1) ?? '';
  return last.startsWith('ANSWER:') ? last.slice('ANSWER:'.length).trim() : last.trim();
}

/**
 * The value of a state (`evaluate_state`), at temperature 0: an answered state is scored by the answer
 * prompt (question, subgraph, answer — no trajectory), any other by the state prompt inside the full
 * prompt.
 */
export async function evaluateState(context: TraversalContext, state: TraversalState): Promise<Rating> {
  const answered = state.actionState === 'DONE';
  const prompt = answered
    ? fillPrompt(context.prompts.text(totPrompts.evaluateAnswer), { query: context.question, kg_state: state.kgText(), answer: answerOf(state) })
    : renderFullPrompt(context, state, context.prompts.text(totPrompts.evaluateState));
  const result = await context.model(answered ? 'tot-evaluate-answer' : 'tot-evaluate-state').generate({
    messages: [{ role: 'user', content: prompt }],
    temperature: 0,
    seed: context.seed,
    // Room for the answer prompt's reasoning; the state prompt asks for one line.
    maxOutputTokens: answered ? 512 : 64,
    ...(context.signal === undefined ? {} : { abortSignal: context.signal }),
  });
  return parseRating(result.text);
}
