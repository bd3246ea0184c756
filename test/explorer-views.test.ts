/*
 * Issue 41: the views' layout, and the graph view's drawing bugs, each reproduced through the page before its fix — a graph drawn empty
 * after another view changed its width, neighbours added without labels or edges, and a highlighted community left
 * off-screen. What a frame showed is read from the canvas's pixels and from the attributes the view writes after
 * every frame (data-labels, data-edges-drawn, data-focus-labelled, data-highlight-in-view). Debian's chromium through
 * playwright-core, on the sample corpus's fast index.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { markTime, screenshot } from './helpers/browser.js';
import { explorerSession } from './helpers/explorer-session.js';
import { sampleWorkspace, startTestServer } from './helpers/test-server.js';

const session = explorerSession('explorer-views', async (_scratch, webDirectory) => {
  const [directory, web] = await Promise.all([sampleWorkspace(), webDirectory]);
  return startTestServer({ directory, webDirectory: web });
});

const canvas = '[data-testid=graph-canvas]';

/** Painted pixels on sigma's label layer: zero when the graph shows nothing. */
async function labelPixels(): Promise<number> {
  return session.page.evaluate(() => {
    const layer = document.querySelector<HTMLCanvasElement>('[data-testid=graph-canvas] canvas.sigma-labels');
    if (!layer || layer.width === 0 || layer.height === 0) return 0;
    const pixels = layer.getContext('2d')?.getImageData(0, 0, layer.width, layer.height).data ?? new Uint8ClampedArray();
    let painted = 0;
    for (let index = 3; index < pixels.length; index += 4) if ((pixels[index] as number) > 0) painted++;
    return painted;
  });
}

/** Waits two animation frames, so that what the view scheduled has been drawn. */
async function frames(): Promise<void> {
  await session.page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
}

async function openView(name: string): Promise<void> {
  await session.page.click(`nav [role=tab][data-view=${name}]`);
  await session.page.waitForSelector(`section.view[data-view=${name}]:not([hidden])`);
}

test('the graph is drawn again when its tab is shown after another view opened the side panel', { timeout: 60_000 }, async () => {
  const { page } = session;
  await page.goto(`${session.server.url}/#view=graph`);
  await page.waitForSelector(`${canvas}[data-drawn]`);
  await frames();
  assert.ok((await labelPixels()) > 0, 'the first frame shows labels');
  await openView('communities');
  await page.waitForSelector('[data-testid=community-tree] [role=treeitem]');
  await page.click('[data-testid=community-tree] .tree-row button.link >> nth=0');
  await page.waitForSelector('[data-testid=community-report]');
  await openView('graph');
  await frames();
  await screenshot(page, 'drawing-01-graph-after-report');
  assert.ok((await labelPixels()) > 0, 'the graph is drawn, not an empty canvas');
});

test('"Expand neighbours" labels the neighbours it adds and draws their edges once the camera stops', { timeout: 60_000 }, async () => {
  const { page } = session;
  await openView('graph');
  await page.fill('[data-testid=entity-search]', 'Kester Weir Bridge');
  await page.waitForSelector('[data-testid=entity-suggestions] li:has-text("Kester Weir Bridge")');
  await page.press('[data-testid=entity-search]', 'Enter');
  await page.waitForSelector('[data-testid=entity-panel] h2:text-is("Kester Weir Bridge")');
  await page.click('[data-testid=expand-neighbours]');
  await page.waitForFunction((selector) => document.querySelector(selector)?.getAttribute('data-edges-drawn') === 'true', canvas);
  // The camera's animation is over (400 ms); the last frame is what stays on screen.
  await page.waitForTimeout(600);
  await frames();
  await screenshot(page, 'drawing-02-expanded');
  assert.equal(await page.getAttribute(canvas, 'data-edges-drawn'), 'true');
  const [labelled, neighbours] = ((await page.getAttribute(canvas, 'data-focus-labelled')) ?? '0/0').split('/').map(Number);
  assert.ok((neighbours ?? 0) > 0, 'the entity has neighbours on the graph');
  assert.equal(labelled, neighbours, 'every neighbour of the expanded entity has its label');
});

