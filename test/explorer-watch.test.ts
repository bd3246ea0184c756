/*
 * The web explorer follows updates it did not start (issue 38): `kgrag serve --watch` (in this process, jobs in their
 * own processes) over a copy of the sample corpus's fast index, and Debian's chromium through playwright-core. A file
 * written into the watched folder shows up in the open explorer — documents, counts, the drift of the statistics, the
 * graph asked for again, the update's job — without a page reload.
 */
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { markTime, screenshot } from './helpers/browser.js';
import { explorerSession } from './helpers/explorer-session.js';
import { sampleWorkspace, startTestServer } from './helpers/test-server.js';

let watched: string;
const session = explorerSession('explorer-watch', async (_scratch, webDirectory) => {
  const [directory, web] = await Promise.all([sampleWorkspace(), webDirectory]);
  watched = join(directory, 'notes');
  mkdirSync(watched);
  return startTestServer({ directory, webDirectory: web, watch: { paths: [watched], debounceMs: 200 } });
});

/** Waits until the server has no job queued or running (the update of the watched folder at start). */
async function idle(): Promise<void> {
  for (;;) {
    const stats = (await (await fetch(`${session.server.url}/v1/stats`)).json()) as { jobs: { running: string[]; queued: string[] } };
    if (stats.jobs.running.length + stats.jobs.queued.length === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

test('a file written into the watched folder shows up in the open explorer without a reload', { timeout: 120_000 }, async () => {
  await idle();
  // The graph view is drawn first, then the documents view shown: the graph stays mounted, hidden.
  await session.page.goto(`${session.server.url}/#view=graph`);
  await markTime(session.page, 'kgrag:graph-drawn');
  await session.page.click('nav [role=tab][data-view=documents]');
  await session.page.waitForSelector('[data-testid=document-row]');
  const factsBefore = (await session.page.textContent('[data-testid=index-facts]')) ?? '';
  assert.match((await session.page.textContent('[data-testid=statistics-drift]')) ?? '', /^statistics from \d+ documents; 0\.0 % changed since$/);
  let navigations = 0;
  session.page.on('framenavigated', (frame) => {
    if (frame === session.page.mainFrame()) navigations++;
  });
  const graphAskedAgain = session.page.waitForRequest((request) => request.url().includes('/v1/graph'), { timeout: 60_000 });
  const documentsBefore = await session.page.locator('[data-testid=document-row]').count();

  writeFileSync(join(watched, 'lantern.md'), '# The Lantern Keeper of Kestermouth\n\nThe lantern keeper of Kestermouth, Odile Varnum, lit the harbour light each dusk from 1899 to 1931.\n');

  await session.page.waitForSelector('[data-testid=document-row]:has-text("The Lantern Keeper of Kestermouth")', { timeout: 60_000 });
  assert.equal(await session.page.locator('[data-testid=document-row]').count(), documentsBefore + 1);
  await session.page.waitForFunction((before) => document.querySelector('[data-testid=index-facts]')?.textContent !== before, factsBefore);
  assert.match((await session.page.textContent('[data-testid=statistics-drift]')) ?? '', /^statistics from \d+ documents; [1-9]\d*\.\d % changed since$/, 'the header says how far the corpus drifted');
  assert.match((await session.page.textContent('[data-testid=jobs]')) ?? '', /update from notes \(watched\)/, 'the update is listed with the jobs');
  await graphAskedAgain;
  assert.equal(navigations, 0, 'the page was not reloaded');
  await screenshot(session.page, 'watch-01-documents');
  assert.deepEqual(session.problems.list(), []);
});
