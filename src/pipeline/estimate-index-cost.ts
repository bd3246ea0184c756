import type { KgragConfig } from '../core/config/config-schema.js';
import { fillPrompt, type PromptLibrary } from '../core/prompt-library.js';
import { extractClaimsPrompts } from '../extract/claims/extract-claims-prompt.js';
import { resolveEntitiesPrompt } from '../extract/entity-resolution/resolve-entities-prompt.js';
import { extractGraphPrompts } from '../extract/llm-graph/extract-graph-prompt.js';
import { communityReportPrompt } from '../extract/reports/community-report-prompt.js';
import { summarizeDescriptionsPrompt } from '../extract/summaries/summarize-descriptions-prompt.js';
import { openiePrompts } from '../extract/triples/openie-prompts.js';
import { priceSettings, resolveModelPrice, type ResolvedModelPrice } from '../providers/llm/model-prices.js';
import { countPromptTokens } from '../providers/llm/token-estimate.js';
import type { Tokenizer } from '../text/tokenizer.js';
import { gleaningConversationCost, type GleaningConversationCost } from './estimate/gleaning-conversation-cost.js';
import type { StepCostInput, PipelineStep, StepCostDraft, StepName } from './pipeline-step.js';
import { tripleExtractorFor } from './steps/triples-step.js';

/**
 * The ratios behind every number of an index cost estimate that is not counted exactly. They were
 * **calibrated on one corpus**: the 35-document sample corpus (`examples/sample-corpus`, 35 chunks,
 * 15,099 tokens) indexed in standard mode with the default settings by the scripted responder of the tests
 * (`test/helpers/sample-llm-responder.ts`), whose extraction replies are the hand-written fixture
 * `test/fixtures/llm/sample-extraction.json`. Counts come from the `runs` records of that index, tokens from
 * the requests and replies counted with `o200k_base`. Re-measure with `src/pipeline/estimate-index-cost.test.ts`,
 * which prints estimate against actual. A corpus of another density (legal text, chat logs, tables) will differ, so every
 * step built on these ratios is marked as estimated; only the extraction call counts are exact.
 */
