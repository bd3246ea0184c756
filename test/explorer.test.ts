/*
 * The web explorer end to end, in Debian's chromium through playwright-core: the explorer built from web/ by vite, served
 * by `kgrag serve` (in this process) over the fast index of the sample corpus, driven as a user drives it. With
 * KGRAG_SCREENSHOTS=<folder> each view is saved as a PNG there.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { createKgrag } from '../src/api/create-kgrag.js';
import { resolveNamedDataset } from '../src/eval/datasets/named-datasets.js';
import { writeEvaluationFiles } from '../src/eval/evaluation-report-files.js';
import { runEvaluation } from '../src/eval/run-evaluation.js';
import type { ServedWorkspaces } from '../src/server/index.js';
import { launchBrowser, markTime, screenshot, watchPageProblems } from './helpers/browser.js';
import { sampleWorkspace, startTestServer } from './helpers/test-server.js';

const root = fileURLToPath(new URL('..', import.meta.url));
let scratch: string;
let server: ServedWorkspaces;
let browser: Browser;
let page: Page;
let problems: ReturnType<typeof watchPageProblems>;

before(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'kgrag-explorer-'));
  // The explorer as the sources are now (dist/web may be older than web/ in a working copy).
  const { build } = await import('vite');
  const webDirectory = join(scratch, 'web');
  const [directory] = await Promise.all([
    sampleWorkspace(),
    build({ configFile: join(root, 'web', 'vite.config.ts'), logLevel: 'error', build: { outDir: webDirectory, emptyOutDir: true } }),
  ]);
  server = await startTestServer({ directory, webDirectory });
  browser = await launchBrowser();
  page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  problems = watchPageProblems(page);
});

after(async () => {
  await browser?.close();
  await server?.close();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

async function openView(name: string): Promise<void> {
  await page.click(`nav [role=tab][data-view=${name}]`);
  await page.waitForSelector(`section.view[data-view=${name}]:not([hidden])`);
}

async function searchEntity(name: string): Promise<void> {
  await openView('graph');
  await page.fill('[data-testid=entity-search]', name);
  await page.waitForSelector(`[data-testid=entity-suggestions] li:has-text("${name}")`);
  await page.press('[data-testid=entity-search]', 'Enter');
  await page.waitForSelector(`[data-testid=entity-panel] h2:text-is("${name}")`);
}

test('the graph view draws the top entities coloured by community, and says that answers are extractive', async () => {
  await page.goto(`${server.url}/`);
  const drawnMs = await markTime(page, 'kgrag:graph-drawn');
  assert.ok(drawnMs > 0);
  const drawn = Number(await page.getAttribute('[data-testid=graph-canvas]', 'data-drawn'));
  assert.ok(drawn > 50, `the graph shows the sample's entities (${drawn})`);
  assert.match(await page.textContent('[data-testid=no-llm]') ?? '', /extractive/);
  // The canvas has pixels of more than one community colour: the WebGL drawing happened.
  const colours = await page.evaluate(() => {
    const canvases = [...document.querySelectorAll('[data-testid=graph-canvas] canvas')] as HTMLCanvasElement[];
    const seen = new Set<string>();
    for (const canvas of canvases) {
      const copy = document.createElement('canvas');
      copy.width = canvas.width;
      copy.height = canvas.height;
      const context = copy.getContext('2d');
      if (!context || canvas.width === 0) continue;
      context.drawImage(canvas, 0, 0);
      const { data } = context.getImageData(0, 0, copy.width, copy.height);
      for (let index = 0; index < data.length; index += 4 * 97) if ((data[index + 3] ?? 0) > 0) seen.add(`${data[index]},${data[index + 1]},${data[index + 2]}`);
    }
    return seen.size;
  });
  assert.ok(colours >= 4, `community colours are drawn (${colours} distinct colours sampled)`);
  await screenshot(page, '01-graph');
});

test('search "Kester Weir Bridge", open its panel, a source passage, and its neighbours', async () => {
  await searchEntity('Kester Weir Bridge');
  const panel = await page.textContent('[data-testid=entity-panel]');
  assert.match(panel ?? '', /three-span|concrete|bridge/i);
  await screenshot(page, '02-entity');
  await page.click('[data-testid=entity-panel] [data-testid=source-passage] >> nth=0');
  await page.waitForSelector('[data-testid=chunk-panel]');
  assert.match((await page.textContent('[data-testid=chunk-panel] blockquote')) ?? '', /\w{4,}/);
  await screenshot(page, '03-passage');
  await searchEntity('Kester Weir Bridge');
  const before = await page.textContent('[data-testid=graph-size]');
  await page.click('[data-testid=expand-neighbours]');
  await page.waitForFunction((previous) => document.querySelector('[data-testid=graph-size]')?.textContent !== previous, before);
});

async function ask(question: string, method: string): Promise<void> {
  await openView('query');
  await page.fill('[data-testid=query-question]', question);
  await page.selectOption('[data-testid=query-method]', method);
  await page.click('[data-testid=query-run]');
  await page.waitForSelector('[data-testid=answer-text]');
  await page.waitForSelector('[data-testid=query-output] [data-testid=subgraph-canvas][data-drawn]');
}

test('a question with ppr and with local: the answer, its citations and the retrieved subgraph are shown', async () => {
  for (const method of ['ppr', 'local']) {
    await ask('Who designed the Kester Weir Bridge?', method);
    const answer = (await page.textContent('[data-testid=answer-text]')) ?? '';
    assert.match(answer, /Kester|weir|bridge/i, `${method} answered from the corpus`);
    assert.match((await page.textContent('[data-testid=answer-kind]')) ?? '', /extractive/i);
    assert.ok((await page.locator('[data-testid=citations] li').count()) > 0, `${method} cites its sources`);
    const nodes = Number(await page.getAttribute('[data-testid=query-output] [data-testid=subgraph-canvas]', 'data-drawn'));
    assert.ok(nodes > 2, `${method}'s retrieved subgraph is drawn (${nodes} nodes)`);
    assert.ok((await page.locator('[data-testid=passages] [data-testid=passage]').count()) > 0);
    await screenshot(page, `04-query-${method}`);
  }
  // A citation opens its passage in the side panel.
  await ask('Who designed the Kester Weir Bridge?', 'ppr');
  await page.click('[data-testid=answer-ref] >> nth=0');
  await page.waitForSelector('[data-testid=chunk-panel]');
});

test('compare mode: two methods side by side, with Recall@k against the gold passages of an evaluation file', async () => {
  await openView('compare');
  const methods = page.locator('[data-testid=compare-method]');
  await methods.nth(0).selectOption('ppr');
  await methods.nth(1).selectOption('kgp');
  await page.setInputFiles('[data-testid=compare-eval-file]', join(root, 'examples', 'sample-questions.jsonl'));
  await page.waitForSelector('[data-testid=compare-eval-question] option >> nth=1', { state: 'attached' });
  await page.selectOption('[data-testid=compare-eval-question]', { index: 1 });
  await page.click('[data-testid=compare-run]');
  const columns = page.locator('[data-testid=compare-column]');
  await page.waitForFunction(() => document.querySelectorAll('[data-testid=compare-column] [data-testid=answer-text]').length === 2);
  assert.deepEqual(await columns.evaluateAll((found) => found.map((column) => column.getAttribute('data-method'))), ['ppr', 'kgp']);
  await page.waitForFunction(() => document.querySelectorAll('[data-testid=compare-recall] .recall-value[data-value]').length >= 2);
  const recalls = await page.locator('[data-testid=compare-recall] .recall-value[data-value]').evaluateAll((found) => found.map((value) => Number(value.getAttribute('data-value'))));
  assert.ok(recalls.every((value) => value >= 0 && value <= 1), `recall values are fractions: ${recalls.join(', ')}`);
  await screenshot(page, '05-compare');
});

test('the communities view lists the hierarchy and opens a report', async () => {
  await openView('communities');
  await page.waitForSelector('[data-testid=community-tree] [role=treeitem]');
  await page.click('[data-testid=community-tree] .tree-row button.link >> nth=0');
  await page.waitForSelector('[data-testid=community-panel] [data-testid=community-report]');
  await screenshot(page, '06-communities');
});

test('upload a file, watch its job finish, find its entity, then delete it after the preview', async () => {
  const file = join(scratch, 'oakhollow-observatory.md');
  writeFileSync(
    file,
    '# Zephyrine Oakhollow Observatory\n\nThe Zephyrine Oakhollow Observatory stands on Gallows Hill above Kestermouth. ' +
      'Astronomer Winifred Saltash founded the Zephyrine Oakhollow Observatory in 1911, and the Zephyrine Oakhollow Observatory still opens its dome to visitors on clear Fridays.\n',
  );
  await openView('documents');
  await page.setInputFiles('[data-testid=documents-file-input]', file);
  await page.waitForSelector('[data-testid=job-card][data-status=succeeded]', { timeout: 120_000 });
  await screenshot(page, '07-job');
  await searchEntity('Zephyrine Oakhollow Observatory');

  await openView('documents');
  const row = page.locator('[data-testid=document-row]', { hasText: 'Zephyrine Oakhollow Observatory' });
  await row.locator('[data-testid=document-delete]').click();
  await page.waitForSelector('[data-testid=delete-preview]');
  assert.match((await page.textContent('[data-testid=delete-preview]')) ?? '', /Zephyrine Oakhollow Observatory/);
  await screenshot(page, '08-delete-preview');
  await page.click('[data-testid=delete-confirm]');
  await page.waitForFunction(() => document.querySelectorAll('[data-testid=job-card][data-status=succeeded]').length >= 2, undefined, { timeout: 120_000 });
  await page.waitForFunction(() => ![...document.querySelectorAll('[data-testid=document-row]')].some((found) => found.textContent?.includes('Zephyrine')));
  // Gone from the graph's search too.
  await openView('graph');
  await page.fill('[data-testid=entity-search]', '');
  await page.fill('[data-testid=entity-search]', 'Zephyrine Oakhollow');
  await page.waitForTimeout(600);
  assert.equal(await page.locator('[data-testid=entity-suggestions] li:has-text("Zephyrine")').count(), 0);
});

/** A real `kgrag eval` report: ppr and basic:bm25 on three sample questions over their gold passages and six others. */
async function evaluationReport(): Promise<string> {
  const sample = await resolveNamedDataset('sample');
  const questions = sample.questions.slice(0, 3);
  const gold = new Set(questions.flatMap((question) => question.goldKeys));
  const passages = [...sample.passages.filter((passage) => gold.has(passage.key)), ...sample.passages.filter((passage) => !gold.has(passage.key)).slice(0, 6)];
  const kgrag = await createKgrag({ workspace: join(scratch, 'eval'), env: {}, config: { index: { mode: 'fast' } } });
  try {
    const result = await runEvaluation({ kgrag, dataset: { name: 'sample (3 questions)', passages, questions }, methods: ['ppr', 'basic:bm25'] });
    const path = join(scratch, 'report.json');
    await writeEvaluationFiles(result, path);
    return path;
  } finally {
    await kgrag.close();
  }
}

test('the evaluation view opens a kgrag eval report.json and shows its table and charts', async () => {
  const report = await evaluationReport();
  await openView('evaluation');
  await page.setInputFiles('[data-testid=eval-file-input]', report);
  await page.waitForSelector('[data-testid=eval-report]');
  assert.equal(await page.textContent('[data-testid=eval-dataset]'), 'sample (3 questions)');
  assert.deepEqual(await page.locator('[data-testid=eval-row]').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-method'))).then((methods) => methods.sort()), ['basic:bm25', 'ppr']);
  assert.ok((await page.locator('[data-testid=eval-chart-recall] rect').count()) > 0, 'the recall chart has bars');
  await screenshot(page, '09-evaluation');
});

test('nothing went wrong in the page: no console error, uncaught exception or failed request', () => {
  assert.deepEqual(problems.list(), []);
});
