/**
 * Python's `\w` (letters, digits, underscore) in runs of two or more: the runs `re.findall(r"(?u)\b\w\w+\b")`
 * returns, because `\b` on both sides forces a match to cover a whole run.
 */
const tokenPattern = /[\p{L}\p{N}_]{2,}/gu;

/**
 * The words scikit-learn's `TfidfVectorizer()` and `CountVectorizer()` see with their defaults: the text
 * lower-cased, then every run of at least two word characters (`token_pattern = r"(?u)\b\w\w+\b"`). No
 * stopwords, no stemming, no accent stripping, single words only (`ngram_range = (1, 1)`). KGP's TF-IDF
 * retrievers and its KG-TF-IDF traversal use exactly this vectorizer (YuWVandy/KG-LLM-MDQA `Pipeline/retriever.py`).
 */
export function sklearnWordTokens(text: string): string[] {
  return text.toLowerCase().match(tokenPattern) ?? [];
}
