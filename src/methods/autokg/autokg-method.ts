import type { ContextChunk } from '../../answer/answer-types.js';
import { topIndices } from '../../math/top-indices.js';
import { answerFromContext } from '../shared/answer-from-context.js';
import { methodSpecificationVersion, type MethodAnswer, type MethodContext, type QueryMethod, type Retrieval } from '../query-method.js';
import { queryScores } from '../shared/space-vectors.js';
import { autokgAnswerPrompt, renderAutokgAnswerPrompt } from './autokg-answer-prompt.js';
import { autokgLookups, type AutokgLookups } from './autokg-lookups.js';
import { autokgConfig, autokgIndexSettings, autokgPresets, searchNumbersOf, type AutokgConfig } from './config.js';
import { autoKgKeywordTemplates } from './build/keyword-prompts.js';
import { autokgSubgraph } from './autokg-subgraph.js';
import { hybridSearch, type HybridSearchResult, type RetrievalReason } from './hybrid-search.js';
import { packKeywordTexts } from './pack-keyword-texts.js';

/** The keywords a retrieval found, for the answer prompt. */
interface FoundKeywords {
  similar: string[];
  adjacent: string[];
}

/** A reason as a line of the trace: `query`, `keyword "k"`, or `adjacent "k" → "j"`. */
function describeReason(lookups: AutokgLookups, reason: RetrievalReason): string {
  const text = (keyword: number): string => JSON.stringify(lookups.keywordTexts[keyword] ?? '');
  if (reason.kind === 'query') return 'query';
  if (reason.kind === 'keyword') return `keyword ${text(reason.keyword)}`;
  return `adjacent ${reason.from.map(text).join(', ')} → ${text(reason.keyword)}`;
}

/** Runs the hybrid search for one question. */
async function search(context: MethodContext, lookups: AutokgLookups, question: string, params: AutokgConfig, variant: string | undefined) {
  const query = await context.embedQuery(question);
  const textScores = queryScores('chunks', lookups.chunkVectors, query);
  // A near-duplicate is never retrieved: its shorter twin stands for it (AutoKG's remove_same_text).
  const leaveOutExcluded = (scores: Float32Array): void => {
    lookups.excluded.forEach((out, row) => {
      if (out === 1) scores[row] = Number.NEGATIVE_INFINITY;
    });
  };
  leaveOutExcluded(textScores);
  const keywordScores = queryScores('keywords', lookups.keywordVectors, query);
  const textsOf = new Map<number, number[]>();
  const keywordTexts = (keyword: number, count: number): number[] => {
    let ranked = textsOf.get(keyword);
    if (!ranked || ranked.length < count) {
      if (params.useU) {
        ranked = (lookups.members[keyword] ?? []).map((member) => member.chunk);
      } else {
        const scores = queryScores('chunks', lookups.chunkVectors, lookups.keywordMatrix.subarray(keyword * lookups.dimensions, (keyword + 1) * lookups.dimensions));
        leaveOutExcluded(scores);
        ranked = topIndices(scores, count);
      }
      textsOf.set(keyword, ranked);
    }
    return ranked.slice(0, count);
  };
  const numbers = searchNumbersOf(params, variant);
  const found = hybridSearch({ textScores, keywordScores, keywordTexts, neighbours: (keyword) => lookups.neighbours[keyword] ?? [], numbers });
  return { found, textScores, keywordScores, numbers };
}

/** Renders the answer prompt with the texts that fit the budget. */
function packPrompt(context: MethodContext, question: string, chunks: readonly ContextChunk[], keywords: FoundKeywords, params: AutokgConfig) {
  const template = context.prompts.text(autokgAnswerPrompt);
  const render = (texts: string): string =>
    renderAutokgAnswerPrompt(template, {
      similarKeywords: keywords.similar,
      adjacentKeywords: keywords.adjacent,
      texts,
      language: params.answerLanguage ?? params.language,
      responseType: context.config.query.responseType,
      query: question,
    });
  const lines = chunks.map((chunk) => `* [${chunk.hid}] ${chunk.text}`);
  // The question is in the prompt and is also sent as the user message.
  const fixedTokens = context.tokenizer.count(render('')) + context.tokenizer.count(question);
  const packed = packKeywordTexts(lines, context.tokenizer, params.maxContextTokens, fixedTokens);
  const included = packed.included.map((index) => chunks[index] as ContextChunk);
  const text = render(packed.included.map((index) => lines[index]).join('\n'));
  return { text, tokens: context.tokenizer.count(text), included, skipped: packed.skipped.length };
}

