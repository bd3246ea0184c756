import { contentId } from '../core/ids.js';

/**
 * HippoRAG's phrase normalization (`processing_phrases`): lower case, every character that is not a letter
 * or digit becomes a space, whitespace collapsed. Unicode-aware, so "Zürich" and "zurich" stay distinct names
 * while "U.S." and "u s" meet. Triple arguments, query entities and phrase nodes all go through it.
 */
export function normalizePhrase(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

/** The id of a normalized phrase (its `phrases` vector and graph node). */
export function phraseId(normalized: string): string {
  return contentId('phrase', normalized);
}
