/*
 * The explorer's first screen on a workspace, as a PNG: serves the workspace with the explorer as the sources are now
 * and photographs the graph view once it is drawn. docs/images/explorer-2wiki-*.png come from it (issue 40):
 *
 *   node --import tsx bench/index-child.ts --methods local <workspace> ../shared/datasets/2wiki-corpus/corpus.json
 *   node --import tsx scripts/screenshot-explorer.ts <workspace> docs/images/explorer-2wiki-after.png
 *
 * The "before" picture is of a workspace indexed by the commit before the change (a `git worktree` of it), served
 * by the same explorer.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { launchBrowser, markTime } from '../test/helpers/browser.js';
import { currentExplorerBuild } from '../test/helpers/explorer-build.js';
import { startTestServer } from '../test/helpers/test-server.js';

const [workspace, output] = process.argv.slice(2);
if (!workspace || !output) throw new Error('usage: screenshot-explorer.ts <workspace> <out.png>');
const scratch = mkdtempSync(join(tmpdir(), 'kgrag-screenshot-'));
const server = await startTestServer({ directory: resolve(workspace), webDirectory: await currentExplorerBuild(scratch) });
const browser = await launchBrowser();
try {
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  await page.goto(`${server.url}/`);
  await markTime(page, 'kgrag:graph-drawn');
  // The layout settles over a few frames after the first drawing.
  await page.waitForTimeout(3000);
  await page.screenshot({ path: resolve(output) });
  process.stderr.write(`wrote ${output}\n`);
} finally {
  await browser.close();
  await server.close();
  rmSync(scratch, { recursive: true, force: true });
}
