import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it, type TestContext } from 'node:test';
import { fileURLToPath } from 'node:url';
import { sampleLlmReply, type ResponderRequest } from '../../test/helpers/sample-llm-responder.js';
import { createKgrag, type Kgrag } from '../api/create-kgrag.js';
import type { KgragConfigInput } from '../core/config/config-schema.js';
import { runGleaningConversation } from '../extract/llm-graph/run-gleaning-conversation.js';
import { readGraphragOutput } from '../interop/graphrag/read-graphrag-output.js';
import type { ChatRequest } from '../providers/llm/language-model.js';
import { countPromptTokens } from '../providers/llm/token-estimate.js';
import { createScriptedLanguageModel, type ScriptedLanguageModel } from '../testing/scripted-language-model.js';
import { createTokenizer } from '../text/tokenizer.js';
import { estimateIndexCost, indexCostCalibration, type IndexCostEstimate, type StepCostEstimate } from './estimate-index-cost.js';
import { gleaningConversationCost } from './estimate/gleaning-conversation-cost.js';
import type { IndexDryRun } from './estimate/dry-run-index.js';

/*
 * The estimate against real standard runs of the sample corpus with the scripted responder of the tests:
 * extraction calls must match exactly, totals within 25 %. Input tokens are compared with the tokenizer
 * count of the requests the model received (what a server bills), not with the scripted model's own
 * usage, which is a characters/4 guess. The measured errors are printed as test diagnostics. The ratios were
 * calibrated on this same corpus, so those runs are in-sample; the run over GraphRAG's Operation Dulce, with a real
 * model's extraction, is the one outside it.
 */

const corpus = fileURLToPath(new URL('../../examples/sample-corpus/', import.meta.url));
const corpusFiles = readdirSync(corpus)
  .filter((name) => name.endsWith('.md'))
  .sort()
  .map((name) => join(corpus, name));
const root = mkdtempSync(join(tmpdir(), 'kgrag-estimate-'));
after(() => rmSync(root, { recursive: true, force: true }));
let workspaces = 0;

const tokenizer = await createTokenizer('o200k_base');
const countTokens = (text: string): number => tokenizer.count(text);

const loopQuestion = /single letter Y or N/;

/** The sample responder, optionally answering Y to every loop check (the fixture answers N after the first gleaning). */
function sampleModel(options: { loopAnswer?: 'Y' } = {}): ScriptedLanguageModel {
  return createScriptedLanguageModel({
    responses: [
      {
        reply: (request: ChatRequest) => {
          const last = request.messages[request.messages.length - 1];
          if (options.loopAnswer && last?.role === 'user' && loopQuestion.test(last.content)) return options.loopAnswer;
          return sampleLlmReply(request as ResponderRequest);
        },
      },
    ],
  });
}

const datasets = fileURLToPath(new URL('../../../shared/datasets/', import.meta.url));
const dulceText = join(datasets, 'texts', 'dulce.txt');
const dulceOutput = join(datasets, 'graphrag-output', 'operation-dulce-v2');
const dulceSkip = existsSync(dulceText) && existsSync(join(dulceOutput, 'entities.parquet')) ? false : `the shared datasets are absent (${datasets})`;

/**
 * The sample responder, except that a graph extraction of a chunk of the Dulce novella is answered with what
 * GraphRAG extracted from the text unit it overlaps most: GraphRAG 2.x cut dulce.txt into the same five 1,200-token
 * units kgrag cuts it into (up to a few characters where the tokenizers differ). Its entities and relationships are
 * those whose `text_unit_ids` name the unit, with GraphRAG's descriptions; gleanings find nothing more.
 */
