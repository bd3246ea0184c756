import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { extractiveLabel } from '../src/answer/extractive-answer.js';
import { createKgrag, type Kgrag } from '../src/api/create-kgrag.js';
import { createRandom } from '../src/core/random.js';
import type { CommunityRecord, ReportRecord } from '../src/core/types.js';
import { buildReportBatches, prepareReportRows, weightReports, type WeightedReport } from '../src/methods/global/build-report-batches.js';
import type { GlobalReport } from '../src/methods/global/global-lookups.js';
import { noDataAnswer } from '../src/methods/global/global-method.js';
import type { AnalystPoint } from '../src/methods/global/map-report-batches.js';
import { packAnalystPoints } from '../src/methods/global/pack-analyst-points.js';
import type { ChatRequest } from '../src/providers/llm/language-model.js';
import { createScriptedLanguageModel } from '../src/testing/scripted-language-model.js';
import { countPromptTokens } from '../src/providers/llm/token-estimate.js';
import { createTokenizer, type Tokenizer } from '../src/text/tokenizer.js';
import { sampleWorkspaceAt } from './helpers/test-server.js';

const root = mkdtempSync(join(tmpdir(), 'kgrag-global-'));
const workspace = join(root, 'ws');

let tokenizer: Tokenizer;
let reports: ReportRecord[];
let communities: Map<string, CommunityRecord>;

const open = (llm?: ReturnType<typeof createScriptedLanguageModel>): Promise<Kgrag> => createKgrag({ workspace, env: {}, ...(llm ? { llm } : {}) });

const systemOf = (request: ChatRequest): string => request.messages.find((message) => message.role === 'system')?.content ?? '';
const byPurpose = (purpose: string) => (request: ChatRequest) => request.purpose === purpose;
/** The report ids (first column) of the Reports rows in a prompt. */
const rowHids = (text: string): number[] => [...text.matchAll(/^(\d+)\|/gm)].map((match) => Number(match[1]));
/** The separate Reports tables of a global context. */
const tablesOf = (contextText: string): string[] => (contextText === '' ? [] : contextText.split('\n\n-----Reports-----').map((table, index) => (index === 0 ? table : `-----Reports-----${table}`)));
/** The analyst blocks handed to the reduce. */
const reduceData = (request: ChatRequest): string => {
  const system = systemOf(request);
  return system.slice(system.indexOf('---Analyst reports---\n\n') + '---Analyst reports---\n\n'.length, system.indexOf('\n\n---Reminder---'));
};
/** The report text handed to a rating call. */
const ratedReport = (request: ChatRequest): string => {
  const system = systemOf(request);
  return system.slice(system.indexOf('---Report---\n\n') + '---Report---\n\n'.length, system.indexOf('\n\n---Reply---'));
};

/** A map reply citing the first report of the batch, with the given score. */
const mapPoint =
  (score: (hids: number[]) => number) =>
  (request: ChatRequest): object => {
    const hids = rowHids(systemOf(request));
    return { points: [{ description: `Reports ${hids.join(',')} agree [Data: Reports (${hids[0]})]`, score: score(hids) }] };
  };

function syntheticReport(hid: number, words: number, rating: number): GlobalReport {
  const body = Array.from({ length: words }, (_, index) => `word${(hid * 31 + index) % 97}`).join(' ');
  return {
    communityId: `c${hid}`,
    hid,
    level: 0,
    title: `Community ${hid}`,
    summary: body.slice(0, 40),
    findings: [],
    rating,
    ratingExplanation: '',
    fullContent: `# Community ${hid}\n\n${body}`,
    generatedBy: 'extractive',
    error: null,
  };
}

before(async () => {
  // The sample corpus's fast index, built once for the whole test run.
  await sampleWorkspaceAt(workspace);
  const kgrag = await open();
  tokenizer = await createTokenizer(kgrag.config.tokenizer.encoding);
  reports = await kgrag.store.table('reports').all();
  communities = new Map((await kgrag.store.table('communities').all()).map((community) => [community.id, community]));
  await kgrag.close();
});

after(() => rmSync(root, { recursive: true, force: true }));

