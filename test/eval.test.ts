import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createKgrag, type Kgrag } from '../src/api/create-kgrag.js';
import { type CliRun, runCliCaptured } from './helpers/run-cli-captured.js';
import type { EvalDataset } from '../src/eval/eval-dataset.js';
import { resolveNamedDataset } from '../src/eval/datasets/named-datasets.js';
import { renderMarkdownReport, writeEvaluationFiles } from '../src/eval/evaluation-report-files.js';
import { expandMethods, runEvaluation, type EvaluationResult } from '../src/eval/run-evaluation.js';
import { createScriptedLanguageModel } from '../src/testing/index.js';

const root = mkdtempSync(join(tmpdir(), 'kgrag-eval-'));

/** A passage of a hand-built dataset, keyed by its title and text. */
function passage(title: string, text: string): EvalDataset['passages'][number] {
  return { key: `${title}\n${text}`, title, text };
}

/** `basic:bm25` evaluated with extractive answers on a hand-built dataset, in a workspace of its own. */
async function extractiveEvaluation(workspace: string, passages: EvalDataset['passages'], questions: EvalDataset['questions']): Promise<EvaluationResult> {
  const kgrag = await createKgrag({ workspace: join(root, workspace), env: {}, config: { pipeline: { methods: ['basic'] } } });
  try {
    return await runEvaluation({ kgrag, dataset: { name: 'mills', passages, questions }, methods: ['basic:bm25'], extractive: true });
  } finally {
    await kgrag.close();
  }
}
after(() => rmSync(root, { recursive: true, force: true }));

const requiredKeys = [
  'recall@1',
  'recall@2',
  'recall@5',
  'recall@10',
  'ar@2',
  'ar@5',
  'em',
  'f1',
  'latency_ms_p50',
  'latency_ms_p95',
  'llm_calls',
  'tokens_in',
  'tokens_out',
];

