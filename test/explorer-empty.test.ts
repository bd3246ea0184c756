/*
 * Issue 41: the explorer opens on a workspace with no index — an empty state with the Documents view and its drop
 * zone, no error — takes the first upload, and draws the graph when that job publishes. Debian's chromium through
 * playwright-core.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import type { ServedWorkspaces } from '../src/server/index.js';
import { launchBrowser, screenshot, watchPageProblems } from './helpers/browser.js';
import { currentExplorerBuild } from './helpers/explorer-build.js';
import { startTestServer } from './helpers/test-server.js';

let scratch: string;
let server: ServedWorkspaces;
let browser: Browser;
let page: Page;

before(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'kgrag-explorer-empty-'));
  const directory = join(scratch, 'ws');
  mkdirSync(directory);
  const webDirectory = await currentExplorerBuild(scratch);
  server = await startTestServer({ directory, webDirectory });
  browser = await launchBrowser();
  page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
});

after(async () => {
  await browser?.close();
  await server?.close();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

test('an empty workspace opens on the Documents view, takes the first upload, and draws the graph when it publishes', { timeout: 180_000 }, async () => {
  const problems = watchPageProblems(page);
  await page.goto(`${server.url}/`);
  await page.waitForSelector('[data-testid=empty-index]');
  await page.waitForSelector('section.view[data-view=documents]:not([hidden]) [data-testid=documents-drop-zone]');
  assert.equal(await page.locator('.fatal').count(), 0, 'no error line in place of the explorer');
  await screenshot(page, 'empty-01-documents');

  const file = join(scratch, 'quarrel-rock.md');
  writeFileSync(file, '# Quarrel Rock Lighthouse\n\nThe Quarrel Rock Lighthouse was first lit in 1871 by keeper Elowen Pascoe. Elowen Pascoe kept the Quarrel Rock Lighthouse for forty years, and the Trinity Board named its relief boat after her.\n');
  await page.setInputFiles('[data-testid=documents-file-input]', [file]);
  await page.waitForSelector('[data-testid=job-card][data-status=succeeded]', { timeout: 120_000 });
  await page.waitForSelector('[data-testid=empty-index]', { state: 'detached' });
  await page.waitForSelector('[data-testid=document-row]');

  await page.click('nav [role=tab][data-view=graph]');
  await page.waitForFunction(() => /^[1-9]\d* entities/.test(document.querySelector('[data-testid=graph-size]')?.textContent ?? ''), undefined, { timeout: 30_000 });
  assert.match((await page.textContent('[data-testid=index-facts]')) ?? '', /generation 0$/, 'the first generation published');
  await screenshot(page, 'empty-02-graph');
  // The graph asked before the first job published: a 409 the view shows as an empty graph, not an error.
  const unexpected = problems.list().filter((line) => !/^HTTP 409: GET .*\/v1\/(graph|communities)/.test(line) && !/^console error: Failed to load resource: .*409/.test(line));
  assert.deepEqual(unexpected, []);
});
