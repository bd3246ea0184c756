import { z } from 'zod';

/** The five counts of AutoKG's hybrid search (reference/seed-methods.md §A.7, "Algorithm 3"). */
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

const searchCount = (description: string) => z.number().int().min(0).max(1000).optional().describe(description);

/**
 * Parameters of `autokg`. The search counts default to the variant's preset, so that `autokg:notebook`
 * with `s1k: 5` changes only that count.
 */
export const autokgParams = z
  .object({
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
    language: z.string().min(1).default('English').describe('Language the answer is written in'),
  })
  .strict();

export type AutokgParams = z.output<typeof autokgParams>;

/** The search counts of a call: its explicit counts over the variant's preset (`paper` when none). */
export function searchNumbersOf(params: AutokgParams, variant: string | undefined): SearchNumbers {
  const preset = variant === 'notebook' ? autokgPresets.notebook : autokgPresets.paper;
  return {
    s0t: params.s0t ?? preset.s0t,
    s1k: params.s1k ?? preset.s1k,
    s1t: params.s1t ?? preset.s1t,
    s2k: params.s2k ?? preset.s2k,
    s2t: params.s2t ?? preset.s2t,
  };
}