describe('evaluation on the sample dataset without an LLM', () => {
  let dataset: EvalDataset;
  let kgrag: Kgrag;
  let result: EvaluationResult;

  before(async () => {
    dataset = await resolveNamedDataset('sample');
    kgrag = await createKgrag({ workspace: join(root, 'retrieval'), env: {} });
    result = await runEvaluation({ kgrag, dataset, methods: ['all'], limit: 12 });
  });
  after(() => kgrag.close());

  test('reports every registered method and variant with the report.json schema', () => {
    assert.equal(result.report.dataset, 'sample');
    assert.equal(result.report.n, 12);
    assert.deepEqual(Object.keys(result.report.methods), ['basic:hybrid', 'basic:bm25', 'basic:dense', 'local', 'global:static', 'global:dynamic', 'drift', 'ppr:v2', 'ppr:v1', 'relations', 'kgp:lexical-agent', 'kgp:kg-tfidf', 'kgp:tfidf', 'kgp:bm25', 'kgp:agent', 'kgp:agent-iterative', 'autokg:paper', 'autokg:notebook', 'tot']);
    for (const [name, method] of Object.entries(result.report.methods)) {
      for (const key of requiredKeys) assert.ok(key in method, `missing ${key}`);
      // tot cannot run without an LLM: every question failed, so it has no recall rather than 0.
      const failed = name === 'tot';
      assert.equal(method.errors, failed ? 12 : 0, name);
      // Each Recall@k is the mean over the questions of |gold ∩ first k retrieved passages| / |gold|, in percent,
      // recomputed here from the per-question rows (the retrieved passages, distinct, in rank order).
      const rows = result.questions.filter((row) => row.method === name);
      assert.equal(rows.length, 12, name);
      for (const k of [1, 2, 5, 10]) {
        const value = method[`recall@${k}`];
        if (failed) {
          assert.equal(value, null);
          continue;
        }
        const recalls = rows.map((row) => {
          const top = new Set(row.retrieved.slice(0, k).map((item) => item.key));
          return row.gold.filter((key) => top.has(key)).length / row.gold.length;
        });
        assert.equal(value, Math.round((10_000 * recalls.reduce((sum, recall) => sum + recall, 0)) / recalls.length) / 100, `${name} recall@${k}`);
      }
      assert.equal(method.em, null, 'no LLM: no generated answers to score');
      assert.equal(method.llm_calls, 0);
    }
  });

  test('Recall@k and AR@k on a hand-built case: passages counted once, questions without gold left out', async () => {
    // Sentence chunks of 12 tokens split "Tom Reed" into three chunks. BM25 ranks, for "Who kept the Hollins lock?",
    // the chunks of Tom Reed, Hollins lock, Tom Reed, Ann Reed, Tom Reed (checked below); as passages, counted once
    // at their best rank: Tom Reed, Hollins lock, Ann Reed. Its gold is Tom Reed and Ann Reed: Recall@1 = Recall@2 =
    // 1/2, Recall@3 = Recall@5 = 2/2; AR@k (all gold in the top k) = 0, 0, 1, 1. "When did the mill close?" finds
    // its one gold passage first: 1 at every k. "When was the flood wall finished?" has no gold passage and is left
    // out of the means. Means in percent: Recall@k = 75, 75, 100, 100 and AR@k = 50, 50, 100, 100. Counting chunks
    // instead of passages would give Recall@3 = 75 (Tom Reed twice in the top 3); counting the question without
    // gold as 0 would give two thirds of each.
    const passage = (title: string, text: string): EvalDataset['passages'][number] => ({ key: `${title}\n${text}`, title, text });
    const reed = passage('Tom Reed', 'Tom Reed kept the Hollins lock for forty years. The Hollins lock keeper lived in the lock cottage beside the Hollins lock.');
    const rebuilt = passage('Hollins lock', 'The Hollins lock was rebuilt in 1890.');
    const ann = passage('Ann Reed', 'Ann Reed kept the lock after her father died.');
    const mill = passage('Sedley Mill', 'The mill closed in 1966 after a fire.');
    const wall = passage('Flood wall', 'The flood wall was finished in 1971.');
    const locks = await createKgrag({ workspace: join(root, 'locks'), env: {}, config: { chunking: { strategy: 'sentences', size: 12, overlap: 0 }, pipeline: { methods: ['basic'] } } });
    try {
      const { report, questions } = await runEvaluation({
        kgrag: locks,
        dataset: {
          name: 'locks',
          passages: [reed, rebuilt, ann, mill, wall],
          questions: [
            { id: 'keepers', question: 'Who kept the Hollins lock?', answers: [], goldKeys: [reed.key, ann.key] },
            { id: 'mill', question: 'When did the mill close?', answers: [], goldKeys: [mill.key] },
            { id: 'wall', question: 'When was the flood wall finished?', answers: [], goldKeys: [] },
          ],
        },
        methods: ['basic:bm25'],
        cutoffs: [1, 2, 3, 5],
      });
      const chunks = (await locks.retrieve('Who kept the Hollins lock?', { method: 'basic:bm25' })).retrieval.chunks.map((chunk) => chunk.documentTitle);
      assert.deepEqual(chunks, ['Tom Reed', 'Hollins lock', 'Tom Reed', 'Ann Reed', 'Tom Reed']);
      assert.deepEqual(questions.find((row) => row.id === 'keepers')?.retrieved.map((item) => item.title), ['Tom Reed', 'Hollins lock', 'Ann Reed']);
      const method = report.methods['basic:bm25'];
      assert.ok(method);
      assert.equal(method.questions_with_gold, 2);
      assert.deepEqual(
        [1, 2, 3, 5].map((k) => [method[`recall@${k}`], method[`ar@${k}`]]),
        [
          [75, 50],
          [75, 50],
          [100, 100],
          [100, 100],
        ],
      );
    } finally {
      await locks.close();
    }
  });

  test('extractive answers are scored when asked: EM-in of the quoted text and the share of quoted sentences from gold passages', async () => {
    const mill = passage('Sedley Mill', 'The Sedley mill closed in 1966 after a fire. The mill ground oats for the valley farms.');
    const fire = passage('Valley fires', 'A fire in 1966 also destroyed the Marle boatworks. Fires were common in the valley mills.');
    const wall = passage('Flood wall', 'The flood wall was finished in 1971 after the great flood.');
    const { report, questions } = await extractiveEvaluation('extractive', [mill, fire, wall], [
      { id: 'mill', question: 'When did the Sedley mill close?', answers: ['1966'], goldKeys: [mill.key] },
      { id: 'wall', question: 'When was the flood wall finished?', answers: ['1971'], goldKeys: [wall.key] },
    ]);
    const method = report.methods['basic:bm25'];
    assert.ok(method);
    assert.equal(method.em, null, 'no LLM: no generated answer');
    const rows = questions.filter((row) => row.method === 'basic:bm25');
    for (const row of rows) {
      assert.equal(row.answerKind, 'extractive');
      assert.ok((row.quotedSentences?.total ?? 0) > 0, `${row.id} quotes sentences`);
    }
    // Recomputed from the rows: the mean over questions of gold quotes / quotes, in percent.
    const shares = rows.map((row) => (row.quotedSentences?.fromGold ?? 0) / (row.quotedSentences?.total ?? 1));
    assert.equal(method.answer_sentence_precision, Math.round((10_000 * shares.reduce((sum, share) => sum + share, 0)) / shares.length) / 100);
    assert.equal(method.extractive_em_in, 100, 'both answers quote the year');
    const millRow = rows.find((row) => row.id === 'mill');
    assert.match(millRow?.answer ?? '', /closed in 1966/);
    const markdown = renderMarkdownReport(report);
    assert.match(markdown, /sentence precision \(extractive\)/);
  });

  test('extractive EM-in reads only what an answer quotes: not a refusal\'s words, not its citation markers', async () => {
    const mill = passage('Sedley Mill', 'The Sedley mill ground oats for the valley farms. It closed after a fire.');
    const wall = passage('Flood wall', 'The flood wall was finished after the great flood.');
    const { report, questions } = await extractiveEvaluation('extractive-refusal', [mill, wall], [
      // Nothing answers: the refusal ("… no sentence in them shares enough of its words") holds the word "no".
      { id: 'lighthouse', question: 'Is the Sedley lighthouse painted blue and white?', answers: ['no'], goldKeys: [] },
      // The answer quotes the mill's passage, cited "[Data: Sources (1)]"; the quoted sentence holds no "1".
      { id: 'oats', question: 'How many valley farms did the Sedley mill grind oats for?', answers: ['1'], goldKeys: [mill.key] },
    ]);
    const rows = questions.filter((row) => row.method === 'basic:bm25');
    assert.match(rows.find((row) => row.id === 'lighthouse')?.answer ?? '', /do not answer this question: no sentence/);
    assert.match(rows.find((row) => row.id === 'oats')?.answer ?? '', /ground oats for the valley farms\. \[Data: Sources \(1\)\]/);
    assert.equal(report.methods['basic:bm25']?.extractive_em_in, 0, 'neither answer holds its gold answer in what it quotes');
  });

  test('each method says how its passages were ranked: its own ranking, a fallback without an LLM, or a proxy', () => {
    const kinds = Object.fromEntries(Object.entries(result.report.methods).map(([name, method]) => [name, method.ranking.map((count) => `${count.kind} ${count.questions}`).join(', ')]));
    for (const name of ['basic:bm25', 'local', 'ppr:v2', 'kgp:kg-tfidf', 'autokg:paper']) assert.equal(kinds[name], 'native 12', name);
    for (const name of ['kgp:agent', 'kgp:agent-iterative', 'global:dynamic']) assert.equal(kinds[name], 'fallback 12', name);
    for (const name of ['global:static', 'drift']) assert.equal(kinds[name], 'proxy 12', name);
    assert.equal(kinds['tot'], '', 'no question of tot retrieved anything');
    assert.match(result.report.methods['tot']?.error_message ?? '', /the tot method needs an LLM/);
    assert.equal(result.report.methods['kgp:agent']?.ranking[0]?.note, 'no LLM: kg-tfidf instead of the agent');
    const row = result.questions.find((item) => item.method === 'kgp:agent');
    assert.equal(row?.ranking?.kind, 'fallback', 'the per-question rows carry the ranking too');
    // The fallback ranks exactly as the variant it falls back to.
    const sameAs = (name: string): unknown => result.questions.filter((item) => item.method === name).map((item) => item.retrieved);
    assert.deepEqual(sameAs('kgp:agent'), sameAs('kgp:kg-tfidf'));
  });

  test('single-hop questions find their passage; per-question rows say what was retrieved', () => {
    const row = result.questions.find((item) => item.method === 'basic:bm25' && item.id === 'q11');
    assert.ok(row, 'q11 was evaluated');
    assert.ok(row.retrieved.length > 0);
    assert.equal(new Set(row.retrieved.map((item) => item.key)).size, row.retrieved.length, 'passages are de-duplicated');
    const singleHop = result.questions.filter((item) => item.method === 'basic:bm25' && dataset.questions.find((question) => question.id === item.id)?.type === 'single-hop');
    for (const item of singleHop) assert.equal(item.hits['recall@10'], 1, `${item.id} found its passage`);
  });

  test('a second run reuses the index, and the files are written beside report.json', async () => {
    const again = await runEvaluation({ kgrag, dataset, methods: ['basic:bm25'], limit: 3, cutoffs: [3] });
    assert.ok('recall@3' in (again.report.methods['basic:bm25'] ?? {}));
    const files = await writeEvaluationFiles(again, join(root, 'out', 'report.json'));
    assert.deepEqual(JSON.parse(readFileSync(files.json, 'utf8')), again.report);
    assert.match(readFileSync(files.markdown, 'utf8'), /\| `basic:bm25` \|/);
    assert.match(readFileSync(files.chart, 'utf8'), /^<svg [^>]*>[\s\S]*Recall@5[\s\S]*<\/svg>\n$/);
    assert.equal(readFileSync(files.questions, 'utf8').trim().split('\n').length, 3);
  });

  test('expandMethods lists variants for "all" and keeps explicit names', () => {
    assert.deepEqual(expandMethods(kgrag.engine.methods, ['basic:bm25', 'all']), ['basic:bm25', 'basic:hybrid', 'basic:dense', 'local', 'global:static', 'global:dynamic', 'drift', 'ppr:v2', 'ppr:v1', 'relations', 'kgp:lexical-agent', 'kgp:kg-tfidf', 'kgp:tfidf', 'kgp:bm25', 'kgp:agent', 'kgp:agent-iterative', 'autokg:paper', 'autokg:notebook', 'tot']);
  });
});

