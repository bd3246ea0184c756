import { existsSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runsCompiled } from '../../src/core/start-module-worker.js';

/** The folder the tests run in: the checkout, or its compiled mirror (scripts/compile-test-tree.mjs). */
export const repositoryRoot = fileURLToPath(new URL('../../', import.meta.url));

/**
 * Node's arguments to run the TypeScript module at `path` (absolute, or relative to the repository) in a child
 * process: its compiled file when the tests run compiled (`npm test`), through tsx when they run from the sources.
 * A child then starts as fast as the test process that starts it, and runs the same code.
 */
export function nodeScriptArgs(path: string): string[] {
  const absolute = isAbsolute(path) ? path : join(repositoryRoot, path);
  const compiled = absolute.replace(/\.ts$/, '.js');
  return runsCompiled(import.meta.url) && existsSync(compiled) ? [compiled] : ['--import', 'tsx', absolute];
}
