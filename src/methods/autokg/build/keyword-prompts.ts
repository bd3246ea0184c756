import type { PromptTemplate } from '../../../core/prompt-library.js';

/*
 * AutoKG's keyword prompts (Chen & Bertozzi, arXiv 2311.14740; wispcarey/AutoKG `autoKG_full.py`:
 * `summary_contents`, `core_text_filter`, `final_keywords_filter`; wispcarey/AutoKG `autoKG_full.py`), in
 * kgrag's wording. Kept: the numbered rules, the "'''"-fenced fragments separated by "*", the avoid list in
 * "<>", the two worked examples of the refinement prompt and the three final tasks. Changed: the final
 * passes take the word limit as a placeholder (the reference hard-coded "at most 3 words"), and the
 * fragments' fence is named for what it is (the reference said "triple backticks" and used quotes).
 */

const extract: PromptTemplate = {
  name: 'autokg-extract-keywords',
  description: 'AutoKG: keywords of one cluster of chunks. Placeholders: {main_topic}, {num_keywords}, {max_words}, {language}, {texts}, {avoid}',
  text: `You are an advanced AI assistant. You are given fragments of text, separated by "*" and enclosed in triple quotes ('''). Determine the core themes of the fragments and write them as keywords. DO NOT write complete sentences.

Rules:
1. The keywords relate to the main topic: {main_topic}.
2. Write at most {num_keywords} keywords.
3. Each keyword has at most {max_words} words.
4. Avoid the keywords that have already appeared; they are listed inside <> below.
5. Write the keywords in {language}.
6. Separate the keywords with commas.
7. Write no other symbols.

Information: '''
{texts}'''

Please avoid the following already appeared theme terms: <{avoid}>

Your response:`,
};

const refine: PromptTemplate = {
  name: 'autokg-refine-keywords',
  description: 'AutoKG: cleans a comma-separated keyword list (per cluster, then over all clusters). Placeholders: {main_topic}, {max_words}, {keywords}',
  text: `You will be given a list of keywords. Process it by these rules:
1. Keep only keywords related to the main topic: {main_topic}.
2. Remove duplicates and keywords that mean the same as another keyword.
3. Each keyword has at most {max_words} words.
4. Separate the keywords with commas and write no other symbols.

Example 1:
Input: Mineral processing EPC, Mineral processing, EPC Mineral processing, Mineral processing engineering, Mineral processing plant design, Gold processing plant, Ore beneficiation.
Output: Mineral processing EPC, Mineral processing engineering, Plant design, Gold processing plant, Ore beneficiation

Example 2:
Input: 1. Recycling of plastics 2. plastic recycling 3. Waste management; 4. waste-management policy
Output: Plastic recycling, Waste management, Waste management policy

Input: {keywords}
Output:`,
};

const finalHeader = `You will be given a list of keywords separated by commas. Process the list as the task below says and reply with the processed list in the same comma-separated format, with no other text. Each keyword has at most {max_words} words.`;

const finalMerge: PromptTemplate = {
  name: 'autokg-final-merge',
  description: 'AutoKG final pass 1: merge near-synonyms and drop duplicates. Placeholders: {max_words}, {keywords}',
  text: `${finalHeader}

Task: Concentration and Deduplication. Merge keywords that mean nearly the same into one core term (for example "Styrofoam recycling", "recycling of Styrofoam" and "Styrofoam reuse" become "Styrofoam recycling") and remove duplicates.

Keywords: {keywords}

Processed keywords:`,
};

const finalSplit: PromptTemplate = {
  name: 'autokg-final-split',
  description: 'AutoKG final pass 2: split entity + concept keywords. Placeholders: {max_words}, {keywords}',
  text: `${finalHeader}

Task: Splitting. Split a keyword that joins an entity and a concept into the two (for example "Apple recycling" becomes "Apple", "recycling"), then remove duplicates.

Keywords: {keywords}

Processed keywords:`,
};

const finalDelete: PromptTemplate = {
  name: 'autokg-final-delete',
  description: 'AutoKG final pass 3: delete vague or over-broad keywords. Placeholders: {max_words}, {keywords}',
  text: `${finalHeader}

Task: Deletion. Delete vague or over-broad keywords such as "things", "stuff" or "technology"; keep the rest unchanged.

Keywords: {keywords}

Processed keywords:`,
};

/** The prompts of AutoKG keyword extraction, in the order they are used. */
export const autoKgKeywordPrompts = { extract, refine, finalMerge, finalSplit, finalDelete } as const;

/** Every AutoKG keyword prompt, for fingerprints and `kgrag init`. */
export const autoKgKeywordTemplates: readonly PromptTemplate[] = [extract, refine, finalMerge, finalSplit, finalDelete];
