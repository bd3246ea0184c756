// Runs every *.test.ts under src/ and test/ with node:test through tsx.
// Node 20's --test does not expand globs, so the files are listed here.
//
// The unit tests beside the code (src/**) run in one process, through a generated module that imports them all:
// Node 20 starts a process per test file, and for a hundred small files that start-up (Node, tsx, the modules)
// cost more than the tests. The tests under test/ — child processes, servers, whole indexes — keep a process each.
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { spawnSync } from 'node:child_process';
import { availableParallelism } from 'node:os';

const root = new URL('..', import.meta.url).pathname;
const filter = process.argv.slice(2);

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

const bundleDirectory = mkdtempSync(join(tmpdir(), 'kgrag-unit-tests-'));
const files = [...otherFiles];
if (unitFiles.length > 0) {
  // Named *.test.mjs so that node:test reports it like any test file. Static imports: every module (and its top-level
  // hooks) is loaded before the first test runs; each keeps its own module URL.
  const bundle = join(bundleDirectory, 'unit.test.mjs');
  writeFileSync(bundle, unitFiles.map((file) => `import ${JSON.stringify(pathToFileURL(join(root, file)).href)};\n`).join(''));
  files.unshift(bundle);
}

const result = spawnSync(
  process.execPath,
  ['--import', 'tsx', '--test', `--test-concurrency=${Math.max(2, availableParallelism())}`, ...files],
  { cwd: root, stdio: 'inherit' },
);
rmSync(bundleDirectory, { recursive: true, force: true });
process.exit(result.status ?? 1);