async function dulceModel(): Promise<ScriptedLanguageModel> {
  const output = (await readGraphragOutput(dulceOutput)).tables;
  const units = output.textUnits.map((unit) => ({
    // A stretch from the middle of the unit, which the overlapping chunk holds whatever its exact cut.
    marker: unit.text.slice(Math.floor(unit.text.length / 2), Math.floor(unit.text.length / 2) + 200),
    reply: JSON.stringify(
      {
        entities: output.entities.filter((entity) => entity.textUnitIds.includes(unit.id)).map((entity) => ({ name: entity.title, type: entity.type.toLowerCase(), description: entity.description })),
        relationships: output.relationships
          .filter((relationship) => relationship.textUnitIds.includes(unit.id))
          // GraphRAG's weight is the strengths summed over the units: one unit's share, in the prompt's 1–10.
          .map((relationship) => ({ source: relationship.source, target: relationship.target, description: relationship.description, strength: Math.min(10, Math.round(relationship.weight / relationship.textUnitIds.length)) })),
      },
      null,
      2,
    ),
  }));
  return createScriptedLanguageModel({
    responses: [
      {
        reply: (request: ChatRequest) => {
          const first = request.messages.find((message) => message.role === 'user')?.content ?? '';
          const unit = request.purpose === 'extract-graph' ? units.find((candidate) => first.includes(candidate.marker)) : undefined;
          if (!unit) return sampleLlmReply(request as ResponderRequest);
          const assistantTurns = request.messages.filter((message) => message.role === 'assistant').length;
          if (assistantTurns === 0) return unit.reply;
          const last = request.messages[request.messages.length - 1]?.content ?? '';
          return loopQuestion.test(last) ? 'N' : '{"entities": [], "relationships": []}';
        },
      },
    ],
  });
}

const stepOfPurpose: Record<string, string> = {
  'extract-graph': 'llm-extract',
  'extract-claims': 'claims',
  'resolve-entities': 'resolve-entities',
  'summarize-descriptions': 'summarize',
  'community-report': 'reports',
  'openie-ner': 'triples',
  'openie-triples': 'triples',
  'autokg-extract': 'keywords',
  'autokg-refine': 'keywords',
  'autokg-refine-all': 'keywords',
  'autokg-final': 'keywords',
};

interface Actual {
  calls: number;
  inputTokens: number;
}

/** Calls per step from the `runs` records, input tokens per step as the tokenizer counts the requests. */
async function actualUsage(kgrag: Kgrag, llm: ScriptedLanguageModel): Promise<Map<string, Actual>> {
  const usage = new Map<string, Actual>();
  for (const run of await kgrag.store.table('runs').all()) {
    if (run.usage.llmCalls > 0) usage.set(run.step, { calls: run.usage.llmCalls, inputTokens: 0 });
  }
  for (const call of llm.calls) {
    const step = stepOfPurpose[call.purpose ?? ''] ?? `unknown:${call.purpose}`;
    const entry = usage.get(step) ?? { calls: 0, inputTokens: 0 };
    entry.inputTokens += countPromptTokens(call.messages, countTokens);
    usage.set(step, entry);
  }
  return usage;
}

interface Measured {
  estimate: IndexDryRun;
  actual: Map<string, Actual>;
  kgrag: Kgrag;
  llm: ScriptedLanguageModel;
}

/** Estimates, then really indexes, `paths` in a fresh workspace; the caller closes `kgrag`. */
async function estimateThenIndex(config: KgragConfigInput, options: { loopAnswer?: 'Y'; paths?: string[]; llm?: ScriptedLanguageModel } = {}): Promise<Measured> {
  const llm = options.llm ?? sampleModel(options);
  const kgrag = await createKgrag({ workspace: join(root, `ws-${workspaces++}`), env: {}, llm, config });
  const paths = options.paths ?? [corpus];
  const estimate = await kgrag.estimateIndex(paths, { mode: 'standard' });
  assert.equal(llm.calls.length, 0, 'the estimate calls no model');
  await kgrag.index(paths, { mode: 'standard' });
  return { estimate, actual: await actualUsage(kgrag, llm), kgrag, llm };
}

function stepOf(estimate: IndexCostEstimate, step: string): StepCostEstimate {
  const found = estimate.steps.find((entry) => entry.step === step);
  assert.ok(found, `the estimate has a ${step} step`);
  return found;
}

const relativeError = (estimated: number, actual: number): number => (estimated - actual) / actual;
const percent = (value: number): string => `${(value * 100).toFixed(1)} %`;

