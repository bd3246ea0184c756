/*
 * Issue 41: the explorer opens on a workspace with no index — an empty state with the Documents view and its drop
 * zone, no error — takes the first upload, and draws the graph when that job publishes. Debian's chromium through
 * playwright-core.
 */
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { screenshot } from './helpers/browser.js';
import { explorerSession } from './helpers/explorer-session.js';
import { startTestServer } from './helpers/test-server.js';

const session = explorerSession('explorer-empty', async (scratch, webDirectory) => {
  const directory = join(scratch, 'ws');
  mkdirSync(directory);
  return startTestServer({ directory, webDirectory: await webDirectory });
});

test('an empty workspace opens on the Documents view, takes the first upload, and draws the graph when it publishes', { timeout: 180_000 }, async () => {
  await session.page.goto(`${session.server.url}/`);
  await session.page.waitForSelector('[data-testid=empty-index]');
  await session.page.waitForSelector('section.view[data-view=documents]:not([hidden]) [data-testid=documents-drop-zone]');
  assert.equal(await session.page.locator('.fatal').count(), 0, 'no error line in place of the explorer');
  await screenshot(session.page, 'empty-01-documents');

  const file = join(session.scratch, 'quarrel-rock.md');
  writeFileSync(file, '# Quarrel Rock Lighthouse\n\nThe Quarrel Rock Lighthouse was first lit in 1871 by keeper Elowen Pascoe. Elowen Pascoe kept the Quarrel Rock Lighthouse for forty years, and the Trinity Board named its relief boat after her.\n');
  await session.page.setInputFiles('[data-testid=documents-file-input]', [file]);
  await session.page.waitForSelector('[data-testid=job-card][data-status=succeeded]', { timeout: 120_000 });
  await session.page.waitForSelector('[data-testid=empty-index]', { state: 'detached' });
  await session.page.waitForSelector('[data-testid=document-row]');

  await session.page.click('nav [role=tab][data-view=graph]');
  await session.page.waitForFunction(() => /^[1-9]\d* entities/.test(document.querySelector('[data-testid=graph-size]')?.textContent ?? ''), undefined, { timeout: 30_000 });
  assert.match((await session.page.textContent('[data-testid=index-facts]')) ?? '', /generation 0$/, 'the first generation published');
  await screenshot(session.page, 'empty-02-graph');
  // The graph asked before the first job published: a 409 the view shows as an empty graph, not an error.
  const unexpected = session.problems.list().filter((line) => !/^HTTP 409: GET .*\/v1\/(graph|communities)/.test(line) && !/^console error: Failed to load resource: .*409/.test(line));
  assert.deepEqual(unexpected, []);
});
