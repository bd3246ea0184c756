// Compiles the checkout's TypeScript (src/, test/, bench/, scripts/) to JavaScript in a mirror of the checkout, for
// scripts/run-tests.mjs. Under tsx every Node process of the suite (a process per test file, and every CLI, server
// or worker process a test starts) loaded its few hundred modules through tsx's loader thread: ~2.4 s of CPU each,
// a third of the suite's CPU time on a 2-core machine. Plain node loads the compiled files in a fraction of that.
//
// The mirror sits inside the checkout (`.test-build/run-<pid>/`), so that packages resolve from its node_modules and
// every path a test builds from its own location (`../examples/…`, `../src/cli/main.ts`, `../dist/web`) names the same
// thing as in the checkout: other top-level entries are symbolic links, and beside each compiled `x.js` a link
// `x.ts` points at its source (tests that read sources, or run one under tsx, find it). esbuild transpiles each file
// alone, as tsx does (tsconfig's isolatedModules and verbatimModuleSyntax make that exact); `npm test` still type
// checks the whole checkout first.
import { existsSync, mkdirSync, readdirSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';

const compiledFolders = ['src', 'test', 'bench', 'scripts'];

/** Builds the mirror of `root` and returns its folder; `remove()` deletes it. */
export async function compileTestTree(root) {
  const { build } = await import('esbuild');
  const parent = join(root, '.test-build');
  const mirror = join(parent, `run-${process.pid}`);
  removeAbandonedMirrors(parent);
  rmSync(mirror, { recursive: true, force: true });
  mkdirSync(mirror, { recursive: true });
  // The evaluation data beside the checkout (`../shared`), where tests that read it look, seen from the mirror too.
  const shared = join(root, '..', 'shared');
  if (existsSync(shared) && !existsSync(join(parent, 'shared'))) {
    try {
      symlinkSync(shared, join(parent, 'shared'));
    } catch {
      // A run starting at the same time made it.
    }
  }
  for (const name of readdirSync(root)) {
    if (name === '.git' || name === '.test-build' || compiledFolders.includes(name)) continue;
    symlinkSync(join(root, name), join(mirror, name));
  }
  const entryPoints = [];
  const mirrorFolder = (relative) => {
    mkdirSync(join(mirror, relative), { recursive: true });
    for (const name of readdirSync(join(root, relative))) {
      const path = join(relative, name);
      if (statSync(join(root, path)).isDirectory()) {
        if (name !== 'node_modules') mirrorFolder(path);
        continue;
      }
      symlinkSync(join(root, path), join(mirror, path));
      if (name.endsWith('.ts') && !name.endsWith('.d.ts')) entryPoints.push(join(root, path));
    }
  };
  for (const folder of compiledFolders) mirrorFolder(folder);
  await build({
    entryPoints,
    outdir: mirror,
    outbase: root,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    // Failures point at the TypeScript lines (node runs with --enable-source-maps).
    sourcemap: 'inline',
    logLevel: 'error',
  });
  // The tokenizers' rank tables as the build wrote them beside dist's tokenizer (when it ran): read as files they save
  // each process of the suite ~0.3 s of parsing gpt-tokenizer's copies (test/tokenizer-rank-table.test.ts checks them).
  const ranks = join(root, 'dist', 'text', 'tokenizer-ranks');
  if (existsSync(ranks)) symlinkSync(ranks, join(mirror, 'src', 'text', 'tokenizer-ranks'));
  return {
    folder: mirror,
    remove() {
      rmSync(mirror, { recursive: true, force: true });
      try {
        // The parent goes once no other run is using it.
        if (readdirSync(parent).every((name) => name === 'shared')) rmSync(parent, { recursive: true, force: true });
      } catch {
        // Another run removed it first.
      }
    },
  };
}

/** Mirrors of runs that were killed before they could remove theirs. */
function removeAbandonedMirrors(parent) {
  let names = [];
  try {
    names = readdirSync(parent);
  } catch {
    return;
  }
  for (const name of names) {
    const pid = Number(/^run-(\d+)$/.exec(name)?.[1]);
    if (!Number.isInteger(pid) || isRunning(pid)) continue;
    rmSync(join(parent, name), { recursive: true, force: true });
  }
}

function isRunning(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === 'EPERM';
  }
}