describe('evaluation with an LLM (scripted): answer metrics and graded accuracy', () => {
  test('EM, F1, EM-in and accuracy are measured, and grading failures stay in the denominator', async () => {
    const dataset: EvalDataset = {
      name: 'tiny',
      passages: [
        { key: 'Weir\nThe weir was rebuilt in 1952 by the county.', title: 'Weir', text: 'The weir was rebuilt in 1952 by the county.' },
        { key: 'Mill\nThe mill closed in 1966 after a fire.', title: 'Mill', text: 'The mill closed in 1966 after a fire.' },
      ],
      questions: [
        { id: 'a', question: 'When was the weir rebuilt?', answers: ['1952'], goldKeys: ['Weir\nThe weir was rebuilt in 1952 by the county.'] },
        { id: 'b', question: 'When did the mill close?', answers: ['1966', 'in 1966'], goldKeys: ['Mill\nThe mill closed in 1966 after a fire.'] },
      ],
    };
    const llm = createScriptedLanguageModel({
      responses: [
        { match: /could not be read as a grade/, reply: 'Still probably correct' },
        { match: /Prediction: "?1952/, reply: '1' },
        { match: /Prediction: "?The mill/, reply: 'Probably correct' },
        { match: /weir rebuilt/, reply: '1952' },
        { match: /mill close/, reply: 'The mill closed in 1966 [Data: Sources (2)].' },
      ],
    });
    const kgrag = await createKgrag({ workspace: join(root, 'answers'), env: {}, llm });
    try {
      const { report, questions } = await runEvaluation({ kgrag, dataset, methods: ['basic:bm25'] });
      const method = report.methods['basic:bm25'];
      assert.ok(method);
      assert.equal(method.em, 50, 'one exact answer of two');
      // F1: "1952" is exact (1); "The mill closed in 1966 [Data: Sources (2)]." is scored without its marker, as the 4
      // tokens "mill closed in 1966", of which "in 1966" holds 2: precision 2/4, recall 1, F1 2/3. The mean is 5/6.
      assert.equal(method.f1, Math.round(10_000 * (5 / 6)) / 100);
      assert.equal(method.em_in, 100, 'both predictions contain a gold answer');
      assert.equal(method.accuracy_failures, 1, 'the unreadable grade is a failure');
      assert.equal(method.accuracy, 50, 'and counts as wrong, not as missing');
      // Two answers; one grade for a, and for b a grade that cannot be read and the one re-ask it is allowed.
      assert.equal(method.llm_calls, 5, 'answers and grades are counted');
      assert.equal(questions.find((row) => row.id === 'a')?.grade, 1);
      assert.equal(questions.find((row) => row.id === 'b')?.grade, null);
    } finally {
      await kgrag.close();
    }
  });

  test('LLM answers are scored on what they say, not on their citation markers', async () => {
    const dataset: EvalDataset = {
      name: 'cited',
      passages: [{ key: 'Weir\nThe weir was rebuilt in 1952 by the county.', title: 'Weir', text: 'The weir was rebuilt in 1952 by the county.' }],
      questions: [
        { id: 'year', question: 'When was the weir rebuilt?', answers: ['1952'], goldKeys: ['Weir\nThe weir was rebuilt in 1952 by the county.'] },
        { id: 'arches', question: 'How many arches does the weir have?', answers: ['7'], goldKeys: ['Weir\nThe weir was rebuilt in 1952 by the county.'] },
      ],
    };
    const llm = createScriptedLanguageModel({
      responses: [
        { match: /Prediction:/, reply: '1' },
        { match: /weir rebuilt/, reply: '1952 [Data: Sources (1)]' },
        { match: /arches/, reply: 'The weir was rebuilt in 1952 [Data: Sources (7)].' },
      ],
    });
    const kgrag = await createKgrag({ workspace: join(root, 'cited'), env: {}, llm });
    try {
      const { report, questions } = await runEvaluation({ kgrag, dataset, methods: ['basic:bm25'] });
      const method = report.methods['basic:bm25'];
      assert.ok(method);
      const year = questions.find((row) => row.id === 'year');
      assert.equal(year?.em, 1, '"1952 [Data: Sources (1)]" is the answer 1952, exactly');
      assert.equal(year?.f1, 1);
      assert.equal(questions.find((row) => row.id === 'arches')?.em, 0);
      assert.equal(method.em_in, 50, 'the marker "(7)" is not the answer 7');
      // The answer as the model gave it, markers included, stays in the per-question rows.
      assert.equal(year?.answer, '1952 [Data: Sources (1)]');
    } finally {
      await kgrag.close();
    }
  });
});

describe('kgrag eval (CLI)', () => {
  test('--json prints the report and writes the files; bad arguments are one-line errors', async () => {
    const run = (args: string[]): Promise<CliRun> => runCliCaptured(args, { cwd: root, env: {} });
    const result = await run(['eval', '--dataset', 'sample', '--methods', 'basic:bm25,basic:dense', '--limit', '4', '--json', '-q']);
    assert.equal(result.code, 0, result.stderr);
    const report = JSON.parse(result.stdout) as { dataset: string; n: number; methods: Record<string, Record<string, unknown>> };
    assert.equal(report.n, 4);
    assert.deepEqual(Object.keys(report.methods), ['basic:bm25', 'basic:dense']);
    for (const name of ['report.json', 'report.md', 'report.svg', 'report.questions.jsonl']) {
      assert.ok(existsSync(join(root, 'kgrag-eval', 'sample', name)), name);
    }
    const unknown = await run(['eval', '--dataset', 'nope', '-q']);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /^kgrag: error: .*nope.* — .*\n$/);
    const missing = await run(['eval', '-q']);
    assert.match(missing.stderr, /no dataset given — pass --dataset/);
    const badK = await run(['eval', '--dataset', 'sample', '--k', '2,x']);
    assert.match(badK.stderr, /--k "2,x" is not a list of positive integers/);
  });
});

describe('kgrag eval without an LLM: errors and fallbacks in every format', () => {
  test('tot is marked as failing on every question and kgp:agent as a fallback in stdout, stderr, report.json, .md and .svg', async () => {
    const out = join(root, 'marks', 'report.json');
    const result = await runCliCaptured(['eval', '--dataset', 'sample', '--methods', 'tot,kgp:agent,basic:bm25', '--limit', '3', '-o', out], { cwd: root, env: {} });
    assert.equal(result.code, 0, result.stderr);
    const fallback = 'fallback on 3/3 questions: no LLM: kg-tfidf instead of the agent';
    const error = 'error on 3/3 questions: the tot method needs an LLM to walk the knowledge graph, and none is configured';

    // The progress log on stderr.
    assert.match(result.stderr, new RegExp(`^tot: ${error}$`, 'm'));
    assert.match(result.stderr, /^kgp:agent: R@2 [\d.]+ R@5 [\d.]+ \(p50 [\d.]+ ms\) — fallback on 3\/3 questions: no LLM: kg-tfidf instead of the agent$/m);
    assert.match(result.stderr, /^basic:bm25: R@2 [\d.]+ R@5 [\d.]+ \(p50 [\d.]+ ms\)$/m);

    // The table on stdout and in report.md: a status column, no number for tot, notes that say why.
    const markdown = readFileSync(join(root, 'marks', 'report.md'), 'utf8');
    for (const table of [result.stdout, markdown]) {
      assert.match(table, /^\| method \| status \| R@1 \|/m);
      assert.match(table, /^\| `tot` \| error \(3\/3\) \| error \| error \| error \| error \|/m);
      assert.match(table, /^\| `kgp:agent` \| fallback \(3\/3\) \| [\d.]+ \|/m);
      assert.match(table, /^\| `basic:bm25` \| ok \| [\d.]+ \|/m);
      assert.ok(table.includes(`- \`tot\`: ${error}`), table);
      assert.ok(table.includes(`- \`kgp:agent\`: ${fallback}`), table);
    }

    // report.json: no recall for tot, the error, and how kgp:agent's passages were ranked.
    const report = JSON.parse(readFileSync(out, 'utf8')) as EvaluationResult['report'];
    assert.equal(report.methods['tot']?.errors, 3);
    assert.equal(report.methods['tot']?.['recall@2'], null);
    assert.match(report.methods['tot']?.error_message ?? '', /needs an LLM/);
    assert.deepEqual(report.methods['kgp:agent']?.ranking, [{ kind: 'fallback', note: 'no LLM: kg-tfidf instead of the agent', questions: 3 }]);
    assert.deepEqual(report.methods['basic:bm25']?.ranking, [{ kind: 'native', note: null, questions: 3 }]);

    // report.svg: tot has no bars, only its error; kgp:agent is labelled a fallback, with the note below.
    const svg = readFileSync(join(root, 'marks', 'report.svg'), 'utf8');
    assert.doesNotMatch(svg, /<title>tot /);
    assert.match(svg, />error \(3\/3\)</);
    assert.match(svg, />fallback \(3\/3\)</);
    assert.ok(svg.includes(`>kgp:agent: ${fallback}<`), 'the fallback note');
    assert.ok(svg.includes('>tot: error on 3/3 questions:'), 'the error note');
  });
});

describe('global questions and the pairwise judge, through the CLI and real HTTP', () => {
  test('generate-questions writes the custom format; eval --judge compares two methods on them', async () => {
    const { startMockOpenAiServer } = await import('../src/testing/index.js');
    const { writeFileSync } = await import('node:fs');
    const server = await startMockOpenAiServer({
      reply(request) {
        const text = request.messages.map((message) => message.content).join('\n');
        if (text.includes('{"personas"')) return { personas: ['a historian', 'a planner'] };
        if (text.includes('{"tasks"')) return { tasks: ['trace change'] };
        if (text.includes('{"questions"')) return { questions: [`What changed for ${text.includes('historian') ? 'historians' : 'planners'}?`] };
        // The judge prefers whichever answer is longer, whatever its position.
        if (text.includes('"winner"')) {
          const first = /Answer 1---\s*([\s\S]*?)\s*---/.exec(text)?.[1] ?? '';
          const second = /Answer 2---\s*([\s\S]*?)\s*---/.exec(text)?.[1] ?? '';
          return { reason: 'more detail', winner: first.length >= second.length ? 1 : 2 };
        }
        const sources = /-----Sources-----\nid\|title\|text\n([\s\S]*)$/m.exec(text)?.[1]?.split('\n') ?? [];
        return sources.map((row) => row.split('|')[2] ?? '').join(' ').slice(0, 40) + ' [Data: Sources (1)]';
      },
    });
    const run = (args: string[]): Promise<CliRun> => runCliCaptured(args, { cwd: root, env: { KGRAG_LLM_BASE_URL: server.url, KGRAG_LLM_MAX_RETRIES: '1' } });
    try {
      const questionsFile = join(root, 'global-questions.jsonl');
      const generated = await run(['generate-questions', '--description', 'history of a river town', '--personas', '2', '--tasks', '1', '--questions', '1', '-o', questionsFile, '-w', join(root, 'generate-ws')]);
      assert.equal(generated.code, 0, generated.stderr);
      const lines = readFileSync(questionsFile, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { id: string; answers: unknown[] });
      assert.deepEqual(lines.map((line) => line.id), ['g001', 'g002']);
      const corpusFile = join(root, 'corpus.jsonl');
      writeFileSync(corpusFile, [
        { title: 'Mill', text: 'The mill closed in 1966 and became offices, a museum and a car wash with many visitors every summer.' },
        { title: 'Weir', text: 'The weir was rebuilt.' },
      ].map((record) => JSON.stringify(record)).join('\n'));
      const evaluated = await run(['eval', '--corpus', corpusFile, '--questions', questionsFile, '--methods', 'basic:bm25,basic:dense', '--judge', 'basic:bm25,basic:dense', '--json', '-q', '-w', join(root, 'judge-ws'), '-o', join(root, 'judge', 'report.json')]);
      assert.equal(evaluated.code, 0, evaluated.stderr);
      const report = JSON.parse(evaluated.stdout) as { judge: Record<string, Record<string, { winRateA: number; winRateB: number; comparisons: number }>> };
      const tally = report.judge['basic:bm25 vs basic:dense'];
      assert.ok(tally, 'the pair was judged');
      assert.deepEqual(Object.keys(tally), ['comprehensiveness', 'diversity', 'empowerment', 'directness']);
      for (const criterion of Object.values(tally)) {
        assert.equal(criterion.comparisons, 2 * 5 * 2, 'questions × repeats × both orders');
        assert.equal(criterion.winRateA + criterion.winRateB, 100);
      }
      const judged = readFileSync(join(root, 'judge', 'report.md'), 'utf8');
      assert.match(judged, /## Pairwise judge: basic:bm25 vs basic:dense/);
      // Wins of each side and ties are shares of one whole: every row sums to exactly 100.0.
      const rows = [...judged.matchAll(/^\| (comprehensiveness|diversity|empowerment|directness) \| ([\d.]+) \| ([\d.]+) \| ([\d.]+) \|/gm)];
      assert.equal(rows.length, 4);
      for (const row of rows) assert.equal(Math.round(Number(row[2]) * 10) + Math.round(Number(row[3]) * 10) + Math.round(Number(row[4]) * 10), 1000, row[0]);
    } finally {
      await server.close();
    }
  });
});
