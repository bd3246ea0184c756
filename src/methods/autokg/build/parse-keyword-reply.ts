import { trimKeyword } from './filter-keywords.js';

/*
 * Tolerant reading of a keyword list written by a model. AutoKG asks for comma-separated keywords and its
 * reference code split the reply on "," after stripping one trailing "." (wispcarey/AutoKG `autoKG_full.py`);
 * models also answer with numbered or bulleted lines, semicolons, a lead-in line ("Keywords:") or a
 * markdown fence, so those are accepted too. Nothing here throws: an unusable reply is an empty list.
 */

/** The keywords of one reply, trimmed, in the order written (duplicates kept; see filterKeywords). */
export function parseKeywordReply(reply: string): string[] {
  let text = reply.replace(/```[a-z]*\n?|```/gi, '\n');
  // A lead-in such as "Keywords:" or "Your response:" on the first line carries no keyword.
  text = text.replace(/^\s*(?:[\p{L} ]{0,40}):\s*\n/u, '').replace(/^\s*(?:keywords|your response|response|output|answer)\s*:\s*/iu, '');
  const parts = text.split(/[,;\n]|\s+\|\s+/u);
  const keywords: string[] = [];
  for (const part of parts) {
    const keyword = trimKeyword(part.replace(/^\s*(?:[-*•·]|\d+[.)])\s*/u, ''));
    if (keyword !== '') keywords.push(keyword);
  }
  return keywords;
}
