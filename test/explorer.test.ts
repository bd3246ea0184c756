/*
 * The web explorer end to end, in Debian's chromium through playwright-core: the explorer built from web/ by vite, served
 * by `kgrag serve` (in this process) over the fast index of the sample corpus, driven as a user drives it. With
 * KGRAG_SCREENSHOTS=<folder> each view is saved as a PNG there.
 */
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createKgrag } from '../src/api/create-kgrag.js';
import { resolveNamedDataset } from '../src/eval/datasets/named-datasets.js';
import { writeEvaluationFiles } from '../src/eval/evaluation-report-files.js';
import { runEvaluation } from '../src/eval/run-evaluation.js';
import { markTime, screenshot } from './helpers/browser.js';
import { explorerSession } from './helpers/explorer-session.js';
import { sampleCorpus, sampleWorkspace, startTestServer } from './helpers/test-server.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const session = explorerSession('explorer', async (_scratch, webDirectory) => {
  const [directory, web] = await Promise.all([sampleWorkspace(), webDirectory]);
  return startTestServer({ directory, webDirectory: web });
});
/** Problems a test caused on purpose (the side panel asking for an entity that was just deleted). */
const expectedProblems: RegExp[] = [];

async function openView(name: string): Promise<void> {
  await session.page.click(`nav [role=tab][data-view=${name}]`);
  await session.page.waitForSelector(`section.view[data-view=${name}]:not([hidden])`);
}

async function searchEntity(name: string): Promise<void> {
  await openView('graph');
  await session.page.fill('[data-testid=entity-search]', name);
  await session.page.waitForSelector(`[data-testid=entity-suggestions] li:has-text("${name}")`);
  await session.page.press('[data-testid=entity-search]', 'Enter');
  await session.page.waitForSelector(`[data-testid=entity-panel] h2:text-is("${name}")`);
}

