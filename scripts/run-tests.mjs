// Runs every *.test.ts under src/ and test/ with node:test, compiled (or through tsx with --tsx). The files are listed
// here and started in the order chosen below by scripts/run-test-files.mjs (`node --test` would sort them by name).
//
// The unit tests beside the code (src/**) run in one process, through a generated module that imports them all:
// Node 20 starts a process per test file, and for a hundred small files that start-up (Node, tsx, the modules)
// cost more than the tests. The short files under test/ run a few dozen to a process the same way; the long ones —
// child processes, servers, whole indexes, browsers — keep a process each.
//
// The web explorer's browser tests (test/explorer*.test.ts) drive Debian's chromium, which a fresh CI machine lacks:
// its install (~70 s, scripts/ensure-chromium.ts) starts here in the background and the browser tests start about three
// minutes later (the order below), so it overlaps the other tests. They read its outcome (KGRAG_CHROMIUM_INSTALL_STATUS) and fail with its error if it
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
// Arguments that do not start with -- filter files by substring. Options: --typecheck; --tsx runs the TypeScript sources
// through tsx instead of the compiled mirror (scripts/compile-test-tree.mjs); and for node:test,
// --test-reporter=<tap|spec|dot|junit|module> (one), --test-name-pattern=<pattern> (any number), --test-concurrency=<n>.
const typecheck = process.argv.includes('--typecheck');
const fromSources = process.argv.includes('--tsx');
const valueOf = (arg, name) => (arg.startsWith(`${name}=`) ? arg.slice(name.length + 1) : undefined);
const options = process.argv.slice(2).filter((arg) => arg.startsWith('--'));
const reporter = options.map((arg) => valueOf(arg, '--test-reporter')).findLast((value) => value !== undefined);
const namePatterns = options.flatMap((arg) => valueOf(arg, '--test-name-pattern') ?? []);
const concurrency = Number(options.map((arg) => valueOf(arg, '--test-concurrency')).findLast((value) => value !== undefined) ?? Math.max(2, availableParallelism()));
const unknown = options.filter((arg) => !['--typecheck', '--tsx'].includes(arg) && !['--test-reporter', '--test-name-pattern', '--test-concurrency'].some((name) => valueOf(arg, name) !== undefined));
if (unknown.length > 0 || !Number.isInteger(concurrency) || concurrency < 1) {
  console.error(
    `run-tests: ${unknown.length > 0 ? `unknown option ${unknown.join(' ')}` : '--test-concurrency must be a whole number of at least 1'}; the options are --typecheck, --tsx, --test-reporter=<tap|spec|dot|junit|module>, --test-name-pattern=<pattern> and --test-concurrency=<n>`,
  );
  process.exit(2);
}
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

