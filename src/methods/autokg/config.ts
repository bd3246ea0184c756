import { z } from 'zod';

/** The five counts of AutoKG's hybrid search (wispcarey/AutoKG `autoKG_full.py`, "Algorithm 3"). */
export interface SearchNumbers {
  /** Texts nearest the query. */
  s0t: number;
  /** Keywords nearest the query. */
  s1k: number;
  /** Texts of each similar keyword. */
  s1t: number;
  /** Adjacent keywords of each similar keyword, by edge weight. */
  s2k: number;
  /** Texts of each adjacent keyword. */
  s2t: number;
}

/**
 * The search presets, which are the variants of `autokg`: the paper's `(15, 5, 3, 3, 2)` (the default) and
 * `chat_with_KG.ipynb`'s `(15, 7, 3, 4, 2)`.
 */
export const autokgPresets = {
  paper: { s0t: 15, s1k: 5, s1t: 3, s2k: 3, s2t: 2 },
  notebook: { s0t: 15, s1k: 7, s1t: 3, s2k: 4, s2t: 2 },
} as const satisfies Record<string, SearchNumbers>;

export type AutokgPreset = keyof typeof autokgPresets;

const positiveInt = () => z.number().int().positive();
const searchCount = (description: string) => z.number().int().min(0).max(1000).optional().describe(description);

/**
 * The configuration of `autokg` (`methods.autokg`): the index settings of its `chunk-graph` and `keywords` steps
 * with the paper's names (n, c, l1, l2, m, K) and defaults, and the query parameters of its hybrid search. The
 * search counts default to the variant's preset, so that `autokg:notebook` with `s1k: 5` changes only that count.
 */
export const autokgConfig = z
  .object({
    topic: z.string().min(1).default('the main subjects of the documents').describe('Index setting: the main topic named in the keyword prompts (`main_topic`)'),
    clusters: positiveInt().max(1000).default(15).describe('Index setting: clusters of each clustering, k-means (k-means++) and spectral (NJW) (paper n = 15)'),
    chunksPerCluster: positiveInt().max(200).default(15).describe('Index setting: c, chunks nearest each cluster centre shown to the LLM (paper and code: 15)'),
    sampling: z
      .enum(['nearest-and-random', 'nearest'])
      .default('nearest-and-random')
      .describe('Index setting: chunks shown per cluster: the c nearest plus c random (paper) or the c nearest only (reference code)'),
    keywordsPerCluster: positiveInt().max(100).default(10).describe('Index setting: l1, keywords per cluster (LLM and LLM-free)'),
    maxWords: positiveInt().max(10).default(3).describe('Index setting: l2, words per keyword at most'),
    avoidSample: z.number().int().min(0).default(300).describe('Index setting: m, previous keywords sampled into the avoid list of each extraction prompt'),
    language: z.string().min(1).default('English').describe('Index setting: language the keywords are written in (answers too, unless answerLanguage is set)'),
    maxPromptTokens: positiveInt().default(7400).describe('Index setting: token budget of one keyword-extraction prompt (reference: 7,900 − 500 for gpt-4)'),
    kernel: z
      .enum(['gaussian', 'angular'])
      .default('gaussian')
      .describe('Index setting: chunk-graph kernel: "gaussian" = reference code exp(-4 d²/d_K(i)²) on chord distances, averaged; "angular" = paper exp(-θ²/√(τi τj))'),
    duplicateDistance: z
      .number()
      .min(0)
      .max(1)
      .default(1e-6)
      .describe('Index setting: a chunk within this cosine distance of a chunk with fewer tokens is left out of the chunk graph, keywords and search (remove_same_text thresh); 0 keeps every chunk'),
    neighbours: z.number().int().min(2).max(200).default(30).describe('Index setting: K of the chunk kNN graph, counting the chunk itself as the reference does (30 → 29 other chunks)'),
    spectralNeighbours: z.number().int().min(2).max(200).default(20).describe('Index setting: K of the spectral-clustering graph, counting the chunk itself (reference: 20); at most `neighbours`'),
    positives: positiveInt().max(1000).default(5).describe('Index setting: chunks nearest a keyword labelled as members in Laplace learning (trust_num)'),
    negatives: z.number().int().min(0).max(10000).default(35).describe('Index setting: chunks farthest from a keyword labelled as non-members (negative_multiplier · trust_num)'),
    cap: z.number().gt(0).max(1).default(0.2).describe('Index setting: largest share of the chunks one keyword keeps, highest Laplace score first (connect_threshold)'),
    membership: z
      .enum(['argmax', 'balanced'])
      .default('argmax')
      .describe('Index setting: Laplace membership rule: "argmax" = reference u ≥ 0.5; "balanced" = u ≥ positives/(positives+negatives), for small corpora (a few hundred chunks) where u rarely reaches 0.5; too broad on large ones'),
    reclusterShare: z
      .number()
      .min(0)
      .max(1)
      .default(0.2)
      .describe(
        'Index setting: an update keeps the clusters and names again only the clusters whose members changed, until more than this share of the chunks of the last full clustering has been added or removed since; then it clusters from scratch. 0 always re-clusters (an index equal to a fresh build)',
      ),
    s0t: searchCount('Texts nearest the query (paper 15)'),
    s1k: searchCount('Keywords nearest the query (paper 5, notebook 7)'),
    s1t: searchCount('Texts of each similar keyword (paper 3)'),
    s2k: searchCount('Adjacent keywords of each similar keyword, by top edge weight (paper 3, notebook 4)'),
    s2t: searchCount('Texts of each adjacent keyword (paper 2)'),
    useU: z
      .boolean()
      .default(false)
      .describe("A keyword's texts are its member chunks by Laplace score u (use_u) instead of the chunks nearest it by angle (the reference's default)"),
    maxContextTokens: z.number().int().positive().max(1_000_000).default(10_000).describe('Token budget of the answer prompt (header, keywords, texts and question)'),
    answerLanguage: z.string().min(1).optional().describe('Language the answer is written in (default: language)'),
  })
  .strict();

export type AutokgConfig = z.output<typeof autokgConfig>;

/** Keys of {@link autokgConfig} that shape the index (the `chunk-graph` and `keywords` steps), not a query. */
export const autokgIndexSettings = [
  'topic',
  'clusters',
  'chunksPerCluster',
  'sampling',
  'keywordsPerCluster',
  'maxWords',
  'avoidSample',
  'language',
  'maxPromptTokens',
  'kernel',
  'duplicateDistance',
  'neighbours',
  'spectralNeighbours',
  'positives',
  'negatives',
  'cap',
  'membership',
  'reclusterShare',
] as const;

/** The search counts of a call: its explicit counts over the variant's preset (`paper` when none). */
export function searchNumbersOf(params: AutokgConfig, variant: string | undefined): SearchNumbers {
  const preset = variant === 'notebook' ? autokgPresets.notebook : autokgPresets.paper;
  return {
    s0t: params.s0t ?? preset.s0t,
    s1k: params.s1k ?? preset.s1k,
    s1t: params.s1t ?? preset.s1t,
    s2k: params.s2k ?? preset.s2k,
    s2t: params.s2t ?? preset.s2t,
  };
}