test('the graph view draws the top entities coloured by community, and says that answers are extractive', async () => {
  await session.page.goto(`${session.server.url}/`);
  const drawnMs = await markTime(session.page, 'kgrag:graph-drawn');
  assert.ok(drawnMs > 0);
  const drawn = Number(await session.page.getAttribute('[data-testid=graph-canvas]', 'data-drawn'));
  assert.ok(drawn > 50, `the graph shows the sample's entities (${drawn})`);
  assert.match(await session.page.textContent('[data-testid=no-llm]') ?? '', /extractive/);
  // More than a few community colours are on the screen: the WebGL drawing happened and nodes are coloured. (WebGL
  // canvases cannot be read back after compositing, so the element's screenshot is read instead.)
  const png = (await session.page.locator('[data-testid=graph-canvas]').screenshot()).toString('base64');
  const colours = await session.page.evaluate(async (data) => {
    const image = new Image();
    image.src = `data:image/png;base64,${data}`;
    await image.decode();
    const canvas = document.createElement('canvas');
    canvas.width = image.width;
    canvas.height = image.height;
    const context = canvas.getContext('2d');
    if (!context) return 0;
    context.drawImage(image, 0, 0);
    const pixels = context.getImageData(0, 0, canvas.width, canvas.height).data;
    const counts = new Map<string, number>();
    for (let index = 0; index < pixels.length; index += 4) {
      const [red = 0, green = 0, blue = 0] = [pixels[index], pixels[index + 1], pixels[index + 2]];
      // Saturated colours only: white background, grey edges and black labels are not community colours.
      if (Math.max(red, green, blue) - Math.min(red, green, blue) < 60) continue;
      const key = `${red >> 4},${green >> 4},${blue >> 4}`;
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
    return [...counts.values()].filter((count) => count >= 20).length;
  }, png);
  assert.ok(colours >= 4, `community colours are drawn (${colours} distinct colours sampled)`);
  await screenshot(session.page, '01-graph');
});

/** The titles (`# Title` headings) of the sample corpus's files whose text holds `phrase`. */
function sampleTitlesNaming(phrase: string): string[] {
  return readdirSync(sampleCorpus)
    .map((name) => readFileSync(join(sampleCorpus, name), 'utf8'))
    .filter((text) => text.includes(phrase))
    .map((text) => /^# (.+)$/m.exec(text)?.[1] ?? '');
}

test('search "Kester Weir Bridge", open its panel, a source passage, and its neighbours', async () => {
  await searchEntity('Kester Weir Bridge');
  // The panel's own heading names the bridge whatever it loaded; its source passages are the entity's own: the fast
  // index finds the phrase in the five documents that hold it, one passage each, and no other entity has those five.
  const sources = await session.page.locator('[data-testid=entity-panel] [data-testid=source-passage] strong').allTextContents();
  assert.deepEqual([...sources].sort(), sampleTitlesNaming('Kester Weir Bridge').sort());
  await screenshot(session.page, '02-entity');
  await session.page.click('[data-testid=entity-panel] [data-testid=source-passage] >> nth=0');
  await session.page.waitForSelector('[data-testid=chunk-panel]');
  // The passage opened is the one clicked, and it names the entity.
  assert.equal(await session.page.textContent('[data-testid=chunk-panel] h2'), sources[0]);
  assert.match((await session.page.textContent('[data-testid=chunk-panel] blockquote')) ?? '', /Kester Weir Bridge/);
  await screenshot(session.page, '03-passage');
  // Expanding adds what the first screen leaves out: an entity of it with a neighbour beyond it, as the API says.
  const expandable = await entityWithNeighbourOffScreen();
  await searchEntity(expandable);
  const before = await session.page.textContent('[data-testid=graph-size]');
  await session.page.click('[data-testid=expand-neighbours]');
  await session.page.waitForFunction((previous) => document.querySelector('[data-testid=graph-size]')?.textContent !== previous, before);
});

/** The title of an entity the graph view's first screen shows, one of whose neighbours it does not show. */
async function entityWithNeighbourOffScreen(): Promise<string> {
  const get = async <T>(path: string): Promise<T> => (await (await fetch(`${session.server.url}/v1${path}`)).json()) as T;
  const slice = await get<{ nodes: Array<{ id: string; title: string }> }>('/graph');
  const shown = new Set(slice.nodes.map((node) => node.id));
  for (const node of slice.nodes) {
    const neighbourhood = await get<{ nodes: Array<{ id: string }> }>(`/entities/${encodeURIComponent(node.id)}/neighbours?depth=1&limit=40`);
    if (neighbourhood.nodes.some((neighbour) => !shown.has(neighbour.id))) return node.title;
  }
  throw new Error('every neighbour of the first screen is on it: nothing to expand');
}

/** The sample evaluation file's question at `index`, as the file holds it. */
function sampleQuestion(index: number): { question: string; gold_passages: string[] } {
  const line = readFileSync(join(root, 'examples', 'sample-questions.jsonl'), 'utf8').split('\n')[index];
  return JSON.parse(line ?? '') as { question: string; gold_passages: string[] };
}

async function ask(question: string, method: string): Promise<void> {
  await openView('query');
  await session.page.fill('[data-testid=query-question]', question);
  await session.page.selectOption('[data-testid=query-method]', method);
  await session.page.click('[data-testid=query-run]');
  await session.page.waitForSelector('[data-testid=answer-text]');
  await session.page.waitForSelector('[data-testid=query-output] [data-testid=subgraph-canvas][data-drawn]');
}

test('the entity suggestions stay open when the search box is left and entered again at once', async () => {
  await openView('graph');
  const search = session.page.locator('[data-testid=entity-search]');
  await search.fill('Kester');
  await session.page.waitForSelector('[data-testid=entity-suggestions] li');
  // Leaving the box schedules the list's close (150 ms, so that a click on a suggestion lands); coming back at once
  // must cancel it.
  await search.blur();
  await search.fill('Kester Weir');
  await session.page.waitForTimeout(400);
  assert.ok(await session.page.isVisible('[data-testid=entity-suggestions] li:has-text("Kester Weir Bridge")'), 'the suggestions are still shown');
});

test('a question with ppr and with local: the answer, its citations and the retrieved subgraph are shown', async () => {
  for (const method of ['ppr', 'local']) {
    await ask('Who designed the Kester Weir Bridge?', method);
    // The bridge's article says the design "was entrusted to the Kestermouth engineering firm Ivesley & Thorne": the
    // answer names the firm, which the question does not.
    const answer = (await session.page.textContent('[data-testid=answer-text]')) ?? '';
    assert.match(answer, /Ivesley & Thorne/, `${method} names the designer`);
    assert.match((await session.page.textContent('[data-testid=answer-kind]')) ?? '', /extractive/i);
    assert.ok((await session.page.locator('[data-testid=citations] li').count()) > 0, `${method} cites its sources`);
    const nodes = Number(await session.page.getAttribute('[data-testid=query-output] [data-testid=subgraph-canvas]', 'data-drawn'));
    assert.ok(nodes > 2, `${method}'s retrieved subgraph is drawn (${nodes} nodes)`);
    assert.ok((await session.page.locator('[data-testid=passages] [data-testid=passage]').count()) > 0);
    await screenshot(session.page, `04-query-${method}`);
  }
  // A citation opens its passage in the side panel.
  await ask('Who designed the Kester Weir Bridge?', 'ppr');
  await session.page.click('[data-testid=answer-ref] >> nth=0');
  await session.page.waitForSelector('[data-testid=chunk-panel]');
});

test('compare mode: two methods side by side, with Recall@k against the gold passages of an evaluation file', async () => {
  await openView('compare');
  const methods = session.page.locator('[data-testid=compare-method]');
  await session.page.waitForSelector('[data-testid=compare-method] >> nth=1');
  while ((await methods.count()) > 2) await session.page.click('[data-testid=compare-form] button[aria-label^="Remove"] >> nth=-1');
  await methods.nth(0).selectOption('ppr');
  await methods.nth(1).selectOption('kgp');
  await session.page.setInputFiles('[data-testid=compare-eval-file]', join(root, 'examples', 'sample-questions.jsonl'));
  await session.page.waitForSelector('[data-testid=compare-eval-question] option >> nth=1', { state: 'attached' });
  await session.page.selectOption('[data-testid=compare-eval-question]', { index: 1 });
  assert.equal(await session.page.inputValue('[data-testid=compare-question]'), sampleQuestion(0).question);
  await session.page.click('[data-testid=compare-run]');
  const columns = session.page.locator('[data-testid=compare-column]');
  await session.page.waitForFunction(() => document.querySelectorAll('[data-testid=compare-column] [data-testid=answer-text]').length === 2);
  assert.deepEqual(await columns.evaluateAll((found) => found.map((column) => column.getAttribute('data-method'))), ['ppr', 'kgp']);
  await session.page.waitForFunction(() => document.querySelectorAll('[data-testid=compare-recall] .recall-value[data-value]').length === 8);
  // q01's three gold passages are the articles whose titles are their first lines: "Kester Weir Bridge", "Ivesley &
  // Thorne" and "Clara Ivesley". Each column ranks passages; Recall@k is the share of those three among its first k
  // distinct documents. ppr (k = 10) ranks Kester Weir Bridge, Clara Ivesley, Ivesley & Thorne first: R@1 = 1/3,
  // R@2 = 2/3, R@5 = R@10 = 3/3. kgp ranks Clara Ivesley, Tobias Marle's obituary, Ivesley & Thorne, Kester Weir Bridge:
  // R@1 = R@2 = 1/3, R@5 = R@10 = 3/3. The rankings are checked first, so a change of ranking fails there, by name.
  const gold = new Set(sampleQuestion(0).gold_passages.map((passage) => passage.split('\n')[0]));
  assert.deepEqual([...gold].sort(), ['Clara Ivesley', 'Ivesley & Thorne', 'Kester Weir Bridge']);
  const ranked = await columns.evaluateAll((found) =>
    found.map((column) => [...column.querySelectorAll('[data-testid=passage] strong')].map((title) => title.firstChild?.textContent?.trim() ?? '').filter((title, index, all) => all.indexOf(title) === index).slice(0, 4)),
  );
  assert.deepEqual(ranked, [
    ['Kester Weir Bridge', 'Clara Ivesley', 'Ivesley & Thorne', 'Kestermouth Flood Wall'],
    ['Clara Ivesley', 'Obituary: Tobias Marle, boatbuilder', 'Ivesley & Thorne', 'Kester Weir Bridge'],
  ]);
  const recalls = await columns.evaluateAll((found) =>
    found.map((column) => [...column.querySelectorAll('[data-testid=compare-recall] .recall-value')].map((value) => `R@${value.getAttribute('data-k')}=${value.getAttribute('data-value')}`)),
  );
  const third = String(1 / 3);
  assert.deepEqual(recalls, [
    [`R@1=${third}`, `R@2=${String(2 / 3)}`, 'R@5=1', 'R@10=1'],
    [`R@1=${third}`, `R@2=${third}`, 'R@5=1', 'R@10=1'],
  ]);
  await screenshot(session.page, '05-compare');
});

test('the communities view lists the hierarchy, opens a report and highlights the members on the graph', async () => {
  await openView('communities');
  await session.page.waitForSelector('[data-testid=community-tree] [role=treeitem]');
  await session.page.click('[data-testid=community-tree] .tree-row button.link >> nth=0');
  await session.page.waitForSelector('[data-testid=community-panel] [data-testid=community-report]');
  // A fast index's reports are extractive: their score is called connectivity, and explained on hover.
  const score = await session.page.waitForSelector('[data-testid=community-panel] [data-testid=report-score]');
  assert.match((await score.textContent()) ?? '', /^connectivity \d+(\.\d)?$/);
  assert.match((await score.getAttribute('title')) ?? '', /no language model rated this report/);
  await screenshot(session.page, '06-communities');
  // Selecting it highlighted its members on the graph.
  await openView('graph');
  const note = (await session.page.waitForSelector('[data-testid=graph-highlight]')).textContent();
  assert.match((await note) ?? '', /: [1-9]\d* of [1-9]\d* on the graph/);
  await screenshot(session.page, '06b-community-on-graph');
  await session.page.click('[data-testid=graph-highlight] button');
});

test('upload files, watch their job finish, find their entity, then delete one after the preview', async () => {
  // Fast mode keeps a proper name from its first mention: Gallows Hill, named by one of the files, is an entity.
  const files = [
    ['oakhollow-observatory.md', '# Oakhollow Observatory\n\nThe Oakhollow Observatory stands on Gallows Hill above Kestermouth. Winifred Saltash founded the Oakhollow Observatory in 1911, and its dome still opens to visitors on clear evenings.\n'],
    ['saltash-diaries.md', '# The Saltash diaries\n\nWinifred Saltash kept a diary of every night she spent at the Oakhollow Observatory. Her niece gave the diaries to the Kester River Museum in 1972.\n'],
  ].map(([name, text]) => {
    const path = join(session.scratch, name as string);
    writeFileSync(path, text as string);
    return path;
  });
  await openView('documents');
  await session.page.setInputFiles('[data-testid=documents-file-input]', files);
  await session.page.waitForSelector('[data-testid=job-card][data-status=succeeded]', { timeout: 120_000 });
  await screenshot(session.page, '07-job');
  await searchEntity('Gallows Hill');

  await openView('documents');
  const row = session.page.locator('[data-testid=document-row]', { hasText: 'Oakhollow Observatory' });
  await row.locator('[data-testid=document-delete]').click();
  await session.page.waitForSelector('[data-testid=delete-preview]');
  assert.match((await session.page.textContent('[data-testid=delete-preview]')) ?? '', /Oakhollow Observatory/);
  await screenshot(session.page, '08-delete-preview');
  await session.page.click('[data-testid=delete-confirm]');
  await session.page.waitForFunction(() => document.querySelectorAll('[data-testid=job-card][data-status=succeeded]').length >= 2, undefined, { timeout: 120_000 });
  await session.page.waitForFunction(() => ![...document.querySelectorAll('[data-testid=document-row]')].some((found) => found.textContent?.includes('Oakhollow Observatory')));
  // Named only by the deleted file, the name is gone from the graph's search, as from a fresh index of what is left.
  await openView('graph');
  await session.page.fill('[data-testid=entity-search]', '');
  const searched = session.page.waitForResponse((response) => response.url().includes('/entities?q=Gallows'));
  await session.page.fill('[data-testid=entity-search]', 'Gallows Hill');
  await searched;
  await session.page.waitForTimeout(200);
  assert.equal(await session.page.locator('[data-testid=entity-suggestions] li:has-text("Gallows Hill")').count(), 0);
});

/** A real `kgrag eval` report: ppr and basic:bm25 on three sample questions over their gold passages and six others. */
async function evaluationReport(): Promise<string> {
  const sample = await resolveNamedDataset('sample');
  const questions = sample.questions.slice(0, 3);
  const gold = new Set(questions.flatMap((question) => question.goldKeys));
  const passages = [...sample.passages.filter((passage) => gold.has(passage.key)), ...sample.passages.filter((passage) => !gold.has(passage.key)).slice(0, 6)];
  const kgrag = await createKgrag({ workspace: join(session.scratch, 'eval'), env: {}, config: { index: { mode: 'fast' } } });
  try {
    const result = await runEvaluation({ kgrag, dataset: { name: 'sample (3 questions)', passages, questions }, methods: ['ppr', 'basic:bm25'] });
    const path = join(session.scratch, 'report.json');
    await writeEvaluationFiles(result, path);
    return path;
  } finally {
    await kgrag.close();
  }
}

test('the evaluation view opens a kgrag eval report.json and shows its table and charts', async () => {
  const report = await evaluationReport();
  await openView('evaluation');
  await session.page.setInputFiles('[data-testid=eval-file-input]', report);
  await session.page.waitForSelector('[data-testid=eval-report]');
  assert.equal(await session.page.textContent('[data-testid=eval-dataset]'), 'sample (3 questions)');
  assert.deepEqual(await session.page.locator('[data-testid=eval-row]').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-method'))).then((methods) => methods.sort()), ['basic:bm25', 'ppr']);
  assert.ok((await session.page.locator('[data-testid=eval-chart-recall] rect').count()) > 0, 'the recall chart has bars');
  await screenshot(session.page, '09-evaluation');
});

test('nothing went wrong in the page: no console error, uncaught exception or failed request', () => {
  assert.deepEqual(
    session.problems.list().filter((problem) => !expectedProblems.some((expected) => expected.test(problem))),
    [],
  );
});
