// Compiles src/ to dist/ for the published package and the global `kgrag` command, and builds the web explorer
// (web/) into dist/web, which `kgrag serve` serves at `/`. Runs on `npm ci` (prepare); the checkout itself runs
// TypeScript through tsx.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const require = createRequire(import.meta.url);
rmSync(new URL('../dist', import.meta.url), { recursive: true, force: true });
const tsc = join(dirname(require.resolve('typescript/package.json')), 'bin', 'tsc');
const result = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { cwd: root, stdio: 'inherit' });
if (result.status !== 0) process.exit(result.status ?? 1);

// The tokenizer's rank tables as JSON beside the compiled tokenizer: gpt-tokenizer ships them as JavaScript
// array literals (2.4 MB for o200k_base), which take three times longer to parse than the same data as JSON —
// a third of a second of every command's start. src/text/tokenizer.ts reads these when present.
const ranksFolder = join(root, 'dist', 'text', 'tokenizer-ranks');
mkdirSync(ranksFolder, { recursive: true });
for (const encoding of ['o200k_base', 'cl100k_base', 'p50k_base', 'r50k_base']) {
  const { default: ranks } = await import(`gpt-tokenizer/esm/bpeRanks/${encoding}`);
  writeFileSync(join(ranksFolder, `${encoding}.json`), JSON.stringify(ranks));
}

// The web explorer. vite is a devDependency: an install without it (a production install of the published package)
// already has dist/web from the package.
const vite = await import('vite').catch(() => undefined);
if (vite) await vite.build({ configFile: join(root, 'web', 'vite.config.ts') });
