/*
 * The headless-browser helper the web explorer's tests and benchmark use, on a page served here: chromium starts
 * (installed first when missing, see scripts/ensure-chromium.ts), renders WebGL without a GPU, reports performance
 * marks, and page problems and screenshots are collected.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { launchBrowser, markTime, screenshot, watchPageProblems } from './helpers/browser.js';

// Draws a triangle with WebGL (as sigma does) after fetching its "graph", then marks it drawn.
const drawingPage = `<!doctype html><html><head><link rel="icon" href="data:,"></head><body><canvas width="200" height="200"></canvas><script>
(async () => {
  const graph = await (await fetch('/graph.json')).json();
  const gl = document.querySelector('canvas').getContext('webgl');
  gl.clearColor(0.1, 0.4, 0.8, 1);
  gl.clear(gl.COLOR_BUFFER_BIT);
  const pixel = new Uint8Array(4);
  gl.readPixels(0, 0, 1, 1, gl.RGBA, gl.UNSIGNED_BYTE, pixel);
  document.title = graph.nodes.length + ' nodes, pixel ' + Array.from(pixel).join(',');
  performance.mark('kgrag:graph-drawn');
})();
</script></body></html>`;

// The image holds the load event back until well after the failed fetch's response, as a busy machine can: a test
// that starts waiting for that response only once the page has loaded never sees it.
const brokenPage = `<!doctype html><html><head><link rel="icon" href="data:,"></head><body><script>
console.error('something broke');
fetch('/missing.json');
</script><img src="/slow-image"></body></html>`;

let server: Server;
let origin: string;
let browser: Browser;

before(async () => {
  server = createServer((request, response) => {
    const routes: Record<string, [string, string]> = {
      '/': ['text/html', drawingPage],
      '/broken': ['text/html', brokenPage],
      '/graph.json': ['application/json', JSON.stringify({ nodes: [{ id: 'a' }, { id: 'b' }] })],
    };
    if (request.url === '/slow-image') {
      setTimeout(() => response.writeHead(204).end(), 500);
      return;
    }
    const route = routes[request.url ?? ''];
    response.writeHead(route ? 200 : 404, { 'content-type': route?.[0] ?? 'text/plain' }).end(route?.[1] ?? 'not found');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await new Promise((resolve) => server?.close(resolve));
});

test('a page draws with WebGL in headless chromium and its performance mark is read back', async () => {
  const page = await browser.newPage();
  const problems = watchPageProblems(page);
  await page.goto(`${origin}/`);
  const drawnAt = await markTime(page, 'kgrag:graph-drawn');
  assert.ok(drawnAt > 0 && Number.isFinite(drawnAt), `mark time ${drawnAt}`);
  // WebGL without a GPU: the cleared colour is read back from the software renderer.
  assert.equal(await page.title(), '2 nodes, pixel 26,102,204,255');
  assert.deepEqual(problems.list(), []);
  await page.close();
});

test('console errors and failed requests of a page are collected', async () => {
  const page = await browser.newPage();
  const problems = watchPageProblems(page);
  // Waiting starts before the page loads: its script fetches during loading, and a response that arrived before
  // waitForResponse was called would never be seen.
  const missing = page.waitForResponse(`${origin}/missing.json`);
  await page.goto(`${origin}/broken`);
  await missing;
  const listed = problems.list();
  assert.ok(listed.includes('console error: something broke'), listed.join('\n'));
  assert.ok(listed.includes(`HTTP 404: GET ${origin}/missing.json`), listed.join('\n'));
  await page.close();
});

test('screenshots go to the folder KGRAG_SCREENSHOTS names, and nowhere when it is unset', async () => {
  const page = await browser.newPage();
  await page.goto(`${origin}/`);
  await markTime(page, 'kgrag:graph-drawn');
  const folder = join(mkdtempSync(join(tmpdir(), 'kgrag-screenshots-')), 'made-by-the-helper');
  const saved = process.env.KGRAG_SCREENSHOTS;
  try {
    delete process.env.KGRAG_SCREENSHOTS;
    await screenshot(page, 'unset');
    assert.equal(existsSync(join(process.cwd(), 'unset.png')), false);
    process.env.KGRAG_SCREENSHOTS = folder;
    await screenshot(page, 'graph');
    assert.deepEqual([...readFileSync(join(folder, 'graph.png')).subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  } finally {
    if (saved === undefined) delete process.env.KGRAG_SCREENSHOTS;
    else process.env.KGRAG_SCREENSHOTS = saved;
    rmSync(join(folder, '..'), { recursive: true, force: true });
    await page.close();
  }
});
