/**
 * A small English stop list (function words only). Removing them from queries does not change BM25
 * rankings much but keeps queries short; content words such as "first" or "new" are deliberately kept.
 */
export const englishStopwords: ReadonlySet<string> = new Set(
  (
    'a about above after again against all am an and any are as at be because been before being below between both but by ' +
    'can could did do does doing down during each few for from further had has have having he her here hers herself him ' +
    'himself his how i if in into is it its itself just me more most my myself no nor not of off on once only or other our ' +
    'ours ourselves out over own same she should so some such than that the their theirs them themselves then there these ' +
    'they this those through to too under until up very was we were what when where which while who whom why will with ' +
    'would you your yours yourself yourselves s t d ll m re ve'
  ).split(' '),
);

/**
 * The small stop list of the BM25 index and its queries: the most frequent function words, plus the
 * question words and auxiliaries every question starts with (rare in documents, so their IDF would
 * otherwise dominate short questions: "what" outranked "bridge" on the sample corpus). With it BM25
 * reproduces the baselines published with the evaluation datasets, which used "a small stop list"; the longer
 * list above does not (docs/BENCHMARKS.md, "Harness validation").
 */
export const bm25Stopwords: ReadonlySet<string> = new Set(
  'a an the and or of to in on at for by with from is are was were be been it this that as what who whom whose which when where why how did does do'.split(
    ' ',
  ),
);
