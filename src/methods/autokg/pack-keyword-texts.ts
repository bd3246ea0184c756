import type { Tokenizer } from '../../text/tokenizer.js';

/** Texts chosen for the answer prompt. */
export interface PackedTexts {
  /** Indices of the texts that fit, in their order. */
  included: number[];
  /** Indices of the texts skipped because they did not fit. */
  skipped: number[];
  /** Tokens used: the fixed part plus every included text and its `"\n* "` bullet. */
  tokens: number;
}

/** The bullet each text is written after in the prompt, counted per text as the reference does. */
export const textBullet = '\n* ';

/**
 * AutoKG's adaptive token limit (`completion_from_record`, wispcarey/AutoKG `autoKG_full.py`), fixed: texts are
 * taken in search order while `fixedTokens` plus each text's tokens and its bullet's stay within `budget`; a
 * text that would overflow is skipped and the later, smaller ones are still tried (the reference stopped at
 * the first overflow).
 */
export function packKeywordTexts(texts: readonly string[], tokenizer: Tokenizer, budget: number, fixedTokens: number): PackedTexts {
  const bulletTokens = tokenizer.count(textBullet);
  const packed: PackedTexts = { included: [], skipped: [], tokens: fixedTokens };
  texts.forEach((text, index) => {
    const cost = tokenizer.count(text) + bulletTokens;
    if (packed.tokens + cost <= budget) {
      packed.included.push(index);
      packed.tokens += cost;
    } else {
      packed.skipped.push(index);
    }
  });
  return packed;
}
