// Runs test files with node:test in the order given, for scripts/run-tests.mjs. Node 20's `node --test a b c` sorts the
// files by name before it starts them, which undid run-tests.mjs's longest-first order: measured on the suite, files
// started alphabetically, and the last long ones (standard-faults, workspace-writers) ran while the other worker idled.
// `run()` from node:test starts them as listed.
//
// Usage (one JSON argument): {"files": [...], "concurrency": 2, "namePatterns": [...], "reporter": "tap", "failureSummary": "path"}
// `reporter` is a built-in reporter's name (tap, spec, dot, junit) or a module whose default export is one; its output
// goes to stdout. With `failureSummary`, the failed tests are also written there (scripts/failure-summary-reporter.mjs).
// The test processes run with this process's Node options (--enable-source-maps, or --import tsx). Exits 1 if a test
// failed, as `node --test` does.
import { createWriteStream } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { run } from 'node:test';
import * as builtInReporters from 'node:test/reporters';
import { pathToFileURL } from 'node:url';

const options = JSON.parse(process.argv[2] ?? '{}');

async function reporterNamed(name) {
  if (Object.hasOwn(builtInReporters, name) && name !== 'default') return builtInReporters[name];
  const url = isAbsolute(name) || name.startsWith('.') ? pathToFileURL(resolve(name)).href : name;
  return (await import(url)).default;
}

const stream = run({
  files: options.files,
  concurrency: options.concurrency,
  ...(options.namePatterns?.length > 0 ? { testNamePatterns: options.namePatterns } : {}),
});
let failed = false;
stream.on('test:fail', (event) => {
  if (!event.todo) failed = true;
});
stream.compose(await reporterNamed(options.reporter ?? 'tap')).pipe(process.stdout);
if (options.failureSummary) {
  const { default: failureSummary } = await import('./failure-summary-reporter.mjs');
  stream.compose(failureSummary).pipe(createWriteStream(options.failureSummary));
}
process.on('exit', () => {
  if (failed) process.exitCode = 1;
});