export const indexCostCalibration = {
  extraction: {
    /**
     * Tokens of the first extraction reply per token of chunk text: json 40,523 / 15,099 = 2.68, tuples
     * 42,444 / 15,099 = 2.81 on the fixture. The fixture extracts densely (12 entities and 28 relationships
     * per 1,000 tokens, each with a description), so this is on the generous side of what models write.
     */
    firstReplyTokensPerChunkToken: { json: 2.68, tuples: 2.81 },
    /** Tokens of each gleaning reply per chunk token: json 3,193 / 15,099 = 0.21, tuples 3,313 / 15,099 = 0.22. */
    gleaningReplyTokensPerChunkToken: { json: 0.21, tuples: 0.22 },
    /**
     * Share of a reply's tokens that later turns resend: JSON turns are carried as the parsed object
     * re-serialized without spaces (34,108 / 40,523 = 0.84 for the fixture's first replies, which are spaced
     * like the prompt's examples); tuple replies are carried as written.
     */
    carriedShare: { json: 0.84, tuples: 1 },
    /** A loop answer is one letter, "Y" or "N": one token. */
    loopAnswerTokens: 1,
  },
  claims: {
    /**
     * Not measured (the fixture has no claims): the graph ratios scaled by how much less the claim prompt's
     * own examples write per text token than the graph prompt's (json 4.19 vs 6.21, tuples 3.52 vs 5.68
     * output tokens per example text token): json 2.68 × 0.675 = 1.81, tuples 2.81 × 0.62 = 1.74.
     */
    firstReplyTokensPerChunkToken: { json: 1.81, tuples: 1.74 },
    /** The graph gleaning ratios scaled the same way. */
    gleaningReplyTokensPerChunkToken: { json: 0.14, tuples: 0.14 },
  },
  graph: {
    /**
     * Distinct entities after extraction's exact-name merge per 1,000 chunk tokens: 187 / 15.1 = 12.4.
     * GraphRAG's Operation Dulce example (42 chunks of up to 1,200 tokens, 529 entities) gives about 10.5.
     * Distinct names grow more slowly than text on one topic, so large corpora get fewer.
     */
    entitiesPerThousandChunkTokens: 12.4,
    /** Distinct relations per 1,000 chunk tokens: 416 / 15.1 = 27.6 (GraphRAG's Dulce: 978 relationships, about 19). */
    relationsPerThousandChunkTokens: 27.6,
    /**
     * The graph found without any gleaning (`maxGleanings` 0) relative to the default one gleaning: entities
     * 177 / 187 = 0.95, relations 387 / 416 = 0.93. More gleanings are counted as finding nothing more (the
     * fixture's second gleaning repeats the first), so the graph of 2+ gleanings is that of one.
     */
    withoutGleaning: { entities: 0.95, relations: 0.93 },
  },
  resolution: {
    /** Candidate groups (one LLM call each) per extracted entity: 37 / 187 = 0.198. */
    groupsPerEntity: 0.198,
    /** Tokens of the numbered entity records of one group: 101 on average (prompt minus template). */
    entityListTokensPerGroup: 101,
    /** Reply tokens per group (a small `{"clusters": …}` object): 12. */
    outputTokensPerCall: 12,
    /** Entities left after merging: 155 / 187 = 0.829. */
    entitiesKept: 0.829,
    /** Relations left after re-pointing and merging: 386 / 416 = 0.928. */
    relationsKept: 0.928,
  },
  summaries: {
    /** Summary calls per entity or relation (those with two or more distinct descriptions): 156 / 541 = 0.288. */
    callsPerElement: 0.288,
    /** Tokens of the name and description list of one call: 88 on average (prompt minus template). */
    descriptionTokensPerCall: 88,
    /** Reply tokens per summary: 79 (the fixture's summaries join the descriptions, about as long as a model's). */
    outputTokensPerCall: 79,
  },
  communities: {
    /**
     * Communities (all levels; one report each) per entity after resolution: 40 / 155 = 0.258, on two levels
     * with the default `maxClusterSize` 10. GraphRAG's smoke-test budgets (10–80 communities for 100–750
     * entities) are in the same range.
     */
    perEntity: 0.258,
  },
  reports: {
    /** Tokens of the CSV context of one community: 969 on average (prompt minus template), capped at `reports.maxInputTokens`. */
    contextTokensPerReport: 969,
    /**
     * Reply tokens per report: 513, from the report prompt's own worked example (a 93-token header and
     * 56-token findings) with the 7.5 findings the prompt's "5 to 10" asks for on average. Not the
     * fixture's: its rule-made reports are 152 tokens, far shorter than a model's.
     */
    outputTokensPerReport: 513,
  },
  openie: {
    /*
     * Not from the sample corpus (its scripted OpenIE replies are rule-made): from real gpt-3.5-turbo-1106
     * output, HippoRAG's OpenIE of the 1,890 MuSiQue passages (OSU-NLP-Group/HippoRAG, `legacy` branch,
     * `output/openie_musique_train_results_ner_gpt-3.5-turbo-1106_1890.json`), 204,297
     * passage tokens, replies written as HippoRAG's examples space them (`", "`), counted with o200k_base.
     */
    /** NER reply tokens per chunk token: 100,419 / 204,297 = 0.49. */
    nerReplyTokensPerChunkToken: 0.49,
    /** The entity list as the triples prompt carries it (compact JSON): 82,797 / 204,297 = 0.41. */
    entityListTokensPerChunkToken: 0.41,
    /** Triple-extraction reply tokens per chunk token: 287,641 / 204,297 = 1.41 (9.2 triples per passage). */
    triplesReplyTokensPerChunkToken: 1.41,
  },
} as const satisfies IndexCostCalibration;

/** The shape of {@link indexCostCalibration}, for callers that calibrate on their own corpus. */
export interface IndexCostCalibration {
  extraction: {
    firstReplyTokensPerChunkToken: Record<'json' | 'tuples', number>;
    gleaningReplyTokensPerChunkToken: Record<'json' | 'tuples', number>;
    carriedShare: Record<'json' | 'tuples', number>;
    loopAnswerTokens: number;
  };
  claims: {
    firstReplyTokensPerChunkToken: Record<'json' | 'tuples', number>;
    gleaningReplyTokensPerChunkToken: Record<'json' | 'tuples', number>;
  };
  graph: {
    entitiesPerThousandChunkTokens: number;
    relationsPerThousandChunkTokens: number;
    withoutGleaning: { entities: number; relations: number };
  };
  resolution: { groupsPerEntity: number; entityListTokensPerGroup: number; outputTokensPerCall: number; entitiesKept: number; relationsKept: number };
  summaries: { callsPerElement: number; descriptionTokensPerCall: number; outputTokensPerCall: number };
  communities: { perEntity: number };
  reports: { contextTokensPerReport: number; outputTokensPerReport: number };
  openie: { nerReplyTokensPerChunkToken: number; entityListTokensPerChunkToken: number; triplesReplyTokensPerChunkToken: number };
}