describe('global: report batches', () => {
  test('every report lands in exactly one batch, each batch within budget, rows by weight then rank, fixed by the seed', () => {
    const items: WeightedReport[] = weightReports(
      Array.from({ length: 40 }, (_, index) => syntheticReport(index + 1, 60 + ((index * 37) % 120), index % 11)),
      new Map(Array.from({ length: 40 }, (_, index) => [`c${index + 1}`, (index * 7) % 13])),
    );
    const rows = prepareReportRows(items, tokenizer);
    const total = rows.reduce((sum, row) => sum + row.tokens, 0);
    const { batches, truncated } = buildReportBatches(rows, tokenizer, 1500, 86);
    assert.equal(truncated, 0);
    assert.ok(batches.length >= Math.ceil(total / 1500) && batches.length >= 3, `${batches.length} batches for ${total} tokens`);
    assert.deepEqual(batches.flatMap((batch) => batch.reports.map((report) => report.hid)).sort((a, b) => a - b), items.map((item) => item.report.hid));
    const weightOf = new Map(items.map((item) => [item.report.hid, item.weight]));
    for (const batch of batches) {
      assert.ok(batch.tokens <= 1500);
      assert.equal(tokenizer.count(batch.text), batch.tokens, 'the token count is of the whole table');
      assert.ok(batch.text.startsWith('-----Reports-----\nid|title|occurrence weight|content|rank\n'));
      assert.deepEqual(rowHids(batch.text), batch.reports.map((report) => report.hid));
      for (let index = 1; index < batch.reports.length; index++) {
        const previous = batch.reports[index - 1] as GlobalReport;
        const current = batch.reports[index] as GlobalReport;
        const order = (weightOf.get(previous.hid) as number) - (weightOf.get(current.hid) as number) || previous.rating - current.rating;
        assert.ok(order >= 0, 'rows are sorted by occurrence weight, then rank, both descending');
      }
    }
    const again = buildReportBatches(rows, tokenizer, 1500, 86);
    assert.deepEqual(again.batches.map((batch) => batch.text), batches.map((batch) => batch.text), 'same seed, same batches');
    const other = buildReportBatches(rows, tokenizer, 1500, 87);
    assert.notDeepEqual(other.batches.map((batch) => batch.reports.map((report) => report.hid)), batches.map((batch) => batch.reports.map((report) => report.hid)), 'another seed, another order');
  });

  test('a report larger than the budget is cut to fit a batch of its own', () => {
    const rows = prepareReportRows(weightReports([syntheticReport(1, 3000, 5), syntheticReport(2, 50, 5)], new Map()), tokenizer);
    const { batches, truncated } = buildReportBatches(rows, tokenizer, 800, 86);
    assert.equal(truncated, 1);
    assert.deepEqual(batches.flatMap((batch) => batch.reports.map((report) => report.hid)).sort(), [1, 2]);
    for (const batch of batches) assert.ok(tokenizer.count(batch.text) <= 800);
  });
});

describe('global: reduce input', () => {
  test('drops score-0 points, orders by score (ties keep batch order) and stops at the budget', () => {
    const points: AnalystPoint[] = [
      { analyst: 1, description: 'zero one', score: 0 },
      { analyst: 1, description: 'fifty from one', score: 50 },
      { analyst: 2, description: 'ninety', score: 90 },
      { analyst: 2, description: 'fifty from two', score: 50 },
      { analyst: 3, description: 'zero three', score: 0 },
      { analyst: 3, description: 'ten', score: 10 },
    ];
    const packed = packAnalystPoints(points, tokenizer, 10_000);
    assert.equal(packed.relevant, 4);
    assert.deepEqual(packed.included.map((point) => point.description), ['ninety', 'fifty from one', 'fifty from two', 'ten']);
    assert.equal(packed.text.split('\n\n')[0], '----Analyst 2----\nImportance Score: 90\nninety');
    assert.doesNotMatch(packed.text, /zero/);
    const tight = packAnalystPoints(points, tokenizer, tokenizer.count('----Analyst 2----\nImportance Score: 90\nninety') + 3);
    assert.deepEqual(tight.included.map((point) => point.description), ['ninety']);
    assert.deepEqual(packAnalystPoints(points.filter((point) => point.score === 0), tokenizer, 1000).included, []);
  });
});