test('the graph has a colour key for its communities; choosing one shows it alone', { timeout: 60_000 }, async () => {
  const { page } = session;
  await openView('graph');
  const entries = page.locator('[data-testid=community-legend] [data-testid=legend-entry]');
  await entries.first().waitFor();
  const colours = await page.locator('[data-testid=community-legend] .swatch').evaluateAll((swatches) => swatches.map((swatch) => getComputedStyle(swatch).backgroundColor));
  assert.ok(colours.length >= 2, `several communities: ${colours.length}`);
  assert.equal(new Set(colours).size, colours.length, 'the communities named have colours of their own');
  const chosen = await entries.first().getAttribute('data-community');
  await entries.first().click();
  assert.equal(await page.inputValue('select[aria-label="Show one community"]'), chosen);
  await screenshot(page, 'views-legend');
  await entries.first().click();
  assert.equal(await page.inputValue('select[aria-label="Show one community"]'), '');
});

test('the community tree opens with as many levels shown as fit on the first screen', { timeout: 60_000 }, async () => {
  const { page } = session;
  await openView('communities');
  await page.waitForSelector('[data-testid=community-tree] [role=treeitem]');
  const roots = await page.locator('[data-testid=community-tree] > [role=treeitem]').count();
  const rows = await page.locator('[data-testid=community-tree] [role=treeitem]').count();
  assert.ok(rows > roots, `more than the ${roots} top-level communities are shown: ${rows}`);
  assert.ok(rows <= 40, `no more than a screen: ${rows}`);
  await screenshot(page, 'views-community-tree');
});

test('the side panel closes when another view is chosen, which then has the whole width', { timeout: 60_000 }, async () => {
  const { page } = session;
  await openView('query');
  await openView('graph');
  await page.fill('[data-testid=entity-search]', 'Kester Weir Bridge');
  await page.waitForSelector('[data-testid=entity-suggestions] li:has-text("Kester Weir Bridge")');
  await page.press('[data-testid=entity-search]', 'Enter');
  await page.waitForSelector('[data-testid=entity-panel]');
  await openView('query');
  await page.waitForSelector('[data-testid=inspector]', { state: 'detached' });
  const main = await page.locator('main').boundingBox();
  assert.ok((main?.width ?? 0) >= 1300, `the query view has the whole width: ${main?.width}`);
});

test('a new upload is listed first and marked new; a delete preview opens under its button', { timeout: 120_000 }, async () => {
  const { page } = session;
  await openView('documents');
  await page.waitForSelector('[data-testid=document-row]');
  const file = join(session.scratch, 'harbour-bell.md');
  writeFileSync(file, '# The Harbour Bell of Kestermouth\n\nThe harbour bell of Kestermouth was cast in 1788 and rang for every boat lost at sea until 1902.\n');
  await page.setInputFiles('[data-testid=documents-file-input]', [file]);
  const row = page.locator('[data-testid=document-row]', { hasText: 'The Harbour Bell of Kestermouth' });
  await row.waitFor({ timeout: 90_000 });
  assert.equal(await page.locator('[data-testid=document-row]').first().getAttribute('data-document-id'), await row.getAttribute('data-document-id'), 'listed first');
  assert.equal(await row.getAttribute('data-new'), 'true', 'marked as new');
  const rowBox = await row.boundingBox();
  assert.ok(rowBox && rowBox.y >= 0 && rowBox.y + rowBox.height <= 900, `in sight without scrolling: ${JSON.stringify(rowBox)}`);

  await row.locator('[data-testid=document-delete]').click();
  const preview = page.locator('[data-testid=delete-preview]');
  await preview.waitFor();
  const [button, box] = await Promise.all([row.locator('[data-testid=document-delete]').boundingBox(), preview.boundingBox()]);
  assert.ok(button && box);
  await screenshot(page, 'views-delete-preview');
  const buttonCentre = button.x + button.width / 2;
  assert.ok(box.x <= buttonCentre && buttonCentre <= box.x + box.width, 'the preview spans its button');
  assert.ok(button.x - box.x < 700, `the preview starts near its button: ${box.x} for a button at ${button.x}`);
  assert.ok(box.y >= button.y + button.height - 2 && box.y - (button.y + button.height) < 40, 'right under its button');
  await page.click("[data-testid=delete-cancel]");
});