describe('gleaningConversationCost', () => {
  it('replays runGleaningConversation: same calls and, with known reply sizes, the same prompt tokens', async () => {
    for (const maxGleanings of [0, 1, 2, 3, 4]) {
      for (const answer of ['Y', 'N'] as const) {
        const replies = { first: 'alpha beta gamma delta', gleaning: 'epsilon zeta' };
        const model = createScriptedLanguageModel({
          responses: [
            { match: /single letter/, reply: answer },
            { match: /^CONTINUE/, reply: replies.gleaning },
            { reply: replies.first },
          ],
        });
        await runGleaningConversation({
          model,
          prompt: 'EXTRACT from a text of several words',
          continuePrompt: 'CONTINUE with what was missed',
          loopPrompt: 'Anything left? Answer with the single letter Y or N',
          maxGleanings,
          request: {},
          runTurn: async (turnModel, messages) => {
            const result = await turnModel.generate({ messages });
            return { value: null, carried: result.text, problems: [] };
          },
        });
        const cost = gleaningConversationCost({
          promptTokens: countTokens('EXTRACT from a text of several words'),
          continueTokens: countTokens('CONTINUE with what was missed'),
          loopTokens: countTokens('Anything left? Answer with the single letter Y or N'),
          firstReplyTokens: countTokens(replies.first),
          gleaningReplyTokens: countTokens(replies.gleaning),
          loopAnswerTokens: countTokens(answer),
          maxGleanings,
        });
        const label = `maxGleanings ${maxGleanings}, loop answer ${answer}`;
        assert.equal(answer === 'Y' ? cost.calls : cost.minCalls, model.calls.length, label);
        if (answer === 'Y') {
          const billed = model.calls.reduce((sum, call) => sum + countPromptTokens(call.messages, countTokens), 0);
          assert.equal(cost.inputTokens, billed, label);
        }
      }
    }
  });
});

