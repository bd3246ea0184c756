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

// The tokenizer's rank tables as binary files beside the compiled tokenizer (src/text/rank-table.ts): read back as
// views on the file's bytes, they cost a command a 4 MB read instead of parsing gpt-tokenizer's JavaScript copy of
// the table into a Map (a third of a second of every command's start). src/text/tokenizer.ts reads them when present.
const ranksFolder = join(root, 'dist', 'text', 'tokenizer-ranks');
mkdirSync(ranksFolder, { recursive: true });
const { rankTableBytes, rankTableFromRanks } = await import(new URL('../dist/text/rank-table.js', import.meta.url).href);
for (const encoding of ['o200k_base', 'cl100k_base', 'p50k_base', 'r50k_base']) {
  const { default: ranks } = await import(`gpt-tokenizer/esm/bpeRanks/${encoding}`);
  writeFileSync(join(ranksFolder, `${encoding}.bin`), rankTableBytes(rankTableFromRanks(ranks)));
}

// The explorer's API types, from the OpenAPI document the compiled server generates from its route schemas, before vite
// bundles the explorer that reads them (see scripts/generate-api-types.mjs).
const { apiTypesSource, generatedApiTypesPath } = await import('./generate-api-types.mjs');
const { buildOpenApiDocument } = await import(new URL('../dist/server/build-openapi-document.js', import.meta.url).href);
const apiTypes = await apiTypesSource(buildOpenApiDocument());
if (apiTypes !== undefined) writeFileSync(join(root, generatedApiTypesPath), apiTypes);

// The web explorer. vite is a devDependency: an install without it (a production install of the published package)
// already has dist/web from the package.
const vite = await import('vite').catch(() => undefined);
if (vite) await vite.build({ configFile: join(root, 'web', 'vite.config.ts') });
