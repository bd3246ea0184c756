// Runs every *.test.ts under src/ and test/ with node:test through tsx.
// Node 20's --test does not expand globs, so the files are listed here.
//
// The unit tests beside the code (src/**) run in one process, through a generated module that imports them all:
// Node 20 starts a process per test file, and for a hundred small files that start-up (Node, tsx, the modules)
// cost more than the tests. The tests under test/ — child processes, servers, whole indexes — keep a process each.
//
// The web explorer's browser tests (test/explorer*.test.ts) drive Debian's chromium, which a fresh CI machine lacks:
// its install (~70 s, scripts/ensure-chromium.ts) starts here in the background and the browser tests start a minute or
// two later, so it overlaps the other tests. They read its outcome (KGRAG_CHROMIUM_INSTALL_STATUS) and fail with its error if it
// failed. With --typecheck (what `npm test` passes) the type checks (tsc, one core for ~20-30 s) run beside the tests,
// in the moments the tests leave a core idle (servers and child processes waiting), and their failure fails the run at
// its end: run first, they added their whole time to the suite's.
import { chmodSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { spawn } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { compileTestTree } from './compile-test-tree.mjs';

const root = new URL('..', import.meta.url).pathname;
// Arguments starting with -- go to node's test runner (e.g. --test-reporter=spec); the others filter files by substring.
// --tsx runs the TypeScript sources through tsx instead of the compiled mirror (scripts/compile-test-tree.mjs).
const ownOptions = ['--typecheck', '--tsx'];
const typecheck = process.argv.includes('--typecheck');
const fromSources = process.argv.includes('--tsx');
const runnerOptions = process.argv.slice(2).filter((arg) => arg.startsWith('--') && !ownOptions.includes(arg));
const filter = process.argv.slice(2).filter((arg) => !arg.startsWith('--'));

function collect(dir, out) {
  let names;
  try {
    names = readdirSync(dir);
  } catch {
    return out;
  }
  for (const name of names.sort()) {
    if (name === 'node_modules' || name.startsWith('.')) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) collect(path, out);
    else if (name.endsWith('.test.ts')) out.push(relative(root, path));
  }
  return out;
}

const matches = (file) => filter.length === 0 || filter.some((pattern) => file.includes(pattern));
const unitFiles = collect(join(root, 'src'), []).filter(matches);
const otherFiles = collect(join(root, 'test'), []).filter(matches);
if (unitFiles.length + otherFiles.length === 0) {
  console.error('no test files matched');
  process.exit(1);
}

const isBrowserTest = (file) => /^test\/explorer[^/]*\.test\.ts$/.test(file);
const bundleDirectory = mkdtempSync(join(tmpdir(), 'kgrag-unit-tests-'));
// The test processes' TMPDIR: the workspaces, servers' folders and databases they make in the system's temporary
// folder are removed with it when the run ends, however a test ended (a 10 MB workspace copy per server test was
// left behind, about a gigabyte a run). A short path: Postgres's socket path must stay under 108 bytes.
// Open to other users as /tmp is (sticky): embedded Postgres runs initdb as its own user, which reads files placed here.
const scratchDirectory = mkdtempSync(join(tmpdir(), 'kgrag-t-'));
chmodSync(scratchDirectory, 0o1777);
const chromiumStatus = join(bundleDirectory, 'chromium-install.json');
const chromiumInstall = otherFiles.some(isBrowserTest)
  ? spawn(process.execPath, ['--import', 'tsx', 'scripts/ensure-chromium.ts', '--status', chromiumStatus], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] })
  : undefined;
// An install that died without a word still reaches the browser tests as a failure, never as a wait forever.
chromiumInstall?.once('exit', (code, signal) => {
  if (!existsSync(chromiumStatus)) writeFileSync(chromiumStatus, JSON.stringify({ error: `scripts/ensure-chromium.ts exited with ${code ?? signal} before saying why` }));
});