describe('global: map-reduce over the sample corpus (scripted LLM)', () => {
  const params = { maxContextTokens: 2500 };

  test('one map call per packed batch, then one streamed reduce; calls, purposes and tokens are accounted', async () => {
    const plain = await open();
    const expected = tablesOf((await plain.query('What are the main themes?', { method: 'global', params, contextOnly: true })).context.text);
    await plain.close();
    assert.ok(expected.length >= 3, `several batches (${expected.length})`);

    const model = createScriptedLanguageModel({
      responses: [
        { match: byPurpose('global-map'), reply: mapPoint(() => 60) },
        { match: byPurpose('global-reduce'), reply: 'The town is shaped by its river [Data: Reports (1)].' },
      ],
    });
    const kgrag = await open(model);
    let streamed = '';
    const result = await kgrag.query('What are the main themes?', { method: 'global', params, onText: (delta) => (streamed += delta) });
    const maps = model.calls.filter(byPurpose('global-map'));
    assert.equal(maps.length, expected.length, 'map calls = batches of our own packing');
    maps.forEach((call, index) => assert.ok(systemOf(call).includes(expected[index] as string), `map call ${index + 1} reads batch ${index + 1}`));
    assert.equal(model.calls.filter(byPurpose('global-reduce')).length, 1);
    assert.equal(model.calls.length, expected.length + 1);
    assert.ok(model.calls.every((call) => call.priority === 'interactive'));
    assert.equal(streamed.trim(), result.answer.text, 'the reduce streams');
    assert.equal(result.answer.kind, 'generated');
    assert.equal(result.usage.llmCalls, expected.length + 1);
    assert.equal(result.usage.inputTokens, model.calls.reduce((sum, call) => sum + countPromptTokens(call.messages), 0));
    assert.ok(result.usage.outputTokens > 0);
    assert.equal(tablesOf(result.context.text).length, expected.length);
    for (const table of tablesOf(result.context.text)) assert.ok(tokenizer.count(table) <= params.maxContextTokens);
    await kgrag.close();
  });

  test('the reduce reads only points scoring above 0, highest first', async () => {
    const model = createScriptedLanguageModel({
      responses: [
        {
          match: byPurpose('global-map'),
          reply: (request) => {
            const first = rowHids(systemOf(request))[0] as number;
            return {
              points: [
                { description: `irrelevant ${first}`, score: 0 },
                { description: `minor ${first}`, score: (first % 7) * 10 + 5 },
                { description: `major ${first} [Data: Reports (${first})]`, score: '95' },
              ],
            };
          },
        },
        { match: byPurpose('global-reduce'), reply: 'Summary.' },
      ],
    });
    const kgrag = await open(model);
    await kgrag.query('What are the main themes?', { method: 'global', params });
    const data = reduceData(model.calls.find(byPurpose('global-reduce')) as ChatRequest);
    assert.doesNotMatch(data, /irrelevant/);
    const scores = [...data.matchAll(/Importance Score: (\d+)/g)].map((match) => Number(match[1]));
    assert.equal(scores.length, model.calls.filter(byPurpose('global-map')).length * 2);
    assert.deepEqual(scores, [...scores].sort((a, b) => b - a), 'descending scores');
    const analysts = [...data.matchAll(/----Analyst (\d+)----\nImportance Score: 95/g)].map((match) => Number(match[1]));
    assert.deepEqual(analysts, [...analysts].sort((a, b) => a - b), 'equal scores keep batch order');
    await kgrag.close();
  });

  test('when every point scores 0 the canned answer comes without a reduce call', async () => {
    const model = createScriptedLanguageModel({ responses: [{ match: byPurpose('global-map'), reply: mapPoint(() => 0) }] });
    const kgrag = await open(model);
    const result = await kgrag.query('What did the moon landing cost?', { method: 'global', params });
    assert.equal(result.answer.text, noDataAnswer);
    assert.equal(result.citations.length, 0);
    assert.ok(model.calls.every((call) => call.purpose === 'global-map'));
    assert.equal(result.usage.llmCalls, model.calls.length);
    await kgrag.close();
  });

  test('a batch whose reply stays unusable yields no points and is recorded', async () => {
    let mapCalls = 0;
    const model = createScriptedLanguageModel({
      responses: [
        {
          match: byPurpose('global-map'),
          // The first batch and its repair turn both get prose; the other batches answer properly.
          reply: (request) => (request.messages.length > 2 || ++mapCalls === 1 ? 'I would rather not.' : mapPoint(() => 40)(request)),
        },
        { match: byPurpose('global-reduce'), reply: 'Summary.' },
      ],
    });
    const kgrag = await open(model);
    const result = await kgrag.query('What are the main themes?', { method: 'global', params });
    const step = result.trace.steps.find((candidate) => candidate.name === 'global-map');
    const unusable = step?.detail?.unusable as Array<{ analyst: number }>;
    assert.deepEqual(unusable.map((entry) => entry.analyst), [1]);
    const batches = step?.detail?.batches as number;
    assert.doesNotMatch(reduceData(model.calls.find(byPurpose('global-reduce')) as ChatRequest), /----Analyst 1----/);
    assert.equal([...reduceData(model.calls.find(byPurpose('global-reduce')) as ChatRequest).matchAll(/----Analyst/g)].length, batches - 1);
    assert.equal(result.usage.llmCalls, batches + 1 + 1, 'the repair turn is a paid call too');
    await kgrag.close();
  });

  test('Reports citations map hids back to community ids; invented ids are counted', async () => {
    const cited = reports.find((report) => report.level === 2) as ReportRecord;
    const model = createScriptedLanguageModel({
      responses: [
        { match: byPurpose('global-map'), reply: mapPoint(() => 70) },
        { match: byPurpose('global-reduce'), reply: `Floods recur [Data: Reports (${cited.hid}, 9999)].` },
      ],
    });
    const kgrag = await open(model);
    const result = await kgrag.query('How has Kestermouth responded to its repeated floods?', { method: 'global', params });
    assert.deepEqual(
      result.citations.map((citation) => ({ dataset: citation.dataset, hid: citation.hid, id: citation.id, title: citation.title })),
      [{ dataset: 'Reports', hid: cited.hid, id: cited.communityId, title: cited.title }],
    );
    assert.equal(result.trace.unknownReferences, 1);
    await kgrag.close();
  });

  test('the shuffle is fixed by the seed', async () => {
    const kgrag = await open();
    const text = async (shuffleSeed: number) =>
      (await kgrag.query('What are the main themes?', { method: 'global', params: { ...params, shuffleSeed }, contextOnly: true })).context.text;
    const first = await text(86);
    assert.equal(await text(86), first);
    const other = await text(1234);
    assert.notEqual(other, first);
    const hids = (context: string) => rowHids(context).sort((a, b) => a - b);
    assert.deepEqual(hids(other), hids(first), 'the same reports, in another order');
    await kgrag.close();
  });

  test('budgets are never exceeded (random questions, levels and budgets)', async () => {
    const random = createRandom(20240607);
    const questions = ['What are the main themes?', 'How did the economy of Kestermouth change?', 'Who ran the café?', 'Which floods hit the town?', 'What is the Lantern Fair?'];
    const plain = await open();
    for (let round = 0; round < 12; round++) {
      const maxContextTokens = 300 + Math.floor(random() * 5000);
      const communityLevel = Math.floor(random() * 3);
      const question = questions[Math.floor(random() * questions.length)] as string;
      const result = await plain.query(question, { method: 'global', params: { maxContextTokens, communityLevel }, contextOnly: true });
      const tables = tablesOf(result.context.text);
      assert.ok(tables.length > 0);
      for (const table of tables) assert.ok(tokenizer.count(table) <= maxContextTokens, `round ${round}: a batch over ${maxContextTokens}`);
      const select = result.trace.steps.find((step) => step.name === 'global-select');
      assert.equal(rowHids(result.context.text).length, select?.detail?.reports, 'every selected report is in some batch');
    }
    await plain.close();

    const model = createScriptedLanguageModel({
      responses: [
        {
          match: byPurpose('global-map'),
          reply: (request) => ({
            points: rowHids(systemOf(request)).map((hid) => ({ description: `A long point about report ${hid}. `.repeat(1 + (hid % 9)), score: (hid * 13) % 101 })),
          }),
        },
        { match: byPurpose('global-reduce'), reply: 'Summary.' },
      ],
    });
    const kgrag = await open(model);
    for (let round = 0; round < 5; round++) {
      const dataMaxTokens = 60 + Math.floor(random() * 600);
      await kgrag.query(questions[round] as string, { method: 'global', params: { dataMaxTokens, communityLevel: round % 3 } });
      const reduce = model.calls.filter(byPurpose('global-reduce')).at(-1) as ChatRequest;
      assert.ok(tokenizer.count(reduceData(reduce)) <= dataMaxTokens, `round ${round}: reduce data over ${dataMaxTokens}`);
    }
    await kgrag.close();
  });
});