test('a method that needs an LLM is marked in the list before Run, and runs only for its context', { timeout: 60_000 }, async () => {
  const { page } = session;
  await openView('query');
  // By the option's value property: Preact leaves out the value attribute where it equals the text.
  const label = await page.$eval('[data-testid=query-method]', (select) => [...(select as HTMLSelectElement).options].find((option) => option.value === 'drift')?.textContent ?? '');
  assert.equal(label, 'drift (needs an LLM)');
  assert.equal(await page.locator('[data-testid=query-method] option[data-needs-llm]').count(), 2, 'drift and tot');
  await page.selectOption('[data-testid=query-method]', 'drift');
  await page.fill('[data-testid=query-question]', 'Who built the Kester Weir Bridge?');
  await page.waitForSelector('[data-testid=method-needs-llm]');
  assert.doesNotMatch((await page.textContent('[data-testid=method-needs-llm]')) ?? '', /--[a-z]|`kgrag/, 'no command-line flag in the web');
  assert.equal(await page.isDisabled('[data-testid=query-run]'), true);
  await page.check('[data-testid=query-context-only]');
  assert.equal(await page.isDisabled('[data-testid=query-run]'), false);
  await page.uncheck('[data-testid=query-context-only]');
  await page.selectOption('[data-testid=query-method]', 'ppr');
  assert.equal(await page.isDisabled('[data-testid=query-run]'), false);
  await screenshot(page, 'views-needs-llm');
  // What scripts and the explorer benchmark time an answer by, with no hook into the page's code.
  await page.click('[data-testid=query-run]');
  await markTime(page, 'kgrag:answer-drawn');
  assert.equal(await page.evaluate(() => 'kgragExplorer' in window), false);
});

test("local's subgraph names the top of each kind inside its frame, with a score scale; global lists the communities it used", { timeout: 60_000 }, async () => {
  const { page } = session;
  await openView('query');
  await page.selectOption('[data-testid=query-method]', 'local');
  await page.fill('[data-testid=query-question]', 'Who designed the Kester Weir Bridge?');
  await page.click('[data-testid=query-run]');
  await page.waitForSelector('[data-testid=subgraph-canvas][data-drawn]');
  await frames();
  await screenshot(page, 'views-local-subgraph');
  // Labels drawn, none running past the right edge: the last columns of the label layer are blank.
  const { painted, atEdge } = await page.evaluate(() => {
    const layer = document.querySelector<HTMLCanvasElement>('[data-testid=subgraph-canvas] canvas.sigma-labels');
    if (!layer) return { painted: 0, atEdge: -1 };
    const context = layer.getContext('2d');
    const all = context?.getImageData(0, 0, layer.width, layer.height).data ?? new Uint8ClampedArray();
    const edge = context?.getImageData(layer.width - 3, 0, 3, layer.height).data ?? new Uint8ClampedArray();
    const count = (pixels: Uint8ClampedArray) => {
      let found = 0;
      for (let index = 3; index < pixels.length; index += 4) if ((pixels[index] as number) > 0) found++;
      return found;
    };
    return { painted: count(all), atEdge: count(edge) };
  });
  assert.ok(painted > 0, 'labels are drawn');
  assert.equal(atEdge, 0, 'no label runs past the right edge');
  assert.match((await page.textContent('[data-testid=subgraph-legend]')) ?? '', /entity \(\d+\) · score \d\.\d+–\d\.\d+/);

  await page.selectOption('[data-testid=query-method]', 'global');
  await page.click('[data-testid=query-run]');
  const used = page.locator('[data-testid=query-communities] li');
  await used.first().waitFor();
  await page.waitForFunction(() => ![...document.querySelectorAll('[data-testid=query-communities] li button:first-child')].some((button) => /^Community \d+$/.test(button.textContent ?? '')));
  await used.first().locator('button').first().click();
  await page.waitForSelector('[data-testid=community-panel]');
  await screenshot(page, 'views-global-communities');
});

/** A report.json as `kgrag eval` writes it, for 19 methods: every built-in method and variant, proxies and a fallback among them. */
function nineteenMethodReport(): string {
  const names = ['basic', 'basic:bm25', 'basic:hybrid', 'local', 'global', 'global:dynamic', 'drift', 'ppr', 'ppr:v1', 'kgp', 'kgp:lexical-agent', 'kgp:agent', 'tot', 'autokg', 'milvus', 'milvus:no-rerank', 'bm25-rerank', 'hyde', 'ppr:no-ner'];
  const methods = Object.fromEntries(
    names.map((name, index) => [
      name,
      {
        'recall@1': 20 + index,
        'recall@2': 35 + index,
        'recall@5': 50 + index,
        'recall@10': 60 + index,
        latency_ms_p50: 10 + 3 * index,
        latency_ms_p95: 30 + 5 * index,
        llm_calls: 0,
        tokens_in: 0,
        tokens_out: 0,
        questions: 100,
        ranking: [{ kind: name === 'global' || name === 'drift' ? 'proxy' : name === 'kgp:agent' ? 'fallback' : 'native', note: null, questions: 100 }],
      },
    ]),
  );
  return JSON.stringify({ dataset: 'musique-train-100', n: 100, methods });
}

test('the evaluation charts of 19 methods fit their pane: one row per method, one colour per cut-off, proxies hatched', { timeout: 60_000 }, async () => {
  const { page } = session;
  await openView('evaluation');
  const file = join(session.scratch, 'report.json');
  writeFileSync(file, nineteenMethodReport());
  await page.setInputFiles('[data-testid=eval-file-input]', [file]);
  const chart = page.locator('[data-testid=eval-chart-recall]');
  await chart.waitFor();
  await screenshot(page, 'views-eval-19');
  const [chartBox, paneBox] = await Promise.all([chart.locator('svg').boundingBox(), page.locator('section.view[data-view=evaluation]').boundingBox()]);
  assert.ok(chartBox && paneBox);
  assert.ok(chartBox.x >= paneBox.x && chartBox.x + chartBox.width <= paneBox.x + paneBox.width, `the chart is inside its pane: ${JSON.stringify({ chartBox, paneBox })}`);
  assert.equal(await chart.locator('.eval-chart-row').count(), 19, 'a row per method');
  const labels = await chart.locator('.eval-chart-row').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-row')));
  assert.equal(new Set(labels).size, 19);
  const colours = await chart.locator('.eval-chart-row rect[fill^="#"]').evaluateAll((bars) => [...new Set(bars.map((bar) => bar.getAttribute('fill')))]);
  assert.equal(colours.length, 4, 'one colour per cut-off (1, 2, 5, 10), none repeated');
  assert.equal(await chart.locator('.eval-chart-row[data-row=global] rect[fill^="url("]').count(), 4, 'a proxy ranking is hatched');
  // Every legend entry and every label lies inside the drawing: nothing is cut.
  const cut = await chart.locator('svg').evaluate((svg) => {
    const box = svg.getBoundingClientRect();
    return [...svg.querySelectorAll('text')].filter((text) => {
      const inner = text.getBoundingClientRect();
      return inner.left < box.left - 0.5 || inner.right > box.right + 0.5 || inner.top < box.top - 0.5 || inner.bottom > box.bottom + 0.5;
    }).map((text) => text.textContent);
  });
  assert.deepEqual(cut, []);
});

test('"on graph" moves the camera to the highlighted community, away from the entity focused before', { timeout: 60_000 }, async () => {
  const { page } = session;
  await openView('communities');
  await page.waitForSelector('[data-testid=community-tree] [role=treeitem]');
  // The last community listed: the one least likely to hold the bridge the camera is on.
  await page.click('[data-testid=community-tree] button.link.small:has-text("on graph") >> nth=-1');
  await page.waitForSelector('section.view[data-view=graph]:not([hidden])');
  await page.waitForSelector('[data-testid=graph-highlight]');
  await page.waitForTimeout(600);
  await frames();
  await screenshot(page, 'drawing-03-community-on-graph');
  const [inView, onGraph] = ((await page.getAttribute(canvas, 'data-highlight-in-view')) ?? '0/0').split('/').map(Number);
  assert.ok((onGraph ?? 0) > 0, 'members of the community are on the graph');
  assert.equal(inView, onGraph, 'every highlighted member on the graph is in the viewport');
  assert.deepEqual(session.problems.list(), []);
});