/** A chunk the index will hold after the run. */
export interface EstimateChunk {
  id: string;
  text: string;
  /** Its token count; counted with the tokenizer when absent. */
  nTokens?: number;
}

/** Options of {@link estimateIndexCost}. */
export interface EstimateIndexCostOptions {
  config: KgragConfig;
  mode: 'fast' | 'standard';
  tokenizer: Tokenizer;
  /** The prompts the run would send (the workspace's overrides applied). */
  prompts: PromptLibrary;
  /** The chat model id, for prices; `undefined` leaves the cost unknown. */
  modelId: string | undefined;
  /** Every chunk the index will hold after the run (new and kept). */
  chunks: readonly EstimateChunk[];
  /**
   * Chunks whose replies are already stored in `extractions` for the current prompts, settings and model:
   * the run reuses them and pays nothing for them.
   */
  alreadyExtracted?: { graph?: ReadonlySet<string>; claims?: ReadonlySet<string>; triples?: ReadonlySet<string> };
  /** Steps the run will skip because their inputs and settings are unchanged since their last run. */
  upToDate?: ReadonlySet<StepName>;
  /** @default indexCostCalibration */
  calibration?: IndexCostCalibration;
  /** The run's steps: those that estimate their own cost (steps methods contribute, such as AutoKG's keywords) are added. */
  steps?: readonly PipelineStep[];
  /**
   * Set when the run updates an index that already has its entity graph and communities: the graph-wide steps then
   * redo only what the change touches (descriptions whose set changed, communities whose members changed), so
   * they are estimated from the change rather than from the whole corpus.
   */
  update?: IndexUpdate;
  /**
   * Set when the run updates an index and nothing but documents changed: the chunks it adds and removes, and how many
   * the index had, for the steps that estimate themselves (`StepCostInput.update`).
   */
  chunkChanges?: NonNullable<StepCostInput['update']>;
}

/** What an update changes in an existing index, as the dry run finds it. */
export interface IndexUpdate {
  /** Tokens of the chunks the run removes (of deleted or replaced documents). */
  removedChunkTokens: number;
  /** Entities and relations with a description from a removed chunk, and how many of them keep 2+ chunks. */
  touchedByRemoval: { elements: number; stillSummarized: number; communities: number };
  /** Communities of the index, per level (coarsest first). */
  communitiesPerLevel: readonly number[];
}

/** The LLM cost of one pipeline step. */
export interface StepCostEstimate {
  step: StepName;
  /** LLM calls (the most, when the model's loop answers can stop gleaning early; see `minCalls`). */
  calls: number;
  /** Fewest calls, present when the model's Y/N loop answers decide the count (`maxGleanings` ≥ 2). */
  minCalls?: number;
  /** Prompt tokens of those calls, conversation history included, as an OpenAI-compatible server bills them. */
  inputTokens: number;
  outputTokens: number;
  /** USD at the model's price, or `null` when the price is unknown. */
  costUsd: number | null;
  /**
   * True when `calls` is certain: it follows from the chunks and settings alone. Token counts are then exact
   * for the prompts kgrag writes and estimated for the replies the model writes back.
   */
  exact: boolean;
  /** One line saying how the numbers were obtained. */
  basis: string;
}

