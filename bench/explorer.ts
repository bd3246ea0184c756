/*
 * Issue 20: the web explorer in headless chromium against `kgrag serve` on the 2Wiki fast index (no LLM key:
 * extractive answers). Each run opens `/` in a fresh browser context and measures
 * - explorer_first_graph_ms: navigation start to the explorer's performance mark `kgrag:graph-drawn` (sigma has drawn
 *   a graph with at least one node; target < 2,000 ms);
 * - explorer_query_ms: from the click on Run (the question typed, ppr chosen in the query view) to the mark
 *   `kgrag:answer-drawn` (the answer and its retrieved subgraph drawn; target < 1,000 ms), for each 2Wiki question.
 * - explorer_graph_2000_ms: "Show more" twice (300 → 1,000 → 2,000 entities), click to the larger graph drawn;
 * - explorer_drag_fps_2000: frames per second the page draws while the 2,000-entity graph is dragged for 2 s (a
 *   2Wiki-sized index must stay smooth).
 * The first run includes what the server computes once per index version (the layout); the medians mostly do not.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { launchBrowser, markTime, watchPageProblems } from '../test/helpers/browser.js';
import { type BenchResult, result, runChild, sharedDatasets, startServe, twoWikiQuestions } from './bench-utils.js';

/** Milliseconds from the click on Run to the mark the explorer sets once the answer and its subgraph are drawn. */
async function timeAnswer(page: Page, question: string, method: string): Promise<number> {
  await page.selectOption('[data-testid=query-method]', method);
  await page.fill('[data-testid=query-question]', question);
  await page.waitForSelector('[data-testid=query-run]:not([disabled])');
  const askedAt = await page.evaluate(() => {
    performance.clearMarks('kgrag:answer-drawn');
    return performance.now();
  });
  await page.click('[data-testid=query-run]');
  return (await markTime(page, 'kgrag:answer-drawn')) - askedAt;
}

/** Shows the next larger graph and returns the milliseconds until it is drawn (the entity count shown, then a frame). */
async function showMore(page: Page, atLeast: number): Promise<number> {
  const started = await page.evaluate(() => performance.now());
  await page.click('[data-testid=graph-more]');
  await page.waitForFunction((count) => Number(/^(\d+) entities/.exec(document.querySelector('[data-testid=graph-size]')?.textContent ?? '')?.[1] ?? 0) >= count, atLeast, { timeout: 60_000 });
  return page.evaluate((since) => new Promise<number>((resolve) => requestAnimationFrame(() => resolve(performance.now() - since))), started);
}

/** Frames per second while the graph is dragged across the canvas for `ms` milliseconds. */
async function dragFps(page: Page, ms: number): Promise<number> {
  const box = await page.locator('[data-testid=graph-canvas]').boundingBox();
  if (!box) throw new Error('the graph canvas is not on the page');
  // As source text: tsx would wrap a named function of this file in a helper the page does not have.
  const counting = page.evaluate(`new Promise((resolve) => {
    let frames = 0;
    const end = performance.now() + ${ms};
    const tick = (now) => {
      frames++;
      if (now < end) requestAnimationFrame(tick);
      else resolve((frames * 1000) / ${ms});
    };
    requestAnimationFrame(tick);
  })`) as Promise<number>;
  const centre = { x: box.x + box.width / 2, y: box.y + box.height / 2 };
  await page.mouse.move(centre.x, centre.y);
  await page.mouse.down();
  const steps = Math.round(ms / 20);
  for (let step = 1; step <= steps; step++) {
    await page.mouse.move(centre.x + 200 * Math.sin((step / steps) * 2 * Math.PI), centre.y + 120 * Math.sin((step / steps) * 4 * Math.PI));
    await page.waitForTimeout(20);
  }
  await page.mouse.up();
  return counting;
}

export async function benchExplorer(runs: number): Promise<Record<string, BenchResult>> {
  const base = mkdtempSync(join(tmpdir(), 'kgrag-bench-explorer-'));
  const firstGraph: number[] = [];
  const query: number[] = [];
  const larger: number[] = [];
  const fps: number[] = [];
  try {
    process.stderr.write('  indexing 2Wiki (fast mode)\n');
    const workspace = join(base, 'workspace');
    runChild('./index-child.ts', [workspace, join(sharedDatasets, '2wiki-corpus/corpus.json')]);
    const server = await startServe(workspace);
    const browser = await launchBrowser();
    try {
      for (let run = 0; run < runs; run++) {
        const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
        const page = await context.newPage();
        const problems = watchPageProblems(page);
        const response = await page.goto(`${server.url}/`);
        if (response?.status() !== 200 || !(response.headers()['content-type'] ?? '').includes('text/html')) {
          throw new Error(`kgrag serve answered ${response?.status()} (${response?.headers()['content-type']}) for / instead of the web explorer's page; is dist/web built (npm run build)?`);
        }
        firstGraph.push(await markTime(page, 'kgrag:graph-drawn'));
        await page.click('nav [role=tab][data-view=query]');
        const answers: number[] = [];
        for (const question of twoWikiQuestions) {
          const elapsed = await timeAnswer(page, question, 'ppr');
          answers.push(elapsed);
          query.push(elapsed);
        }
        await page.click('nav [role=tab][data-view=graph]');
        await showMore(page, 1000);
        larger.push(await showMore(page, 2000));
        fps.push(await dragFps(page, 2000));
        // Numbers from a page that failed somewhere measure something else than the explorer working.
        if (problems.list().length > 0) throw new Error(`the explorer's page had problems:\n${problems.list().join('\n')}`);
        process.stderr.write(
          `  run ${run + 1}/${runs}: first graph ${firstGraph.at(-1)?.toFixed(0)} ms, ppr answers ${answers.map((ms) => ms.toFixed(0)).join(' ')} ms, 2,000 entities in ${larger.at(-1)?.toFixed(0)} ms, ${fps.at(-1)?.toFixed(0)} frames/s dragging them\n`,
        );
        await context.close();
      }
    } finally {
      await browser.close();
      server.child.kill('SIGTERM');
      await server.exited;
    }
    return {
      explorer_first_graph_ms: result(firstGraph, 'ms'),
      explorer_query_ms: result(query, 'ms'),
      explorer_graph_2000_ms: result(larger, 'ms'),
      explorer_drag_fps_2000: result(fps, 'frames/s'),
    };
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
}