describe('estimateIndexCost against real standard runs of the sample corpus', () => {
  for (const maxGleanings of [0, 1]) {
    it(`counts the extraction calls exactly with maxGleanings ${maxGleanings}`, async (t: TestContext) => {
      const { estimate, actual, kgrag } = await estimateThenIndex({ extract: { llm: { format: 'json', maxGleanings } } });
      try {
        const extraction = stepOf(estimate, 'llm-extract');
        const real = actual.get('llm-extract') as Actual;
        assert.equal(extraction.calls, 35 * (1 + maxGleanings));
        assert.equal(extraction.calls, real.calls);
        assert.equal(extraction.exact, true);
        assert.equal(extraction.minCalls, undefined);
        if (maxGleanings === 0) {
          // No reply is resent without gleanings: the prompt tokens are counted, not estimated.
          assert.equal(extraction.inputTokens, real.inputTokens);
        }
        t.diagnostic(`maxGleanings ${maxGleanings}: extraction calls ${extraction.calls} = ${real.calls}; input tokens ${extraction.inputTokens} vs ${real.inputTokens} (${percent(relativeError(extraction.inputTokens, real.inputTokens))})`);
      } finally {
        await kgrag.close();
      }
    });
  }

  it('bounds the extraction calls exactly with maxGleanings 2: the fewest when the model answers N, the most when it answers Y', async (t: TestContext) => {
    const answeredNo = await estimateThenIndex({ extract: { llm: { format: 'json', maxGleanings: 2 } } });
    const answeredYes = await estimateThenIndex({ extract: { llm: { format: 'json', maxGleanings: 2 } } }, { loopAnswer: 'Y' });
    try {
      const extraction = stepOf(answeredNo.estimate, 'llm-extract');
      assert.equal(extraction.exact, false);
      assert.equal(extraction.minCalls, 35 * 3);
      assert.equal(extraction.calls, 35 * 4);
      assert.equal(answeredNo.actual.get('llm-extract')?.calls, extraction.minCalls, 'the fixture answers N to the first loop check');
      assert.equal(answeredYes.actual.get('llm-extract')?.calls, extraction.calls, 'a model answering Y makes every gleaning');
      const yes = answeredYes.actual.get('llm-extract') as Actual;
      t.diagnostic(`maxGleanings 2: extraction calls ${extraction.minCalls}–${extraction.calls}; input tokens (all Y) ${extraction.inputTokens} vs ${yes.inputTokens} (${percent(relativeError(extraction.inputTokens, yes.inputTokens))})`);
      assert.ok(Math.abs(relativeError(extraction.inputTokens, yes.inputTokens)) < 0.25);
    } finally {
      await answeredNo.kgrag.close();
      await answeredYes.kgrag.close();
    }
  });

  for (const format of ['json', 'tuples'] as const) {
    it(`estimates total calls and input tokens within 25 % (${format})`, async (t: TestContext) => {
      const { estimate, actual, kgrag } = await estimateThenIndex({ extract: { llm: { format } } });
      try {
        assert.deepEqual(
          estimate.steps.map((step) => step.step),
          ['llm-extract', 'resolve-entities', 'summarize', 'reports', 'triples', 'keywords'],
        );
        for (const step of estimate.steps) assert.ok(actual.has(step.step), `${step.step} called the model`);
        assert.equal(stepOf(estimate, 'triples').calls, actual.get('triples')?.calls, 'OpenIE calls are counted exactly');
        assert.equal(stepOf(estimate, 'keywords').calls, actual.get('keywords')?.calls, 'AutoKG keyword calls are counted exactly');
        const totals = [...actual.values()].reduce((sum, entry) => ({ calls: sum.calls + entry.calls, inputTokens: sum.inputTokens + entry.inputTokens }), { calls: 0, inputTokens: 0 });
        const callsError = relativeError(estimate.totals.calls, totals.calls);
        const tokensError = relativeError(estimate.totals.inputTokens, totals.inputTokens);
        t.diagnostic(
          `${format}: calls ${estimate.totals.calls} vs ${totals.calls} (${percent(callsError)}); input tokens ${estimate.totals.inputTokens} vs ${totals.inputTokens} (${percent(tokensError)}); ` +
            estimate.steps.map((step) => `${step.step} ${step.calls}/${actual.get(step.step)?.calls}`).join(', '),
        );
        assert.ok(Math.abs(callsError) <= 0.25, `calls off by ${percent(callsError)}`);
        assert.ok(Math.abs(tokensError) <= 0.25, `input tokens off by ${percent(tokensError)}`);
      } finally {
        await kgrag.close();
      }
    });
  }

  it("on a text outside the calibration corpus, a real model's extraction (GraphRAG's Operation Dulce): extraction calls exact, its input tokens within 25 %, no later step under-estimated", { skip: dulceSkip }, async (t: TestContext) => {
    // The ratios were calibrated on the whole sample corpus. The Dulce novella is not in it, and its extraction
    // replies are GraphRAG's (a GPT-4-class model's), so the reply sizes and the graph's density are a real model's.
    // Measured: 10/10 extraction calls, input tokens −11.5 %; the model finds 39 entities where the ratios assume 64
    // (12.4 per 1,000 chunk tokens), so resolution (13 calls estimated, 4 made) and reports (14, 8) are over-estimated;
    // in total +103 % calls and +29 % input tokens. Summaries are not comparable: GraphRAG's table keeps one merged
    // description per entity, so the chunks' replies never disagree and the run summarizes almost nothing (54, 5),
    // where a real run summarizes every element described in two chunks or more. The totals are printed, not checked.
    const { estimate, actual, kgrag } = await estimateThenIndex({ extract: { llm: { format: 'json' } } }, { paths: [dulceText], llm: await dulceModel() });
    try {
      const totals = [...actual.values()].reduce((sum, entry) => ({ calls: sum.calls + entry.calls, inputTokens: sum.inputTokens + entry.inputTokens }), { calls: 0, inputTokens: 0 });
      t.diagnostic(
        `Dulce (${estimate.chunks.total} chunks): calls ${estimate.totals.calls} vs ${totals.calls} (${percent(relativeError(estimate.totals.calls, totals.calls))}); ` +
          `input tokens ${estimate.totals.inputTokens} vs ${totals.inputTokens} (${percent(relativeError(estimate.totals.inputTokens, totals.inputTokens))}); ` +
          estimate.steps.map((step) => `${step.step} ${step.calls}/${actual.get(step.step)?.calls} calls ${step.inputTokens}/${actual.get(step.step)?.inputTokens} tokens`).join(', '),
      );
      assert.deepEqual([...actual.keys()].filter((step) => !estimate.steps.some((estimated) => estimated.step === step)), [], 'every call is of an estimated step');
      const extraction = stepOf(estimate, 'llm-extract');
      const real = actual.get('llm-extract') as Actual;
      assert.equal(extraction.calls, 10);
      assert.equal(real.calls, 10);
      assert.ok(Math.abs(relativeError(extraction.inputTokens, real.inputTokens)) <= 0.25, `extraction input tokens off by ${percent(relativeError(extraction.inputTokens, real.inputTokens))}`);
      for (const step of estimate.steps) {
        const made = actual.get(step.step) ?? { calls: 0, inputTokens: 0 };
        assert.ok(step.calls >= made.calls && step.inputTokens >= (step.step === 'llm-extract' ? 0 : made.inputTokens), `${step.step}: ${step.calls} calls and ${step.inputTokens} tokens estimated, ${made.calls} and ${made.inputTokens} made`);
      }
    } finally {
      await kgrag.close();
    }
  });

  it('counts claim extraction exactly when enabled, and finds stored claims after a run', async () => {
    const config: KgragConfigInput = { extract: { claims: { enabled: true } } };
    const workspace = join(root, `ws-${workspaces}`);
    const { estimate, actual, kgrag, llm } = await estimateThenIndex(config);
    try {
      assert.deepEqual(
        estimate.steps.map((step) => step.step),
        ['llm-extract', 'resolve-entities', 'summarize', 'claims', 'reports', 'triples', 'keywords'],
      );
      assert.equal(stepOf(estimate, 'claims').calls, 70);
      assert.equal(actual.get('claims')?.calls, 70);
      const again = await kgrag.estimateIndex([corpus], { mode: 'standard' });
      assert.equal(again.totals.calls, 0);
      assert.equal(llm.calls.filter((call) => call.purpose === 'extract-claims').length, 70);
    } finally {
      await kgrag.close();
    }
    // Other resolution settings change the graph, so the claims step runs again, but its stored replies are reused.
    const changed = await createKgrag({ workspace, env: {}, llm: sampleModel(), config: { ...config, resolution: { nameSimilarity: 0.95 } } });
    try {
      const estimate = await changed.estimateIndex([corpus], { mode: 'standard' });
      assert.ok(stepOf(estimate, 'summarize').calls > 0);
      const claims = stepOf(estimate, 'claims');
      assert.equal(claims.calls, 0);
      assert.match(claims.basis, /^0 chunks × 2 calls .*, 35 already extracted/);
    } finally {
      await changed.close();
    }
  });
});

