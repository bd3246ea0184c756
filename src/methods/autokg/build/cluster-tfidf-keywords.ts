import { filterKeywords } from './filter-keywords.js';
import { phraseTableOf, type PhraseOccurrence, type PhraseTable } from './phrase-table.js';
import { positionsOf } from '../../../core/positions-of.js';

/*
 * LLM-free AutoKG keywords: the most distinctive noun phrases of every cluster by class-based TF-IDF
 * (c-TF-IDF, M. Grootendorst, "BERTopic: Neural topic modeling with a class-based TF-IDF procedure",
 * arXiv 2203.05794, 2022): a phrase t scores W(t, c) = tf(t, c) · log(1 + A / f(t)) in cluster c, where
 * tf(t, c) counts t's mentions in the cluster's chunks, f(t) its mentions in the whole corpus and A the
 * average number of mentions per cluster. It stands in for AutoKG's extraction prompt (which reads a
 * cluster and names its themes): a phrase frequent in the cluster and rare elsewhere is a theme of it.
 *
 * As with the prompt, a clustering's clusters are visited in order and a phrase already chosen for an
 * earlier cluster is skipped (the avoid list); the clusterings' lists are united and filtered exactly like
 * the LLM's (deduplicated, at most l2 words, substring filter). A phrase needs `minCount` mentions in the
 * cluster, so one stray mention never names a theme, and must recur in `minChunks` of its chunks, so one
 * chunk repeating a word does not make it the cluster's theme. Ties go to the phrase key in code-unit order.
 *
 * The prompt asks for keywords that name topics; a noun-phrase tagger also yields single words that do not.
 * A one-word phrase is a candidate only when it is a name: tagged proper, written capitalized, never written
 * in lower case anywhere in the corpus (else it is a common word at a sentence start or in a heading:
 * "Mother", "Square", "Inside"), at least three letters (not initials), and never the first word of a longer
 * proper name in the corpus (a bare first name, "Sam" of "Sam Marle", or a fragment the tagger split from a
 * name, "Chandler" of "Chandler Row"). Single words matter doubly because the substring filter keeps the
 * shorter keyword: a stray "Row" would delete every "… Row" street.
 *
 * After a small change of the corpus the clusters whose members did not change keep their keywords (`kept`), and
 * the others are chosen again with the corpus statistics of now; their avoid list is then every other cluster's
 * current keywords, not the earlier clusters' (the order of a chain means nothing once the earlier clusters are not
 * chosen again). The corpus statistics f(t) and A move with every change, so the kept clusters' keywords are not
 * what a fresh choice would give; the keywords step re-clusters (and chooses every cluster again) past
 * `methods.autokg.reclusterShare`.
 *
 * Defaults: l1 = 10 keywords per cluster, l2 = 3 words, minCount 2, minChunks 2.
 */

/** Options of {@link clusterTfidfKeywords}. */
export interface ClusterTfidfKeywordsOptions {
  /** l1: keywords per cluster. @default 10 */
  keywordsPerCluster?: number;
  /** l2: words per keyword at most. @default 3 */
  maxWords?: number;
  /** Mentions a phrase needs inside the cluster. @default 2 */
  minCount?: number;
  /** Chunks of the cluster a phrase must occur in. @default 2 */
  minChunks?: number;
  /**
   * The chunk texts, to tell names from common words: a single word written in lower case anywhere in
   * them is not a name. Without them single words are judged by the other tests only.
   */
  texts?: readonly string[];
}

/** One keyword chosen for a cluster: the phrase key and the form it is written in. */
export interface TfidfKeyword {
  key: string;
  surface: string;
}

/** A clustering of the chunks (`assignments[chunk]` = cluster) whose clusters get keywords. */
export interface TfidfClustering {
  assignments: Int32Array;
  clusters: number;
  /**
   * Keywords to keep, by cluster: a cluster with an entry keeps it and is not chosen again; the others avoid every
   * other cluster's keywords. Without it every cluster is chosen, in order, each avoiding the earlier ones'.
   */
  kept?: ReadonlyArray<readonly TfidfKeyword[] | undefined>;
}

