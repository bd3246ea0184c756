/*
 * The setup the explorer's browser tests share: a scratch folder, the current explorer build, a test server over a
 * workspace the test chooses, and one chromium page watched for problems — started before the file's tests and removed after them.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import type { ServedWorkspaces } from '../../src/server/index.js';
import { type PageProblems, launchBrowser, watchPageProblems } from './browser.js';
import { currentExplorerBuild } from './explorer-build.js';

/** What a browser test drives; valid from the file's `before` hook on. */
export interface ExplorerSession {
  /** A folder of the test's own, removed after the file's tests. */
  readonly scratch: string;
  readonly server: ServedWorkspaces;
  readonly page: Page;
  /** What went wrong in the page since it opened. */
  readonly problems: PageProblems;
}

/**
 * Registers the `before` and `after` hooks of a browser test file. `serve` starts the server, given the scratch folder
 * and the explorer build's folder.
 */
export function explorerSession(name: string, serve: (scratch: string, webDirectory: Promise<string>) => Promise<ServedWorkspaces>): ExplorerSession {
  let scratch: string | undefined;
  let server: ServedWorkspaces | undefined;
  let browser: Browser | undefined;
  let page: Page | undefined;
  let problems: PageProblems | undefined;
  before(async () => {
    scratch = mkdtempSync(join(tmpdir(), `kgrag-${name}-`));
    server = await serve(scratch, currentExplorerBuild(scratch));
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    problems = watchPageProblems(page);
  });
  after(async () => {
    await browser?.close();
    await server?.close();
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });
  const ready = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('the explorer session is used before its before() hook ran');
    return value;
  };
  return {
    get scratch() {
      return ready(scratch);
    },
    get server() {
      return ready(server);
    },
    get page() {
      return ready(page);
    },
    get problems() {
      return ready(problems);
    },
  };
}