describe('estimateIndex on a workspace that already has an index', () => {
  it('does not count chunks already extracted, and counts only the new document after one is added', async (t: TestContext) => {
    const llm = sampleModel();
    const kgrag = await createKgrag({ workspace: join(root, `ws-${workspaces++}`), env: {}, llm });
    try {
      const firstBuild = await kgrag.estimateIndex(corpusFiles.slice(0, 34), { mode: 'standard' });
      await kgrag.index(corpusFiles.slice(0, 34), { mode: 'standard' });
      const calls = llm.calls.length;
      const unchanged = await kgrag.estimateIndex(corpusFiles.slice(0, 34), { mode: 'standard' });
      assert.deepEqual(unchanged.chunks, { total: 34, tokens: unchanged.chunks.tokens, toExtract: 0, alreadyExtracted: 34 });
      // Nothing changed: every step is skipped as up to date, so nothing would be paid.
      assert.deepEqual(
        unchanged.steps.map((step) => [step.step, step.calls, step.exact]),
        [
          ['llm-extract', 0, true],
          ['resolve-entities', 0, true],
          ['summarize', 0, true],
          ['reports', 0, true],
          ['triples', 0, true],
          ['keywords', 0, true],
        ],
      );
      assert.match(stepOf(unchanged, 'reports').basis, /up to date/);

      const grown = await kgrag.estimateIndex(corpusFiles, { mode: 'standard' });
      assert.equal(grown.documents.added, 1);
      assert.deepEqual([grown.chunks.total, grown.chunks.toExtract, grown.chunks.alreadyExtracted], [35, 1, 34]);
      assert.equal(stepOf(grown, 'llm-extract').calls, 2);
      assert.equal(stepOf(grown, 'triples').calls, 2, 'OpenIE only for the new chunk');
      assert.ok(stepOf(grown, 'reports').calls > 0, 'the graph changes, so the later steps run again');
      // An update redoes what it touches: summaries and reports are estimated from the new chunk, not the corpus.
      for (const step of ['summarize', 'reports', 'keywords'] as const) {
        assert.ok(stepOf(grown, step).calls < stepOf(firstBuild, step).calls / 2, `${step}: ${stepOf(grown, step).calls} for one document vs ${stepOf(firstBuild, step).calls} for the build`);
        assert.match(stepOf(grown, step).basis, /new|update/);
      }
      assert.equal(llm.calls.length, calls, 'no estimate called the model');

      await kgrag.index(corpusFiles, { mode: 'standard' });
      const runs = await kgrag.store.table('runs').get(['llm-extract', 'summarize', 'reports', 'keywords']);
      const callsOf = (step: string): number => runs.find((run) => run.step === step)?.usage.llmCalls ?? 0;
      assert.equal(callsOf('llm-extract'), 2, 'the real run extracted only the new chunk');
      t.diagnostic(`adding one document: summaries ${stepOf(grown, 'summarize').calls} estimated, ${callsOf('summarize')} made; reports ${stepOf(grown, 'reports').calls} estimated, ${callsOf('reports')} made; keywords ${stepOf(grown, 'keywords').calls} estimated, ${callsOf('keywords')} made`);
    } finally {
      await kgrag.close();
    }
  });

  it('re-extracts everything when the model changes, since stored replies belong to their model', async () => {
    const kgrag = await createKgrag({ workspace: join(root, `ws-${workspaces++}`), env: {}, llm: sampleModel() });
    try {
      await kgrag.index([corpus], { mode: 'standard' });
    } finally {
      await kgrag.close();
    }
    const other = await createKgrag({ workspace: join(root, `ws-${workspaces - 1}`), env: {}, llm: createScriptedLanguageModel({ modelId: 'other-model', responses: [] }) });
    try {
      const estimate = await other.estimateIndex([corpus], { mode: 'standard' });
      assert.equal(estimate.chunks.toExtract, 35);
      assert.equal(stepOf(estimate, 'llm-extract').calls, 70);
    } finally {
      await other.close();
    }
  });
});

