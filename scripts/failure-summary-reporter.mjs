// A node:test reporter that writes only the failed tests, each with its file and error, once the run ends.
// scripts/run-tests.mjs prints that list after the TAP stream, where a reader of a long log's tail sees it: in the
// TAP output a failure sits among thousands of lines, and a log cut to its end shows only the counts.
import { inspect } from 'node:util';

/** A file's suites (parents) fail with their failing test; only the tests themselves are listed. */
export default async function* failureSummary(source) {
  const failures = [];
  for await (const event of source) {
    if (event.type !== 'test:fail') continue;
    const { name, file, details, todo } = event.data;
    // A failing todo test does not fail the run.
    if (todo) continue;
    const error = details?.error;
    if (error?.failureType === 'subtestsFailed') continue;
    const cause = error?.cause ?? error;
    const message = cause instanceof Error ? (cause.stack ?? cause.message) : inspect(cause, { depth: 4 });
    failures.push(`not ok: ${name}\n  file: ${file ?? '(unknown)'}\n  ${String(message).split('\n').slice(0, 16).join('\n  ')}\n`);
  }
  if (failures.length > 0) yield `${failures.length} failed:\n\n${failures.join('\n')}`;
}