/** What indexing would cost, step by step, without calling the model. */
export interface IndexCostEstimate {
  mode: 'fast' | 'standard';
  /** The chat model priced, or `null` in fast mode. */
  model: string | null;
  /** USD per million tokens used, or `null` when the model's price is unknown (or in fast mode). */
  price: ResolvedModelPrice | null;
  chunks: {
    /** Chunks the index will hold. */
    total: number;
    tokens: number;
    /** Chunks the graph extraction will send to the model (0 in fast mode). */
    toExtract: number;
    /** Chunks whose graph extraction is stored and reused. */
    alreadyExtracted: number;
  };
  /** The steps that may call the LLM, in pipeline order (none in fast mode). */
  steps: StepCostEstimate[];
  totals: {
    calls: number;
    minCalls: number;
    inputTokens: number;
    outputTokens: number;
    /** `null` when the price is unknown and some call would be paid. */
    costUsd: number | null;
    /** True when every step's call count is exact. */
    exact: boolean;
  };
  /** Caveats for the reader: unknown price, loop answers, what is not counted. */
  notes: string[];
}

type StepDraft = StepCostDraft;

const framing = (messages: number): number => countPromptTokens(Array.from({ length: messages }, () => ({ role: 'user' as const, content: '' })));

function skipped(step: StepName): StepDraft {
  return { step, calls: 0, inputTokens: 0, outputTokens: 0, exact: true, basis: 'up to date: its inputs and settings are unchanged since its last run, so the run skips it' };
}

/** A ratio for a basis line: at most three decimals, no trailing zeros. */
function decimal(value: number): string {
  return String(Number(value.toFixed(3)));
}

interface ConversationStepInput {
  step: StepName;
  what: string;
  chunks: readonly EstimateChunk[];
  stored: ReadonlySet<string>;
  maxGleanings: number;
  fill(chunk: EstimateChunk): string;
  continueText: string;
  loopText: string;
  firstRatio: number;
  gleaningRatio: number;
  carriedShare: number;
  loopAnswerTokens: number;
  tokensOf(chunk: EstimateChunk): number;
  tokenizer: Tokenizer;
  formatName: string;
}

/** Extraction and claims: exact calls per pending chunk, prompts filled and counted, replies from ratios. */
function conversationStep(input: ConversationStepInput): StepDraft {
  const pending = input.chunks.filter((chunk) => !input.stored.has(chunk.id));
  const continueTokens = input.tokenizer.count(input.continueText);
  const loopTokens = input.tokenizer.count(input.loopText);
  const total: GleaningConversationCost = { calls: 0, minCalls: 0, inputTokens: 0, outputTokens: 0 };
  for (const chunk of pending) {
    const chunkTokens = input.tokensOf(chunk);
    const cost = gleaningConversationCost({
      promptTokens: input.tokenizer.count(input.fill(chunk)),
      continueTokens,
      loopTokens,
      firstReplyTokens: Math.round(chunkTokens * input.firstRatio),
      gleaningReplyTokens: Math.round(chunkTokens * input.gleaningRatio),
      carriedShare: input.carriedShare,
      loopAnswerTokens: input.loopAnswerTokens,
      maxGleanings: input.maxGleanings,
    });
    total.calls += cost.calls;
    total.minCalls += cost.minCalls;
    total.inputTokens += cost.inputTokens;
    total.outputTokens += cost.outputTokens;
  }
  const reused = input.chunks.length - pending.length;
  const g = input.maxGleanings;
  const perChunk = g === 0 ? '1 call' : g === 1 ? '2 calls (extraction + 1 gleaning)' : `${2 * g} calls (extraction + ${g} gleanings + ${g - 1} loop check${g === 2 ? '' : 's'}; 3 if the model answers N to the first loop check)`;
  const basis =
    `${pending.length} chunk${pending.length === 1 ? '' : 's'} × ${perChunk}${reused > 0 ? `, ${reused} already extracted` : ''}; ${input.what} prompts filled with each chunk and counted, ` +
    `replies estimated at ${decimal(input.firstRatio)}${g > 0 ? ` (+${decimal(input.gleaningRatio)} per gleaning)` : ''} tokens per chunk token (${input.formatName}); repair turns after unusable replies not included`;
  return {
    step: input.step,
    calls: total.calls,
    ...(g >= 2 && pending.length > 0 ? { minCalls: total.minCalls } : {}),
    inputTokens: total.inputTokens,
    outputTokens: total.outputTokens,
    exact: g < 2 || pending.length === 0,
    basis,
  };
}