describe('estimateIndexCost', () => {
  const chunks = [
    { id: 'a', text: 'Ada Lovelace wrote the first published algorithm for the Analytical Engine of Charles Babbage.' },
    { id: 'b', text: 'The Analytical Engine was a proposed mechanical general-purpose computer designed in London.' },
  ];
  const base = async (config: KgragConfigInput = {}, modelId: string | undefined = 'gpt-4.1-mini'): Promise<IndexCostEstimate> => {
    const kgrag = await createKgrag({ workspace: join(root, `ws-${workspaces++}`), env: {}, config });
    try {
      return estimateIndexCost({ config: kgrag.config, mode: 'standard', tokenizer, prompts: kgrag.prompts, modelId, chunks });
    } finally {
      await kgrag.close();
    }
  };

  it('prices with the built-in table, llm.prices over it, and llm.pricePerMillionTokens over both', async () => {
    const builtIn = await base();
    assert.deepEqual(builtIn.price, { input: 0.4, output: 1.6, source: 'built-in' });
    const expected = (builtIn.totals.inputTokens * 0.4 + builtIn.totals.outputTokens * 1.6) / 1e6;
    assert.ok(Math.abs((builtIn.totals.costUsd ?? 0) - expected) <= 1e-6);
    const configured = await base({ llm: { prices: { 'GPT-4.1-mini': { input: 1, output: 2 } } } });
    assert.deepEqual(configured.price, { input: 1, output: 2, source: 'llm.prices' });
    const single = await base({ llm: { pricePerMillionTokens: { input: 3, output: 4 }, prices: { 'gpt-4.1-mini': { input: 1, output: 2 } } } });
    assert.equal(single.price?.source, 'llm.pricePerMillionTokens');
  });

  it('reports an unknown price as unknown, with the key to set, never as free', async () => {
    const estimate = await base({}, 'my-local-model');
    assert.equal(estimate.price, null);
    assert.equal(estimate.totals.costUsd, null);
    // A step with no calls costs 0 whatever the price; every paid step's cost is unknown.
    assert.ok(estimate.steps.every((step) => step.costUsd === (step.calls === 0 ? 0 : null)));
    assert.equal(stepOf(estimate, 'llm-extract').costUsd, null);
    assert.ok(estimate.notes.some((note) => note.includes('llm.prices') && note.includes('my-local-model')));
    const priced = await base({ llm: { prices: { 'my-local-model': { input: 0.1, output: 0.2 } } } }, 'my-local-model');
    assert.ok((priced.totals.costUsd ?? 0) > 0);
  });

  it('makes no LLM calls in fast mode', async () => {
    const kgrag = await createKgrag({ workspace: join(root, `ws-${workspaces++}`), env: {} });
    try {
      const estimate = await kgrag.estimateIndex([corpus], { mode: 'fast' });
      assert.deepEqual(estimate.totals, { calls: 0, minCalls: 0, inputTokens: 0, outputTokens: 0, costUsd: 0, exact: true });
      assert.deepEqual(estimate.steps, []);
      assert.equal(estimate.chunks.total, 35);
    } finally {
      await kgrag.close();
    }
  });

  it('skips resolution calls when resolution is disabled, and states every ratio it used', async () => {
    const estimate = await base({ resolution: { enabled: false } });
    assert.equal(stepOf(estimate, 'resolve-entities').calls, 0);
    const reports = stepOf(estimate, 'reports');
    assert.match(reports.basis, new RegExp(String(indexCostCalibration.communities.perEntity)));
    assert.equal(reports.exact, false);
  });
});