/** Keywords of the chunks' clusters, and of the whole corpus. */
export interface ClusterTfidfKeywordsResult {
  /** Per clustering, per cluster: its keywords in rank order (kept ones as given). */
  byCluster: TfidfKeyword[][][];
  /** All clusters' keywords, united and filtered like the LLM's. */
  keywords: string[];
}

/**
 * Keywords from the noun phrases of every chunk (`phrases[chunk]`) and one or more clusterings of the
 * chunks (`assignments[chunk]` = cluster). Deterministic.
 */
export function clusterTfidfKeywords(phrases: ReadonlyArray<readonly PhraseOccurrence[]>, clusterings: readonly TfidfClustering[], options: ClusterTfidfKeywordsOptions = {}): string[] {
  return clusterTfidfKeywordsByCluster(phrases, clusterings, options).keywords;
}

/** {@link clusterTfidfKeywords} with every cluster's keywords, and clusters that keep theirs (`kept`). */
export function clusterTfidfKeywordsByCluster(phrases: ReadonlyArray<readonly PhraseOccurrence[]>, clusterings: readonly TfidfClustering[], options: ClusterTfidfKeywordsOptions = {}): ClusterTfidfKeywordsResult {
  return clusterTfidfKeywordsOfTable(phraseTableOf(phrases, options.texts), clusterings, options);
}

/**
 * {@link clusterTfidfKeywordsByCluster} over the chunks' interned phrases (`table`, rows in the order of the
 * clusterings' assignments); its lower-case words stand for `options.texts`, which it does not read.
 */
