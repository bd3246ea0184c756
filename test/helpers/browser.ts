/*
 * Headless chromium for the web explorer's tests and benchmark: Debian's chromium (installed when missing, see
 * scripts/ensure-chromium.ts) driven by playwright-core.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { type Browser, type Page, chromium } from 'playwright-core';
import { ensureChromium } from '../../scripts/ensure-chromium.js';

export { ensureChromium };

/**
 * Chromium's flags for a machine without network: without the background-networking ones it keeps retrying refused
 * connections and hangs. `--disable-gpu` leaves WebGL to the software renderer, which is enough for sigma.
 */
const chromiumFlags = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/**
 * Starts headless chromium. playwright-core gives it a fresh user-data directory in the temp folder and removes it on
 * `browser.close()`.
 */
export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: await ensureChromium(), headless: true, args: chromiumFlags });
}

/** Writes `<name>.png` to the folder KGRAG_SCREENSHOTS names (created when missing); does nothing when it is unset. */
export async function screenshot(page: Page, name: string): Promise<void> {
  const folder = process.env.KGRAG_SCREENSHOTS;
  if (!folder) return;
  mkdirSync(folder, { recursive: true });
  await page.screenshot({ path: join(folder, `${name}.png`), fullPage: true });
}

/** What went wrong in a page while a test drove it, for `assert.deepEqual(problems.list(), [])`. */
export interface PageProblems {
  /** Console errors, uncaught exceptions and failed or 4xx/5xx requests, each as one line, in the order they happened. */
  list(): string[];
}

/** Starts collecting the page's console errors, uncaught exceptions and failed requests. */
export function watchPageProblems(page: Page): PageProblems {
  const problems: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console error: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`uncaught: ${error.message}`));
  page.on('requestfailed', (request) => problems.push(`request failed: ${request.method()} ${request.url()} (${request.failure()?.errorText ?? 'unknown'})`));
  page.on('response', (response) => {
    if (response.status() >= 400) problems.push(`HTTP ${response.status()}: ${response.request().method()} ${response.url()}`);
  });
  return { list: () => [...problems] };
}

/**
 * Waits until the page has set the performance mark `name` and returns the latest one's time in milliseconds since
 * the page's navigation started (its time origin). The waiting polls; the returned time is the mark's own.
 */
export async function markTime(page: Page, name: string, timeoutMs = 60_000): Promise<number> {
  await page.waitForFunction((mark) => performance.getEntriesByName(mark, 'mark').length > 0, name, { timeout: timeoutMs });
  return page.evaluate((mark) => performance.getEntriesByName(mark, 'mark').at(-1)?.startTime ?? Number.NaN, name);
}
