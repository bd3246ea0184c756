import { z } from 'zod';

const decimal = String.raw`(\d+(?:\.\d+)?|\.\d+)`;
const plainNumber = new RegExp(`^[-+]?${decimal}$`);
const fraction = new RegExp(`^${decimal}\\s*(?:/|out of|of)\\s*${decimal}$`, 'i');
const percent = new RegExp(`^${decimal}\\s*%$`);

/**
 * The number a model meant by a score on a 0–`max` scale, or the value unchanged when it is not one (so that
 * validation fails and the structured-output repair turn asks again): a number; a numeric string (`"85"`);
 * a fraction of another scale (`"8/10"`, `"85 out of 100"`); a percentage (`"85%"`). A non-integer between
 * 0 and 1 is read as a fraction of the scale (0.85 → 85 of 100), since the prompts ask for integers from 0
 * to `max` and models used to 0–1 confidences send those. The result is clamped to the scale.
 */
function coerceScore(value: unknown, max: number): unknown {
  let score: number | undefined;
  if (typeof value === 'number') {
    score = value > 0 && value < 1 && !Number.isInteger(value) ? value * max : value;
  } else if (typeof value === 'string') {
    const text = value.trim().replace(/^["']|["']$/g, '');
    const ratio = fraction.exec(text);
    const share = percent.exec(text);
    if (plainNumber.test(text)) return coerceScore(Number(text), max);
    if (ratio !== null && Number(ratio[2]) > 0) score = (Number(ratio[1]) / Number(ratio[2])) * max;
    else if (share !== null) score = (Number(share[1]) / 100) * max;
  }
  if (score === undefined || !Number.isFinite(score)) return value;
  return Math.min(max, Math.max(0, score));
}

/**
 * A score from 0 to `max` in a structured reply: sent to the model as JSON Schema `{ type: number, minimum:
 * 0, maximum: max }`, and accepting what a reasonable model sends instead of a plain number (see
 * `coerceScore`: `"85"`, `"85/100"`, `"85%"`, 0.85), so that one stringly score does not cost a repair turn
 * or the whole answer.
 */
export function modelScore(max = 100, description?: string) {
  const schema = z.preprocess((value) => coerceScore(value, max), z.number().min(0).max(max));
  return description === undefined ? schema : schema.describe(description);
}