export function clusterTfidfKeywordsOfTable(table: PhraseTable, clusterings: readonly TfidfClustering[], options: Omit<ClusterTfidfKeywordsOptions, 'texts'> = {}): ClusterTfidfKeywordsResult {
  const keywordsPerCluster = options.keywordsPerCluster ?? 10;
  const maxWords = options.maxWords ?? 3;
  const minCount = options.minCount ?? 2;
  const minChunks = options.minChunks ?? 2;

  // Corpus frequencies, and how each phrase is written. Typed arrays over the interned ids: this runs on every update.
  const { keys, surfaces, mentionStart, mentionKey, mentionSurface, mentionProper } = table;
  const chunkCount = table.chunkIds.length;
  const corpusFrequency = new Float64Array(keys.length);
  const proper = new Uint8Array(keys.length);
  // Bit 1: seen capitalized; bit 2: seen in lower case (a property of the surface, tested once per surface).
  const written = new Uint8Array(keys.length);
  const capitalized = new Uint8Array(surfaces.length);
  for (let at = 0; at < mentionKey.length; at++) {
    const id = mentionKey[at] as number;
    const surface = mentionSurface[at] as number;
    corpusFrequency[id] = (corpusFrequency[id] as number) + 1;
    if (mentionProper[at] === 1) proper[id] = 1;
    if (capitalized[surface] === 0) capitalized[surface] = /^\p{Lu}/u.test(surfaces[surface] as string) ? 1 : 2;
    written[id] = (written[id] as number) | (capitalized[surface] as number);
  }
  const idOf = positionsOf(keys);
  const lowerWords = new Set(table.words);
  const nameStarts = new Set<string>();
  keys.forEach((key, id) => {
    const space = key.indexOf(' ');
    if (space > 0 && proper[id] === 1) nameStarts.add(key.slice(0, space));
  });
  const isName = (id: number): boolean => {
    const key = keys[id] as string;
    return proper[id] === 1 && written[id] === 1 && /^\p{L}{3,}$/u.test(key) && !lowerWords.has(key) && !nameStarts.has(key);
  };
  // Judged when a phrase is frequent enough in a cluster to be ranked, not for every phrase of the corpus.
  const eligibility = new Int8Array(keys.length);
  const eligible = (id: number): boolean => {
    if (eligibility[id] === 0) {
      const key = keys[id] as string;
      const words = key.split(' ').length;
      eligibility[id] = words <= maxWords && /\p{L}/u.test(key) && (words > 1 || isName(id)) ? 1 : -1;
    }
    return eligibility[id] === 1;
  };

  // Per cluster chosen: mentions and chunks of each phrase, counted over the cluster's chunks (zeroed after it).
  const count = new Int32Array(keys.length);
  const chunksWith = new Int32Array(keys.length);
  const lastChunk = new Int32Array(keys.length).fill(-1);
  const byCluster: TfidfKeyword[][][] = [];
  // The chosen keywords' surfaces, filled in once every cluster is chosen.
  const placeholders: Array<{ keyword: TfidfKeyword; id: number }> = [];
  for (const clustering of clusterings) {
    const members: number[][] = Array.from({ length: clustering.clusters }, () => []);
    let mentions = 0;
    for (let chunk = 0; chunk < chunkCount; chunk++) {
      const list = members[clustering.assignments[chunk] as number];
      if (!list) continue;
      list.push(chunk);
      mentions += (mentionStart[chunk + 1] as number) - (mentionStart[chunk] as number);
    }
    const average = mentions / Math.max(1, clustering.clusters);
    const { kept } = clustering;
    const current: TfidfKeyword[][] = members.map((_, clusterIndex) => [...(kept?.[clusterIndex] ?? [])]);
    // A full choice avoids the earlier clusters' phrases; an update avoids every other cluster's current ones.
    const chainUsed = new Set<number>();
    const usedBy = (clusterIndex: number): Set<number> => {
      if (kept === undefined) return chainUsed;
      const used = new Set<number>();
      current.forEach((keywords, other) => {
        if (other === clusterIndex) return;
        for (const keyword of keywords) {
          const id = idOf.get(keyword.key);
          if (id !== undefined) used.add(id);
        }
      });
      return used;
    };
    members.forEach((chunks, clusterIndex) => {
      if (kept?.[clusterIndex] !== undefined) return;
      const used = usedBy(clusterIndex);
      const seen: number[] = [];
      for (const chunk of chunks) {
        for (let at = mentionStart[chunk] as number; at < (mentionStart[chunk + 1] as number); at++) {
          const id = mentionKey[at] as number;
          if (count[id] === 0) seen.push(id);
          count[id] = (count[id] as number) + 1;
          if (lastChunk[id] !== chunk) {
            lastChunk[id] = chunk;
            chunksWith[id] = (chunksWith[id] as number) + 1;
          }
        }
      }
      const ranked = seen
        .filter((id) => (count[id] as number) >= minCount && (chunksWith[id] as number) >= minChunks && eligible(id) && !used.has(id))
        .map((id) => ({ id, score: (count[id] as number) * Math.log(1 + average / (corpusFrequency[id] as number)) }))
        .sort((left, right) => right.score - left.score || ((keys[left.id] as string) < (keys[right.id] as string) ? -1 : 1))
        .slice(0, keywordsPerCluster);
      for (const id of seen) {
        count[id] = 0;
        chunksWith[id] = 0;
        lastChunk[id] = -1;
      }
      current[clusterIndex] = ranked.map(({ id }) => {
        const keyword = { key: keys[id] as string, surface: '' };
        placeholders.push({ keyword, id });
        return keyword;
      });
      if (kept === undefined) for (const { id } of ranked) chainUsed.add(id);
    });
    byCluster.push(current);
  }
  // A keyword is written in its most frequent form, the first seen among equals: one pass over the mentions.
  const surfaceCounts = new Map<number, Array<[number, number]>>(placeholders.map(({ id }) => [id, []]));
  for (let at = 0; at < mentionKey.length; at++) {
    const counts = surfaceCounts.get(mentionKey[at] as number);
    if (counts === undefined) continue;
    const surface = mentionSurface[at] as number;
    const entry = counts.find(([known]) => known === surface);
    if (entry) entry[1]++;
    else counts.push([surface, 1]);
  }
  for (const { keyword, id } of placeholders) {
    let best = '';
    let bestCount = 0;
    for (const [surface, surfaceCount] of surfaceCounts.get(id) ?? []) {
      if (surfaceCount > bestCount) {
        best = surfaces[surface] as string;
        bestCount = surfaceCount;
      }
    }
    keyword.surface = best;
  }
  return {
    byCluster,
    keywords: filterKeywords(
      byCluster.flatMap((clusters) => clusters.flatMap((keywords) => keywords.map((keyword) => keyword.surface))),
      { maxWords },
    ),
  };
}