/**
 * `autokg`: AutoKG (arXiv 2311.14740; wispcarey/AutoKG) — hybrid search over the keyword graph
 * of the `keywords` step: texts near the query, keywords near the query and their texts, adjacent keywords
 * by shared-chunk weight and their texts; the answer prompt lists the keywords and packs the texts into the
 * token budget. Variants are the search presets: `paper` (15, 5, 3, 3, 2) and `notebook` (15, 7, 3, 4, 2).
 */
export const autokgMethod: QueryMethod<AutokgConfig, FoundKeywords> = {
  specificationVersion: methodSpecificationVersion,
  name: 'autokg',
  provides: ['chunk-graph', 'keywords'],
  description: 'AutoKG: hybrid search over texts, query keywords and their neighbours in the keyword graph (Laplace-learned keyword–chunk links)',
  variants: Object.keys(autokgPresets),
  config: autokgConfig,
  indexSettings: autokgIndexSettings,
  ranking: { kind: 'native' },
  prompts: [...autoKgKeywordTemplates, autokgAnswerPrompt],
  indexSteps: async ({ config, mode, knn }) => [
    (await import('./build/chunk-graph-step.js')).createChunkGraphStep(config, knn),
    (await import('./build/keywords-step.js')).createKeywordsStep(mode, config),
  ],
  topKParam: 's0t',
  requires: ['chunk', 'embed-chunks', 'keywords'],

  async retrieve(context, question, params, variant): Promise<Retrieval<FoundKeywords>> {
    const lookups = await autokgLookups(context);
    const { found, textScores, keywordScores } = await context.trace.time(
      'autokg-search',
      () => search(context, lookups, question, params, variant),
      (result) => ({
        numbers: result.numbers,
        useU: params.useU,
        similarKeywords: result.found.similarKeywords.map((keyword) => lookups.keywordTexts[keyword]),
        adjacentKeywords: result.found.adjacentKeywords.map((adjacent) => lookups.keywordTexts[adjacent.keyword]),
        texts: result.found.texts.map(({ text, reasons }) => ({ id: lookups.chunkIds[text], reasons: reasons.map((reason) => describeReason(lookups, reason)) })),
      }),
    );
    // Ranked in search order (query texts, then each similar keyword's, then each adjacent keyword's).
    const chunks = await context.chunks(
      found.texts.map(({ text }, rank) => ({ id: lookups.chunkIds[text] as string, score: 1 / (rank + 1), scores: { dense: textScores[text] as number, rank: rank + 1 } })),
    );
    const keyword = (row: number) => ({ id: lookups.keywordIds[row] as string, text: lookups.keywordTexts[row] as string, score: keywordScores[row] as number });
    return {
      chunks,
      keywords: [...found.similarKeywords.map(keyword), ...found.adjacentKeywords.map((adjacent) => keyword(adjacent.keyword))],
      subgraph: autokgSubgraph(question, lookups, found, keywordScores, chunks),
      // The answer prompt names the similar and the adjacent keywords apart.
      state: keywordsOf(lookups, found),
    };
  },

  async answer(context, question, retrieval, params, options): Promise<MethodAnswer> {
    const keywords = retrieval.state;
    const packed = await context.trace.time(
      'autokg-pack',
      async () => packPrompt(context, question, retrieval.chunks, keywords, params),
      (result) => ({ included: result.included.length, skipped: result.skipped, tokens: result.tokens, budget: params.maxContextTokens }),
    );
    // The packed prompt is the whole system prompt: the paper's template with the keywords and the texts.
    return answerFromContext(context, { question, contextText: packed.text, contextTokens: packed.tokens, passages: packed.included, systemPrompt: packed.text }, options);
  },
};

function keywordsOf(lookups: AutokgLookups, found: HybridSearchResult): FoundKeywords {
  return {
    similar: found.similarKeywords.map((keyword) => lookups.keywordTexts[keyword] ?? ''),
    adjacent: found.adjacentKeywords.map((adjacent) => lookups.keywordTexts[adjacent.keyword] ?? ''),
  };
}