describe('global: dynamic community selection (scripted LLM)', () => {
  /**
   * The communities of each report text, coarsest first. An extractive report can read as one of its sub-communities'
   * (the same top members); the selection rates coarser levels first, so a text rated again is the next community's.
   */
  const communitiesOfContent = (): Map<string, string[]> => {
    const byContent = new Map<string, string[]>();
    for (const report of [...reports].sort((left, right) => left.level - right.level)) byContent.set(report.fullContent, [...(byContent.get(report.fullContent) ?? []), report.communityId]);
    return byContent;
  };
  const atLevel = (level: number) => reports.filter((report) => report.level === level).map((report) => report.communityId);
  const childrenOf = (id: string) => (communities.get(id)?.children ?? []).filter((child) => reports.some((report) => report.communityId === child));

  /** A model that rates each report with `rate(communityId)` and records which ones it rated. */
  const rater = (rate: (communityId: string) => number | string) => {
    const byContent = communitiesOfContent();
    const rated: string[] = [];
    const model = createScriptedLanguageModel({
      responses: [
        {
          match: byPurpose('global-rate'),
          reply: (request) => {
            const id = byContent.get(ratedReport(request))?.shift() as string;
            rated.push(id);
            const rating = rate(id);
            return typeof rating === 'string' ? rating : { reason: 'scripted', rating };
          },
        },
        { match: byPurpose('global-map'), reply: mapPoint(() => 50) },
        { match: byPurpose('global-reduce'), reply: 'Summary.' },
      ],
    });
    return { model, rated };
  };

  test('descends only under relevant reports and drops the parent of a relevant child', async () => {
    const parent = atLevel(0).find((id) => childrenOf(id).some((child) => childrenOf(child).length > 0)) ?? (atLevel(0).find((id) => childrenOf(id).length > 0) as string);
    const child = childrenOf(parent).find((id) => childrenOf(id).length > 0) ?? (childrenOf(parent)[0] as string);
    const { model, rated } = rater((id) => (id === parent ? 4 : id === child ? 2 : 0));
    const kgrag = await open(model);
    const result = await kgrag.query('What are the main themes?', { method: 'global:dynamic' });
    const expected = [...atLevel(0), ...childrenOf(parent), ...childrenOf(child)];
    assert.deepEqual([...rated].sort(), [...expected].sort(), 'level 0, then children of relevant reports only');
    assert.deepEqual(result.context.communities?.map((community) => community.id), [child]);
    assert.equal(result.trace.steps.find((step) => step.name === 'global-rate')?.detail?.rated, expected.length);
    assert.equal(result.usage.llmCalls, model.calls.length, 'rating, map and reduce calls are paid calls of the query');
    assert.equal(model.calls.filter((call) => call.purpose === 'global-rate').length, expected.length);
    assert.equal(result.context.subgraph?.nodes.length, expected.length + 1, 'the subgraph shows every rated report');
    await kgrag.close();

    const keeping = rater((id) => (id === parent ? 4 : id === child ? 2 : 0));
    const kept = await open(keeping.model);
    const withParent = await kept.query('What are the main themes?', { method: 'global', params: { dynamicCommunitySelection: true, dynamicSearchKeepParent: true } });
    assert.deepEqual(withParent.context.communities?.map((community) => community.id).sort(), [parent, child].sort());
    await kept.close();
  });

  test('when a level has nothing relevant every report of the next level is rated, down to the maximum level', async () => {
    const { model, rated } = rater((id) => (communities.get(id)?.level === 1 ? 3 : 0));
    const kgrag = await open(model);
    const result = await kgrag.query('What are the main themes?', { method: 'global:dynamic' });
    const expected = [...atLevel(0), ...atLevel(1), ...atLevel(1).flatMap(childrenOf)];
    assert.deepEqual([...rated].sort(), [...expected].sort());
    assert.deepEqual(result.context.communities?.map((community) => community.id).sort(), [...atLevel(1)].sort());
    assert.deepEqual(result.trace.steps.find((step) => step.name === 'global-rate')?.detail?.fallbackLevels, [1]);
    await kgrag.close();

    const shallow = rater(() => 0);
    const limited = await open(shallow.model);
    const none = await limited.query('What are the main themes?', { method: 'global:dynamic', params: { dynamicSearchMaxLevel: 0 } });
    assert.equal(shallow.rated.length, atLevel(0).length, 'no fallback below the maximum level');
    assert.equal(none.answer.text, noDataAnswer);
    assert.ok(shallow.model.calls.every((call) => call.purpose === 'global-rate'), 'nothing selected: no map, no reduce');
    await limited.close();
  });

  test('an unparseable rating counts as 1 (relevant at the default threshold)', async () => {
    const { model, rated } = rater(() => 'no idea');
    const kgrag = await open(model);
    const result = await kgrag.query('What are the main themes?', { method: 'global:dynamic' });
    assert.equal(rated.length, reports.length, 'every report is reached when all are relevant');
    assert.equal(result.trace.steps.find((step) => step.name === 'global-rate')?.detail?.defaulted, reports.length);
    const leaves = reports.filter((report) => childrenOf(report.communityId).length === 0).map((report) => report.communityId);
    assert.deepEqual(result.context.communities?.map((community) => community.id).sort(), leaves.sort(), 'parents give way to their relevant children');
    await kgrag.close();
  });
});

