import { filterKeywords } from './filter-keywords.js';

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

/** One noun-phrase mention: its normalized key and its text as written. */
export interface PhraseOccurrence {
  key: string;
  surface: string;
  /** The tagger's kind: a proper-noun span or a common noun phrase. Without it a phrase counts as common. */
  kind?: 'proper' | 'phrase';
}

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
  const keywordsPerCluster = options.keywordsPerCluster ?? 10;
  const maxWords = options.maxWords ?? 3;
  const minCount = options.minCount ?? 2;
  const minChunks = options.minChunks ?? 2;

  // Phrase ids, corpus frequencies and the most frequent surface form of each key.
  const idOf = new Map<string, number>();
  const keys: string[] = [];
  const surfaceCounts: Array<Map<string, number>> = [];
  const chunkPhraseIds: Int32Array[] = phrases.map((mentions) => {
    const ids = new Int32Array(mentions.length);
    mentions.forEach((mention, index) => {
      let id = idOf.get(mention.key);
      if (id === undefined) {
        id = keys.length;
        idOf.set(mention.key, id);
        keys.push(mention.key);
        surfaceCounts.push(new Map());
      }
      const surfaces = surfaceCounts[id] as Map<string, number>;
      surfaces.set(mention.surface, (surfaces.get(mention.surface) ?? 0) + 1);
      ids[index] = id;
    });
    return ids;
  });
  const corpusFrequency = new Float64Array(keys.length);
  for (const ids of chunkPhraseIds) for (const id of ids) corpusFrequency[id] = (corpusFrequency[id] as number) + 1;
  const proper = new Uint8Array(keys.length);
  const written = new Uint8Array(keys.length);
  phrases.forEach((mentions, chunk) => {
    mentions.forEach((mention, index) => {
      const id = (chunkPhraseIds[chunk] as Int32Array)[index] as number;
      if (mention.kind === 'proper') proper[id] = 1;
      // Bit 1: seen capitalized; bit 2: seen in lower case.
      written[id] = (written[id] as number) | (/^\p{Lu}/u.test(mention.surface) ? 1 : 2);
    });
  });
  const lowerWords = new Set<string>();
  for (const text of options.texts ?? []) for (const word of text.match(/(?<![\p{L}\p{N}'’-])\p{Ll}[\p{Ll}'’-]*/gu) ?? []) lowerWords.add(word.replace(/['’]s$/u, ''));
  const nameStarts = new Set<string>();
  keys.forEach((key, id) => {
    const space = key.indexOf(' ');
    if (space > 0 && proper[id] === 1) nameStarts.add(key.slice(0, space));
  });
  const isName = (id: number): boolean => {
    const key = keys[id] as string;
    return proper[id] === 1 && written[id] === 1 && /^\p{L}{3,}$/u.test(key) && !lowerWords.has(key) && !nameStarts.has(key);
  };
  const eligible = keys.map((key, id) => {
    const words = key.split(' ').length;
    return words <= maxWords && /\p{L}/u.test(key) && (words > 1 || isName(id));
  });
  const surfaceOf = (id: number): string => {
    let best = '';
    let bestCount = 0;
    for (const [surface, count] of surfaceCounts[id] as Map<string, number>) {
      if (count > bestCount) {
        best = surface;
        bestCount = count;
      }
    }
    return best;
  };

  const byCluster: TfidfKeyword[][][] = [];
  for (const clustering of clusterings) {
    const counts: Array<Map<number, number>> = Array.from({ length: clustering.clusters }, () => new Map());
    const chunkCounts: Array<Map<number, number>> = Array.from({ length: clustering.clusters }, () => new Map());
    let mentions = 0;
    chunkPhraseIds.forEach((ids, chunk) => {
      const cluster = counts[clustering.assignments[chunk] as number];
      const clusterChunks = chunkCounts[clustering.assignments[chunk] as number];
      if (!cluster || !clusterChunks) return;
      for (const id of ids) cluster.set(id, (cluster.get(id) ?? 0) + 1);
      for (const id of new Set(ids)) clusterChunks.set(id, (clusterChunks.get(id) ?? 0) + 1);
      mentions += ids.length;
    });
    const average = mentions / Math.max(1, clustering.clusters);
    const { kept } = clustering;
    const current: TfidfKeyword[][] = counts.map((_, clusterIndex) => [...(kept?.[clusterIndex] ?? [])]);
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
    counts.forEach((cluster, clusterIndex) => {
      if (kept?.[clusterIndex] !== undefined) return;
      const used = usedBy(clusterIndex);
      const clusterChunks = chunkCounts[clusterIndex] as Map<number, number>;
      const ranked = [...cluster.entries()]
        .filter(([id, count]) => count >= minCount && (clusterChunks.get(id) ?? 0) >= minChunks && eligible[id] === true && !used.has(id))
        .map(([id, count]) => ({ id, score: count * Math.log(1 + average / (corpusFrequency[id] as number)) }))
        .sort((left, right) => right.score - left.score || ((keys[left.id] as string) < (keys[right.id] as string) ? -1 : 1))
        .slice(0, keywordsPerCluster);
      current[clusterIndex] = ranked.map(({ id }) => ({ key: keys[id] as string, surface: surfaceOf(id) }));
      if (kept === undefined) for (const { id } of ranked) chainUsed.add(id);
    });
    byCluster.push(current);
  }
  return {
    byCluster,
    keywords: filterKeywords(
      byCluster.flatMap((clusters) => clusters.flatMap((keywords) => keywords.map((keyword) => keyword.surface))),
      { maxWords },
    ),
  };
}