/** The type checks of both projects, one after the other in the background: their output, and whether one failed. */
async function typecheckProjects() {
  const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  let output = '';
  let failed = false;
  for (const project of ['.', 'web']) {
    const child = spawn(process.execPath, [tsc, '--noEmit', '-p', project], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.on('data', (data) => (output += data));
    child.stderr.on('data', (data) => (output += data));
    const code = await new Promise((resolve) => child.once('exit', resolve));
    failed ||= code !== 0;
  }
  return { output, failed };
}
const typechecked = typecheck ? typecheckProjects() : undefined;

// The longest files (a minute or more each on a 2-core machine, measured for issue 20) start first, after the unit
// bundle: one of them starting near the end would run alone while the other worker idles.
const longestFirst = [
  'test/dry-run.test.ts',
  'test/incremental-crash.test.ts',
  'test/standard-faults.test.ts',
  'test/incremental-equivalence.test.ts',
  'test/pipeline.test.ts',
  'test/cli.test.ts',
  'test/eval.test.ts',
  'test/packed-install.test.ts',
  'test/autokg-index.test.ts',
  'test/workspace-writers.test.ts',
  'test/delete-leaves-no-trace.test.ts',
  'test/index-interrupt.test.ts',
  'test/incremental-communities.test.ts',
  'test/local-method.test.ts',
  'test/large-inputs.test.ts',
  // Issue 38: servers and CLIs that follow a folder (20–30 s each).
  'test/serve-watch.test.ts',
  'test/serve-watch-crash.test.ts',
  'test/index-watch.test.ts',
];
const rank = (file) => (longestFirst.includes(file) ? longestFirst.indexOf(file) : longestFirst.length);
const ordered = otherFiles.map((file, index) => ({ file, index })).sort((a, b) => rank(a.file) - rank(b.file) || a.index - b.index).map(({ file }) => file);
// The browser tests start after six of the longest files, a minute or two in: the install (~70–100 s) is over by
// then. As the last files they left one worker idle while the other finished them.
const longest = ordered.filter((file) => longestFirst.includes(file));
const browser = ordered.filter(isBrowserTest);
const others = ordered.filter((file) => !isBrowserTest(file) && !longestFirst.includes(file));
const files = [...longest.slice(0, 6), ...browser, ...longest.slice(6), ...others];
// The compiled mirror of the checkout, or the checkout itself under tsx.
const tree = fromSources ? undefined : await compileTestTree(root);
const runnable = (file) => (tree ? join(tree.folder, file.replace(/\.ts$/, '.js')) : file);
const runnableFiles = files.map(runnable);
if (unitFiles.length > 0) {
  // Named *.test.mjs so that node:test reports it like any test file. Static imports: every module (and its top-level
  // hooks) is loaded before the first test runs; each keeps its own module URL.
  const bundle = join(bundleDirectory, 'unit.test.mjs');
  writeFileSync(bundle, unitFiles.map((file) => `import ${JSON.stringify(pathToFileURL(tree ? runnable(file) : join(root, file)).href)};\n`).join(''));
  runnableFiles.unshift(bundle);
}

// Unless a reporter is asked for, TAP goes to stdout as before and the failures alone to a file, printed at the end.
const failureSummary = join(bundleDirectory, 'failures.txt');
const reporters = runnerOptions.some((option) => option.startsWith('--test-reporter'))
  ? []
  : ['--test-reporter=tap', '--test-reporter-destination=stdout', `--test-reporter=${join(root, 'scripts', 'failure-summary-reporter.mjs')}`, `--test-reporter-destination=${failureSummary}`];
const testRun = spawn(
  process.execPath,
  [
    ...(tree ? ['--enable-source-maps'] : ['--import', 'tsx']),
    '--test',
    `--test-concurrency=${Math.max(2, availableParallelism())}`,
    ...reporters,
    ...runnerOptions,
    ...runnableFiles,
  ],
  {
    cwd: root,
    stdio: 'inherit',
    // KGRAG_TEST_SHARED: a folder the test processes share for what they would otherwise each build alike (the
    // sample corpus's fast index, test/helpers/test-server.ts).
    env: { ...process.env, TMPDIR: scratchDirectory, KGRAG_TEST_SHARED: bundleDirectory, ...(chromiumInstall ? { KGRAG_CHROMIUM_INSTALL_STATUS: chromiumStatus } : {}) },
  },
);
// Ctrl-C reaches the test run too; this process waits for it to end and then removes what it made.
process.on('SIGINT', () => undefined);
const [status] = await new Promise((resolve) => testRun.once('exit', (...exit) => resolve(exit)));
if (existsSync(failureSummary)) {
  const failures = readFileSync(failureSummary, 'utf8');
  if (failures.length > 0) process.stdout.write(`\n# ${failures.split('\n').join('\n# ')}\n`);
}
// The browser tests waited for the install; if they crashed first, apt is left to finish on its own.
chromiumInstall?.unref();
rmSync(bundleDirectory, { recursive: true, force: true });
rmSync(scratchDirectory, { recursive: true, force: true, maxRetries: 3 });
tree?.remove();
const types = await typechecked;
if (types?.failed) {
  process.stderr.write(`\n${types.output}\nthe type check failed (tsc --noEmit -p . and -p web), whatever the tests said\n`);
  process.exit(1);
}
process.exit(status ?? 1);