describe('global without an LLM', () => {
  test('answers a "main themes" question with diverse, cited report points', async () => {
    const kgrag = await open();
    const result = await kgrag.query('What are the main themes of these documents?', { method: 'global' });
    assert.equal(result.answer.kind, 'extractive');
    assert.equal(result.answer.label, extractiveLabel);
    const lines = result.answer.text.split('\n');
    assert.ok(lines.length >= 3 && lines.length <= 5, result.answer.text);
    for (const line of lines) assert.match(line, /\[Data: Reports \(\d+\)\]$/);
    assert.ok(result.citations.length >= 3 && result.citations.every((citation) => citation.dataset === 'Reports'));
    assert.equal(new Set(result.citations.map((citation) => citation.id)).size, result.citations.length, 'one point per community');
    for (const citation of result.citations) {
      const report = reports.find((candidate) => candidate.communityId === citation.id);
      assert.equal(report?.hid, citation.hid);
      assert.ok(report && report.level <= 2);
    }
    assert.equal(result.usage.llmCalls, 0);
    assert.ok(result.context.tokens > 0 && result.context.tokens <= 12_000);
    assert.equal(result.trace.steps.some((step) => step.name === 'global-batches'), false, 'no batches are built for a quoted answer');
    await kgrag.close();
  });

  test('retrieval ranks the selected communities and returns the top-k passages of the best ones', async () => {
    const kgrag = await open();
    const retrieved = await kgrag.retrieve('How has Kestermouth responded to its repeated floods?', { method: 'global', params: { k: 4 } });
    const { chunks, communities: ranked = [] } = retrieved.retrieval;
    assert.equal(chunks.length, 4);
    assert.deepEqual(chunks.map((chunk) => chunk.score), [...chunks.map((chunk) => chunk.score)].sort((a, b) => b - a));
    assert.equal(new Set(chunks.map((chunk) => chunk.id)).size, chunks.length);
    const select = retrieved.trace.find((step) => step.name === 'global-select');
    assert.equal(ranked.length, select?.detail?.reports);
    const pooled = new Set(ranked.flatMap((community) => community.chunkIds));
    assert.ok(chunks.every((chunk) => pooled.has(chunk.id)), 'passages come from the selected communities');
    const again = await kgrag.retrieve('How has Kestermouth responded to its repeated floods?', { method: 'global', params: { k: 4 } });
    assert.deepEqual(again.retrieval.chunks.map((chunk) => chunk.id), chunks.map((chunk) => chunk.id), 'deterministic');
    await kgrag.close();
  });
});
