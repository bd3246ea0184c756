// kgrag as a user gets it from the registry: the package `npm pack` makes, installed into an empty folder without
// devDependencies. A module the runtime imports from a devDependency, or a file the runtime reads that `files` leaves
// out, works in the checkout and breaks there; this is the only test that sees it.
//
// How it is packed and installed: test/helpers/packed-install.ts.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { packAndInstall, type PackedInstall, runCommand } from './helpers/packed-install.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const folder = mkdtempSync(join(tmpdir(), 'kgrag-packed-install-'));
let packed: PackedInstall;

before(() => {
  packed = packAndInstall(folder);
});

after(() => rmSync(folder, { recursive: true, force: true }));

test('the package holds every file the runtime reads: compiled code, CLI, web explorer, tokenizer tables, sample corpus', () => {
  for (const required of ['bin/kgrag.js', 'dist/index.js', 'dist/index.d.ts', 'dist/server/index.js', 'dist/testing/index.js', 'dist/web/index.html', 'examples/sample-questions.jsonl', 'LICENSE', 'README.md']) {
    assert.ok(packed.files.includes(required), `${required} is not in the package`);
  }
  for (const encoding of ['o200k_base', 'cl100k_base', 'p50k_base', 'r50k_base']) {
    assert.ok(packed.files.includes(`dist/text/tokenizer-ranks/${encoding}.bin`), `the ${encoding} rank table is not in the package`);
  }
  assert.ok(packed.files.some((file) => /^dist\/web\/assets\/.+\.js$/.test(file)), 'the explorer has no script in the package');
  assert.equal(packed.files.filter((file) => file.startsWith('examples/sample-corpus/')).length, readdirSync(join(root, 'examples', 'sample-corpus')).length);
  assert.deepEqual(packed.files.filter((file) => /\.test\.|^src\/|^test\/|^bench\//.test(file)), [], 'tests and sources stay out of the package');
});

test('every module the compiled code imports resolves in an install without devDependencies', () => {
  // Static imports as tsc writes them (one statement per line start) and literal dynamic imports.
  const specifiers = new Set<string>();
  const peerImporters = new Set<string>();
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) {
        if (relative(packed.installed, path) !== join('dist', 'web')) walk(path);
      } else if (name.endsWith('.js')) {
        const code = readFileSync(path, 'utf8');
        for (const match of code.matchAll(/^(?:import|export)\s[^;]*?from\s*['"]([^'"]+)['"]/gm)) {
          specifiers.add(match[1]!);
          if (match[1]!.startsWith('@langchain/')) peerImporters.add(relative(packed.installed, path));
        }
        for (const match of code.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g)) specifiers.add(match[1]!);
      }
    }
  };
  walk(join(packed.installed, 'dist'));
  // An optional peer dependency (a framework an adapter entry point plugs into, `@langchain/core` for kgrag/langchain)
  // is the user's to install: only the adapters may import it.
  const manifest = JSON.parse(readFileSync(join(packed.installed, 'package.json'), 'utf8')) as { peerDependenciesMeta?: Record<string, { optional?: boolean }> };
  const optionalPeers = Object.entries(manifest.peerDependenciesMeta ?? {}).flatMap(([name, meta]) => (meta.optional ? [name] : []));
  const ofOptionalPeer = (specifier: string): boolean => optionalPeers.some((name) => specifier === name || specifier.startsWith(`${name}/`));
  const bare = [...specifiers].filter((specifier) => !/^(\.|node:)/.test(specifier) && !ofOptionalPeer(specifier)).sort();
  assert.ok(bare.includes('graphology') && bare.includes('better-sqlite3'), `the scan found the imports: ${bare.join(', ')}`);
  const script = `const failed = []; for (const specifier of ${JSON.stringify(bare)}) { try { import.meta.resolve(specifier); } catch (error) { failed.push(specifier + ': ' + error.code); } } console.log(JSON.stringify(failed));`;
  const failed = JSON.parse(runCommand(process.execPath, ['--input-type=module', '-e', script], packed.installed)) as string[];
  assert.deepEqual(failed, [], 'modules the runtime imports that the installed package cannot find');
  assert.deepEqual([...peerImporters], [join('dist', 'adapters', 'langchain.js')], 'only the LangChain adapter imports its optional peer');
});

test("`import('kgrag')` and its subpath exports load in the installed package", () => {
  const script = `const kgrag = await import('kgrag'); const server = await import('kgrag/server'); const testing = await import('kgrag/testing');
    console.log(JSON.stringify({ createKgrag: typeof kgrag.createKgrag, serve: typeof server.serveWorkspaces, testing: Object.keys(testing).length }));`;
  const loaded = JSON.parse(runCommand(process.execPath, ['--input-type=module', '-e', script], packed.app)) as { createKgrag: string; serve: string; testing: number };
  assert.deepEqual({ createKgrag: loaded.createKgrag, serve: loaded.serve }, { createKgrag: 'function', serve: 'function' });
  assert.ok(loaded.testing > 0, 'kgrag/testing exports its fakes');
});

test('`npx kgrag demo` indexes the bundled sample corpus and answers with citations', { timeout: 180_000 }, () => {
  const output = runCommand(npm, ['exec', '--no', '--offline', '--', 'kgrag', 'demo'], packed.app);
  // The demo's first sample question asks when the Kester Weir Bridge was opened; only the corpus knows the date.
  assert.match(output, /On what date was the Kester Weir Bridge opened\?/);
  assert.match(output, /14 May 1938/);
  assert.match(output, /\[\d+\] .+\(.*node_modules\/kgrag\/examples\/sample-corpus\/\d\d-[a-z0-9-]+\.md\)/);
});

test('`kgrag serve` from the installed package answers /health and serves the explorer', { timeout: 60_000 }, async () => {
  const workspace = join(folder, 'workspace');
  mkdirSync(workspace);
  const child: ChildProcess = spawn(process.execPath, [join(packed.app, 'node_modules', '.bin', 'kgrag'), '-w', workspace, 'serve', '--port', '0', '--log-level', 'warn'], {
    cwd: packed.app,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  try {
    let stderr = '';
    const url = await new Promise<string>((resolve, reject) => {
      child.stderr!.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
        const found = /serving .* at (http:\/\/[^\s]+) —/.exec(stderr);
        if (found) resolve(found[1]!);
      });
      void exited.then((code) => reject(new Error(`kgrag serve exited with ${code}: ${stderr}`)));
    });
    const health = await fetch(`${url}/health`);
    assert.equal(health.status, 200, await health.clone().text());
    assert.equal(((await health.json()) as { status?: string }).status, 'ok');
    const page = await fetch(`${url}/`);
    assert.equal(page.status, 200);
    assert.match(await page.text(), /<script[^>]+src="[^"]*assets\/[^"]+\.js"/);
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
});