// Wall times of the long files in one `npm test` on the 2-core machine (2026-12-07, each test process's start and exit
// logged): those of 10 s or more, the browser tests (test/explorer*) among them; the others took 5 s on average, the unit
// bundle 90 s.
const measuredSeconds = {
  'test/postgres-connection-loss.test.ts': 48,
  'test/standard-faults.test.ts': 38,
  'test/index-workers.test.ts': 38,
  'test/explorer.test.ts': 34,
  'test/packed-install.test.ts': 32,
  'test/pipeline.test.ts': 28,
  'test/server-http.test.ts': 28,
  'test/explorer-views.test.ts': 27,
  'test/postgres-shared-jobs.test.ts': 24,
  'test/serve-watch.test.ts': 19,
  'test/postgres-least-privilege.test.ts': 19,
  'test/autokg-index.test.ts': 18,
  'test/workspace-writers.test.ts': 18,
  'test/server-restart.test.ts': 17,
  'test/explorer-entity-edits.test.ts': 17,
  'test/server-jobs.test.ts': 16,
  'test/dry-run.test.ts': 16,
  'test/explorer-watch.test.ts': 15,
  'test/incremental-equivalence.test.ts': 14,
  'test/explorer-empty.test.ts': 14,
  'test/postgres-workspace.test.ts': 13,
  'test/eval.test.ts': 13,
  'test/incremental-crash.test.ts': 13,
  'test/server-tenants.test.ts': 13,
  'test/graphrag-interop.test.ts': 13,
  'test/serve-watch-crash.test.ts': 11,
  'test/incremental-communities.test.ts': 11,
  'test/cli.test.ts': 11,
  'test/index-watch.test.ts': 10,
  'test/nlp-incremental.test.ts': 10,
};
const unitBundleSeconds = 90;
// The other files of test/ run in shared processes too, a few bundles of them: a process per file cost about a second
// of start-up each, and each loaded the library, wink-nlp's model and the sample index again. Measured (2026-12-07,
// the 89 short files, two workers): 184 s one process each, 99 s in two bundles; a bundled file costs about 2.2 s.
const shortFilesPerBundle = 24;
const bundledFileSeconds = 2.2;
const shortFiles = new Set(otherFiles.filter((file) => !(file in measuredSeconds) && !isBrowserTest(file)));
const bundleCount = Math.ceil(shortFiles.size / shortFilesPerBundle);
/** The processes to start: each a bundle of files (imported by one generated module) or one file, with its expected seconds. */
const jobs = [
  ...(unitFiles.length > 0 ? [{ name: 'unit', files: unitFiles, seconds: unitBundleSeconds }] : []),
  ...Array.from({ length: bundleCount }, (_, index) => {
    const files = [...shortFiles].filter((_, position) => position % bundleCount === index);
    return { name: `test-${index + 1}`, files, seconds: files.length * bundledFileSeconds };
  }),
  // An unmeasured file here is a short browser test.
  ...otherFiles.filter((file) => !shortFiles.has(file)).map((file) => ({ file, seconds: measuredSeconds[file] ?? bundledFileSeconds })),
];
// Longest first, so that no long one is left near the end to run alone while the other worker idles. The browser
// tests start after six of the others, about three minutes in: chromium's install (~70–100 s) is over by then.
const longestFirst = (list) => [...list].sort((a, b) => b.seconds - a.seconds || ((a.file ?? a.name) < (b.file ?? b.name) ? -1 : 1));
const browserJobs = longestFirst(jobs.filter((job) => job.file !== undefined && isBrowserTest(job.file)));
const otherJobs = longestFirst(jobs.filter((job) => !browserJobs.includes(job)));
const ordered = [...otherJobs.slice(0, 6), ...browserJobs, ...otherJobs.slice(6)];
// The compiled mirror of the checkout, or the checkout itself under tsx.
const tree = fromSources ? undefined : await compileTestTree(root);
const runnable = (file) => (tree ? join(tree.folder, file.replace(/\.ts$/, '.js')) : join(root, file));
// A bundle is named *.test.mjs so that node:test reports it like any test file. Static imports: every module (and its
// top-level hooks) is loaded before the first test runs; each keeps its own module URL.
const runnableFiles = ordered.map((job) => {
  if (job.file !== undefined) return runnable(job.file);
  const bundle = join(bundleDirectory, `${job.name}.test.mjs`);
  writeFileSync(bundle, job.files.map((file) => `import ${JSON.stringify(pathToFileURL(runnable(file)).href)};\n`).join(''));
  return bundle;
});

// Unless a reporter is asked for, TAP goes to stdout as before and the failures alone to a file, printed at the end.
const failureSummary = join(bundleDirectory, 'failures.txt');
const testRun = spawn(
  process.execPath,
  [
    ...(tree ? ['--enable-source-maps'] : ['--import', 'tsx']),
    join(root, 'scripts', 'run-test-files.mjs'),
    JSON.stringify({ files: runnableFiles, concurrency, namePatterns, reporter: reporter ?? 'tap', ...(reporter === undefined ? { failureSummary } : {}) }),
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