/**
 * LLM OpenIE (the `triples` step): two calls per chunk neither stored nor covered by an OpenIE import. The NER
 * prompt is counted exactly; the triples prompt too, except the entity list the NER reply fills in.
 */
function openieStep(input: {
  chunks: readonly EstimateChunk[];
  stored: ReadonlySet<string>;
  prompts: PromptLibrary;
  tokenizer: Tokenizer;
  tokensOf(chunk: EstimateChunk): number;
  calibration: IndexCostCalibration;
}): StepDraft {
  const { tokenizer, calibration } = input;
  const pending = input.chunks.filter((chunk) => !input.stored.has(chunk.id));
  const ner = input.prompts.text(openiePrompts.ner);
  const triples = input.prompts.text(openiePrompts.triples);
  let inputTokens = 0;
  let outputTokens = 0;
  for (const chunk of pending) {
    const chunkTokens = input.tokensOf(chunk);
    inputTokens += framing(1) + tokenizer.count(fillPrompt(ner, { passage: chunk.text }));
    inputTokens += framing(1) + tokenizer.count(fillPrompt(triples, { passage: chunk.text, named_entity_json: '' }));
    inputTokens += Math.round(chunkTokens * calibration.openie.entityListTokensPerChunkToken);
    outputTokens += Math.round(chunkTokens * calibration.openie.nerReplyTokensPerChunkToken);
    outputTokens += Math.round(chunkTokens * calibration.openie.triplesReplyTokensPerChunkToken);
  }
  const reused = input.chunks.length - pending.length;
  return {
    step: 'triples',
    calls: 2 * pending.length,
    inputTokens,
    outputTokens,
    exact: true,
    basis:
      `${pending.length} chunk${pending.length === 1 ? '' : 's'} × 2 calls (named entities, then triples)${reused > 0 ? `, ${reused} already extracted or imported` : ''}; ` +
      `prompts filled with each chunk and counted, the entity list and replies estimated at ${decimal(calibration.openie.nerReplyTokensPerChunkToken)} + ${decimal(calibration.openie.triplesReplyTokensPerChunkToken)} tokens per chunk token (real gpt-3.5 OpenIE of MuSiQue); repair turns not included`,
  };
}

/**
 * Estimates the LLM calls, tokens and cost of indexing `chunks`, step by step, without calling any model.
 *
 * - **Graph extraction** (and claims, when enabled) is counted, not guessed: per chunk not yet extracted, the
 *   calls of `runGleaningConversation` (1 + `maxGleanings` + the loop checks between gleanings, assuming the
 *   model answers Y; `minCalls` is the count when it answers N at once), and the prompt tokens of each call
 *   with the real prompts filled with the chunk's text. Only the model's replies, which later gleaning
 *   turns resend, are estimated, from {@link indexCostCalibration}.
 * - **Entity resolution, summaries and reports** depend on what extraction finds, so they are estimated:
 *   the graph's size from the chunk tokens, the calls from calibrated ratios, the prompts as the real
 *   templates (counted) plus calibrated data tokens, and the replies from calibrated sizes.
 * - **LLM OpenIE** (the `triples` step, when `extract.triples.extractor` resolves to the LLM) is counted like
 *   extraction: two calls per chunk not yet extracted or imported, the prompts filled and counted.
 * - Steps in `upToDate` cost nothing; nor does fast mode, which calls no LLM.
 *
 * The ratios were calibrated on the sample corpus fixture (see {@link indexCostCalibration}), so matching a
 * real run on it (within 0.1 % of calls and input tokens) is in-sample; on parts of it the total was 6–21 %
 * low (docs/BENCHMARKS.md). Elsewhere, treat the estimated steps as an order of magnitude and the extraction
 * numbers as firm. The LLM response cache is ignored: calls it would answer are counted as paid.
 */
