/*
 * Issue 41: what the explorer changes in an index — merge and split from the entity panel, through the same API as
 * `kgrag entities merge|split|undo`, with undo; and building a method the index lacks from the query view. Debian's
 * chromium through playwright-core, on a small fast index built for `local` only.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { createKgrag } from '../src/api/create-kgrag.js';
import { screenshot } from './helpers/browser.js';
import { explorerSession } from './helpers/explorer-session.js';
import { startTestServer } from './helpers/test-server.js';

const documents = [
  { title: 'The Analytical Engine', text: 'Ada Lovelace wrote the first program for the Analytical Engine of Charles Babbage. Lovelace saw that the Analytical Engine could compose music; Lovelace published her notes in 1843.' },
  { title: 'Lovelace in London', text: 'Ada Lovelace lived in London and met Charles Babbage at a party in 1833. The Countess of Lovelace, as Ada Lovelace became, corresponded with Charles Babbage about the Analytical Engine.' },
];

const session = explorerSession('explorer-entity-edits', async (scratch, webDirectory) => {
  const directory = join(scratch, 'ws');
  const kgrag = await createKgrag({ workspace: directory, env: {}, config: { index: { mode: 'fast' }, pipeline: { methods: ['local'] } } });
  await kgrag.index(documents);
  await kgrag.close();
  // Jobs in this process: what is tested is the panel, and a job process's start-up would be most of the wait.
  return startTestServer({ directory, webDirectory: await webDirectory, kgrag: {} });
});

test('the query view builds a method the index lacks on request, and then runs it', { timeout: 120_000 }, async () => {
  const { page } = session;
  await page.goto(`${session.server.url}/#view=query`);
  await page.selectOption('[data-testid=query-method]', 'ppr');
  const notice = page.locator('[data-testid=method-not-built]');
  assert.match((await notice.textContent()) ?? '', /ppr is not built for this index/);
  assert.doesNotMatch((await notice.textContent()) ?? '', /kgrag index|--methods/, 'no command line in the web');
  await notice.locator('button').click();
  await notice.waitFor({ state: 'detached', timeout: 60_000 });
  // By the option's value property: Preact leaves out the value attribute where it equals the text.
  const label = await page.$eval('[data-testid=query-method]', (select) => [...(select as HTMLSelectElement).options].find((option) => option.value === 'ppr')?.textContent ?? '');
  assert.equal(label, 'ppr');
  await page.fill('[data-testid=query-question]', 'Where did Ada Lovelace live?');
  await page.click('[data-testid=query-run]');
  await page.waitForSelector('[data-testid=answer]', { timeout: 60_000 });
});

test('merge an entity into the one in the panel, see the merge recorded, and undo it', { timeout: 120_000 }, async () => {
  const { page } = session;
  await page.goto(`${session.server.url}/#view=graph`);
  await page.fill('[data-testid=entity-search]', 'Countess of Lovelace');
  await page.waitForSelector('[data-testid=entity-suggestions] li:has-text("Countess of Lovelace")');
  await page.press('[data-testid=entity-search]', 'Enter');
  await page.waitForSelector('[data-testid=entity-panel] h2:text-is("Countess of Lovelace")');

  await page.click('[data-testid=entity-edits] summary');
  await page.fill('[data-testid=merge-search]', 'Lovelace');
  await page.click('[data-testid=entity-edits] [data-testid=entity-suggestions] li:has(strong:text-is("Lovelace"))');
  await page.click('[data-testid=merge-entity]');
  await page.waitForSelector('[data-testid=entity-edit][data-edit-id=edit-1]', { timeout: 60_000 });
  assert.match((await page.textContent('[data-testid=entity-panel] .aliases')) ?? '', /Lovelace/);
  assert.match((await page.textContent('[data-testid=entity-edit]')) ?? '', /^Lovelace merged in/);
  await screenshot(page, 'entity-edit-01-merged');
  const { entities } = (await (await fetch(`${session.server.url}/v1/entities?q=Lovelace`)).json()) as { entities: Array<{ title: string }> };
  // The index holds the merge: the name finds the entity it was merged into, first, and no entity of its own.
  assert.equal(entities[0]?.title, 'Countess of Lovelace');
  assert.ok(!entities.some((entity) => entity.title === 'Lovelace'));

  await page.click('[data-testid=undo-edit]');
  await page.waitForSelector('[data-testid=entity-edit]', { state: 'detached', timeout: 60_000 });
  await page.waitForSelector('[data-testid=entity-panel] .aliases', { state: 'detached' });
  await screenshot(page, 'entity-edit-02-undone');

  // An edit another client makes: the side panel, open on the entity merged away, says it is gone.
  await page.fill('[data-testid=entity-search]', 'Lovelace');
  // The list still shows the last search's suggestions until this one's answer replaces them, and a click landing as
  // they are replaced takes whatever suggestion is then under it: the exact name first says they are this search's.
  await page.waitForSelector('[data-testid=entity-suggestions] li:first-child strong:text-is("Lovelace")');
  await page.click('[data-testid=entity-suggestions] li:first-child');
  await page.waitForSelector('[data-testid=entity-panel] h2:text-is("Lovelace")');
  const edit = await fetch(`${session.server.url}/v1/entities/edits`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ merge: ['Lovelace'], into: 'Countess of Lovelace' }) });
  assert.equal(edit.status, 202);
  await page.waitForSelector('[data-testid=inspector] [data-testid=entity-gone]', { timeout: 60_000 });
  const gone = /^HTTP 404: GET .*\/v1\/entities\/[0-9a-f]+\?maxSources=10$|^console error: Failed to load resource: .*404/;
  assert.deepEqual(
    session.problems.list().filter((line) => !gone.test(line)),
    [],
  );
});