export function estimateIndexCost(options: EstimateIndexCostOptions): IndexCostEstimate {
  const { config, tokenizer, prompts, mode } = options;
  const calibration = options.calibration ?? indexCostCalibration;
  const upToDate = options.upToDate ?? new Set<StepName>();
  const tokenCounts = new Map<string, number>();
  const tokensOf = (chunk: EstimateChunk): number => {
    let tokens = tokenCounts.get(chunk.id) ?? chunk.nTokens;
    if (tokens === undefined) tokens = tokenizer.count(chunk.text);
    tokenCounts.set(chunk.id, tokens);
    return tokens;
  };
  const chunkTokens = options.chunks.reduce((sum, chunk) => sum + tokensOf(chunk), 0);
  const storedGraph = options.alreadyExtracted?.graph ?? new Set<string>();
  const notes: string[] = [];

  if (mode === 'fast') {
    notes.push('fast mode builds the graph with NLP and writes extractive reports: it makes no LLM calls');
    if (tripleExtractorFor(config, 'fast', true) === 'llm') {
      notes.push('extract.triples.extractor is "llm", so the triples step does call the LLM, twice per chunk not yet extracted; this estimate does not count those calls (run the dry run with --mode standard to see them)');
    }
    return {
      mode,
      model: null,
      price: null,
      chunks: { total: options.chunks.length, tokens: chunkTokens, toExtract: 0, alreadyExtracted: 0 },
      steps: [],
      totals: { calls: 0, minCalls: 0, inputTokens: 0, outputTokens: 0, costUsd: 0, exact: true },
      notes,
    };
  }

  const replyFormat = config.extract.llm.format;
  const entityTypes = config.extract.llm.entityTypes.join(', ');
  const drafts: StepDraft[] = [];

  // Graph extraction: exact.
  const graphTemplates = extractGraphPrompts[replyFormat];
  const extractTemplate = prompts.text(graphTemplates.extract);
  const extraction = conversationStep({
    step: 'llm-extract',
    what: 'extraction',
    chunks: options.chunks,
    stored: storedGraph,
    maxGleanings: config.extract.llm.maxGleanings,
    fill: (chunk) => fillPrompt(extractTemplate, { entity_types: entityTypes, input_text: chunk.text }),
    continueText: fillPrompt(prompts.text(graphTemplates.continue), { entity_types: entityTypes }),
    loopText: fillPrompt(prompts.text(extractGraphPrompts.loop), {}),
    firstRatio: calibration.extraction.firstReplyTokensPerChunkToken[replyFormat],
    gleaningRatio: calibration.extraction.gleaningReplyTokensPerChunkToken[replyFormat],
    carriedShare: calibration.extraction.carriedShare[replyFormat],
    loopAnswerTokens: calibration.extraction.loopAnswerTokens,
    tokensOf,
    tokenizer,
    formatName: replyFormat,
  });
  // A skipped extraction step has every chunk stored already, so both say 0 calls; the skip says why.
  drafts.push(upToDate.has('llm-extract') ? skipped('llm-extract') : extraction);

  // The graph the later steps see: from the whole corpus for a first build; for an update, what the new chunks bring
  // (descriptions, groups and communities the change does not touch are kept, or answered by the LLM cache).
  const { update } = options;
  const newChunkTokens = options.chunks.filter((chunk) => !storedGraph.has(chunk.id)).reduce((sum, chunk) => sum + tokensOf(chunk), 0);
  const thousands = (update ? newChunkTokens : chunkTokens) / 1000;
  const gleaned = config.extract.llm.maxGleanings > 0;
  const entities = calibration.graph.entitiesPerThousandChunkTokens * thousands * (gleaned ? 1 : calibration.graph.withoutGleaning.entities);
  const relations = calibration.graph.relationsPerThousandChunkTokens * thousands * (gleaned ? 1 : calibration.graph.withoutGleaning.relations);
  const graphBasis = update
    ? `an update: ~${Math.round(entities)} entities and ~${Math.round(relations)} relations from the ${newChunkTokens} tokens of new chunks, and ${update.touchedByRemoval.elements} entities and relations with a description from the ${update.removedChunkTokens} tokens of removed chunks`
    : `~${Math.round(entities)} entities and ~${Math.round(relations)} relations from ${chunkTokens} chunk tokens`;

  const resolution = config.resolution.enabled;
  const resolvedEntities = resolution ? entities * calibration.resolution.entitiesKept : entities;
  const resolvedRelations = resolution ? relations * calibration.resolution.relationsKept : relations;
  if (upToDate.has('resolve-entities')) {
    drafts.push(skipped('resolve-entities'));
  } else if (!resolution) {
    drafts.push({ step: 'resolve-entities', calls: 0, inputTokens: 0, outputTokens: 0, exact: true, basis: 'resolution.enabled is false: no calls' });
  } else {
    const calls = Math.round(entities * calibration.resolution.groupsPerEntity);
    const template = tokenizer.count(fillPrompt(prompts.text(resolveEntitiesPrompt), { entities: '' }));
    drafts.push({
      step: 'resolve-entities',
      calls,
      inputTokens: Math.round(calls * (framing(1) + template + calibration.resolution.entityListTokensPerGroup)),
      outputTokens: Math.round(calls * calibration.resolution.outputTokensPerCall),
      exact: false,
      basis: `${graphBasis}; ${decimal(calibration.resolution.groupsPerEntity)} candidate groups per entity, each a ${template}-token prompt + ~${calibration.resolution.entityListTokensPerGroup} tokens of records`,
    });
  }

  if (upToDate.has('summarize')) {
    drafts.push(skipped('summarize'));
  } else {
    const elements = resolvedEntities + resolvedRelations;
    const calls = Math.round(elements * calibration.summaries.callsPerElement) + (update?.touchedByRemoval.stillSummarized ?? 0);
    const template = tokenizer.count(
      fillPrompt(prompts.text(summarizeDescriptionsPrompt), { entity_name: '""', description_list: '[]', max_length: String(config.summaries.maxWords) }),
    );
    // The summarizer never sends more than `maxInputTokens` of prompt.
    const prompt = Math.min(config.summaries.maxInputTokens, template + calibration.summaries.descriptionTokensPerCall);
    drafts.push({
      step: 'summarize',
      calls,
      inputTokens: Math.round(calls * (framing(1) + prompt)),
      outputTokens: Math.round(calls * calibration.summaries.outputTokensPerCall),
      exact: false,
      basis: `~${Math.round(elements)} ${update ? 'new or changed ' : ''}entities and relations after resolution; ${decimal(calibration.summaries.callsPerElement)} of them have 2+ descriptions${update ? `, and ${update.touchedByRemoval.stillSummarized} that lose a description keep 2+` : ''}, each a ${template}-token prompt + ~${calibration.summaries.descriptionTokensPerCall} tokens of descriptions`,
    });
  }

  if (config.extract.claims.enabled) {
    const claimTemplates = extractClaimsPrompts[replyFormat];
    const claimTemplate = prompts.text(claimTemplates.extract);
    const entitySpecs = config.extract.llm.entityTypes.join(', ');
    const claims = conversationStep({
      step: 'claims',
      what: 'claim',
      chunks: options.chunks,
      stored: options.alreadyExtracted?.claims ?? new Set<string>(),
      maxGleanings: config.extract.claims.maxGleanings,
      fill: (chunk) => fillPrompt(claimTemplate, { entity_specs: entitySpecs, claim_description: config.extract.claims.description, input_text: chunk.text }),
      continueText: fillPrompt(prompts.text(claimTemplates.continue), { entity_specs: entitySpecs }),
      loopText: fillPrompt(prompts.text(extractClaimsPrompts.loop), {}),
      firstRatio: calibration.claims.firstReplyTokensPerChunkToken[replyFormat],
      gleaningRatio: calibration.claims.gleaningReplyTokensPerChunkToken[replyFormat],
      carriedShare: calibration.extraction.carriedShare[replyFormat],
      loopAnswerTokens: calibration.extraction.loopAnswerTokens,
      tokensOf,
      tokenizer,
      formatName: replyFormat,
    });
    drafts.push(upToDate.has('claims') ? skipped('claims') : claims);
  }

  if (upToDate.has('reports')) {
    drafts.push(skipped('reports'));
  } else {
    // An update regenerates the reports of the communities whose members changed: those of the entities a removed chunk
    // described (counted), and at each level at most one per new or changed entity.
    const calls = update
      ? Math.min(
          update.communitiesPerLevel.reduce((sum, count) => sum + count, 0),
          update.touchedByRemoval.communities + update.communitiesPerLevel.reduce((sum, count) => sum + Math.min(count, Math.ceil(resolvedEntities)), 0),
        )
      : Math.round(resolvedEntities * calibration.communities.perEntity);
    const template = tokenizer.count(fillPrompt(prompts.text(communityReportPrompt), { input_text: '', max_report_length: String(config.reports.maxWords) }));
    const context = Math.min(config.reports.maxInputTokens, calibration.reports.contextTokensPerReport);
    drafts.push({
      step: 'reports',
      calls,
      inputTokens: Math.round(calls * (framing(1) + template + context)),
      outputTokens: Math.round(calls * calibration.reports.outputTokensPerReport),
      exact: false,
      basis: update
        ? `an update: the ${update.touchedByRemoval.communities} communities of entities a removed chunk described, and at each of ${update.communitiesPerLevel.length} levels up to one community per ~${Math.round(resolvedEntities)} new or changed entities (at most every community), one report each: a ${template}-token prompt + ~${context} tokens of context; repair calls not included`
        : `~${Math.round(resolvedEntities)} entities after resolution × ${decimal(calibration.communities.perEntity)} communities per entity, one report each: a ${template}-token prompt + ~${context} tokens of context; repair calls not included`,
    });
  }

  if (tripleExtractorFor(config, 'standard', true) === 'llm') {
    drafts.push(
      upToDate.has('triples')
        ? skipped('triples')
        : openieStep({ chunks: options.chunks, stored: options.alreadyExtracted?.triples ?? new Set<string>(), prompts, tokenizer, tokensOf, calibration }),
    );
  }

  for (const step of options.steps ?? []) {
    if (step.estimateCost === undefined) continue;
    const stepUpdate = options.chunkChanges;
    drafts.push(
      upToDate.has(step.name)
        ? skipped(step.name)
        : step.estimateCost({ chunks: options.chunks, chunkTokens, tokenizer, prompts, mode, ...(stepUpdate === undefined ? {} : { update: stepUpdate }) }),
    );
  }

  const modelId = options.modelId;
  const price = modelId === undefined ? undefined : resolveModelPrice(modelId, priceSettings(config));
  const costOf = (inputTokens: number, outputTokens: number): number | null =>
    // Rounded to a millionth of a dollar: finer digits are float noise, not information.
    price === undefined ? (inputTokens + outputTokens === 0 ? 0 : null) : Math.round(inputTokens * price.input + outputTokens * price.output) / 1_000_000;
  // Only the steps the run has: an index built for `basic` alone, or for GraphRAG's methods, pays for no OpenIE.
  const runSteps = options.steps === undefined ? undefined : new Set(options.steps.map((step) => step.name));
  const steps: StepCostEstimate[] = drafts
    .filter((draft) => runSteps === undefined || runSteps.has(draft.step))
    .map((draft) => ({ ...draft, costUsd: costOf(draft.inputTokens, draft.outputTokens) }));

  const totals = {
    calls: steps.reduce((sum, step) => sum + step.calls, 0),
    minCalls: steps.reduce((sum, step) => sum + (step.minCalls ?? step.calls), 0),
    inputTokens: steps.reduce((sum, step) => sum + step.inputTokens, 0),
    outputTokens: steps.reduce((sum, step) => sum + step.outputTokens, 0),
    costUsd: 0 as number | null,
    exact: steps.every((step) => step.exact),
  };
  totals.costUsd = costOf(totals.inputTokens, totals.outputTokens);

  if (price === undefined && totals.calls > 0) {
    notes.push(
      `no price is known for model "${modelId ?? '(none)'}": set llm.prices in kgrag.yaml, e.g. llm: { prices: { "${modelId ?? 'my-model'}": { input: 0.4, output: 1.6 } } } (USD per million tokens)`,
    );
  }
  if (config.extract.llm.maxGleanings >= 2 && extraction.calls > 0) {
    notes.push(`with maxGleanings ${config.extract.llm.maxGleanings}, extraction makes between ${extraction.minCalls ?? extraction.calls} and ${extraction.calls} calls: the model's Y/N loop answers decide`);
  }
  if (config.embeddings.provider !== 'local') notes.push('embedding requests (chunks, entities, relations, reports) are not included');

  const alreadyExtracted = options.chunks.filter((chunk) => storedGraph.has(chunk.id)).length;
  return {
    mode,
    model: modelId ?? null,
    price: price ?? null,
    chunks: { total: options.chunks.length, tokens: chunkTokens, toExtract: options.chunks.length - alreadyExtracted, alreadyExtracted },
    steps,
    totals,
    notes,
  };
}
