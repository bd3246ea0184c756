// The Dockerfile, .dockerignore and compose.yaml, checked without a Docker daemon (none runs here): the build context
// holds every file the image's build stage copies and nothing the build makes or the repository keeps out, the
// runtime stage runs unprivileged with a health check, and compose wires the database, the migration, two query servers,
// an indexer and a shards worker, and Prometheus. What the runtime stage installs — the packed package with its production dependencies — is
// what test/packed-install.test.ts installs and runs.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { test } from 'node:test';
import { parse } from 'yaml';
import { checkoutRoot } from './helpers/packed-install.js';

interface Instruction {
  keyword: string;
  args: string;
}

/** The Dockerfile's instructions per stage (line continuations joined, comments dropped). */
function dockerfileStages(text: string): Instruction[][] {
  const lines = text.replace(/\\\n/g, ' ').split('\n').map((line) => line.trim()).filter((line) => line.length > 0 && !line.startsWith('#'));
  const stages: Instruction[][] = [];
  for (const line of lines) {
    const [keyword = '', ...rest] = line.split(/\s+/);
    const instruction = { keyword: keyword.toUpperCase(), args: rest.join(' ') };
    if (instruction.keyword === 'FROM') stages.push([]);
    stages.at(-1)?.push(instruction);
  }
  return stages;
}

/** A .dockerignore pattern as a test of a context path (Docker's rules: `*` within a segment, `**` across, `!` re-includes). */
function ignoreMatcher(text: string): (path: string) => boolean {
  const rules = text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line.length > 0 && !line.startsWith('#'))
    .map((line) => {
      const include = line.startsWith('!');
      const pattern = (include ? line.slice(1) : line).replace(/^\/+|\/+$/g, '');
      // As Docker reads them: "**/" is any number of folders, none included.
      const source = pattern
        .split('/')
        .map((part) => (part === '**' ? '\u0000' : part.replace(/[.+^${}()|[\]\\]/g, '\\$&').replaceAll('*', '[^/]*').replaceAll('?', '[^/]')))
        .join('/')
        .replaceAll('\u0000/', '(?:.*/)?')
        .replaceAll('\u0000', '.*');
      // A pattern naming a folder excludes what is inside it too.
      return { include, regex: new RegExp(`^${source}(/.*)?$`) };
    });
  return (path) => rules.reduce((ignored, rule) => (rule.regex.test(path) ? !rule.include : ignored), false);
}

/** Every file under `folder` (relative to the checkout), without descending into what `skip` rejects. */
function filesUnder(folder: string, skip: (path: string) => boolean): string[] {
  const found: string[] = [];
  const walk = (directory: string): void => {
    for (const name of readdirSync(directory)) {
      const path = join(directory, name);
      const inContext = relative(checkoutRoot, path);
      if (skip(inContext)) continue;
      if (statSync(path).isDirectory()) walk(path);
      else found.push(inContext);
    }
  };
  walk(folder);
  return found;
}

const dockerfile = readFileSync(join(checkoutRoot, 'Dockerfile'), 'utf8');
const ignored = ignoreMatcher(readFileSync(join(checkoutRoot, '.dockerignore'), 'utf8'));

test('the build context holds every file the build stage copies, and no build output, dependencies or data', () => {
  const [build, runtime] = dockerfileStages(dockerfile);
  assert.ok(build && runtime, 'two stages: build and runtime');
  const copied = build.filter((instruction) => instruction.keyword === 'COPY' && !instruction.args.startsWith('--from')).flatMap((instruction) => instruction.args.split(/\s+/).slice(0, -1));
  assert.ok(copied.length > 0);
  for (const source of copied) {
    assert.ok(existsSync(join(checkoutRoot, source)), `COPY ${source}: not in the checkout`);
    assert.ok(!ignored(source), `COPY ${source}: excluded by .dockerignore`);
  }
  // What `npm ci` and its `prepare` (scripts/build.mjs) read: the lock file, the sources, the explorer, the files of the package.
  for (const needed of ['package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json', 'scripts/build.mjs', 'src/index.ts', 'web/vite.config.ts', 'bin/kgrag.js', 'examples/sample-corpus', 'README.md']) {
    assert.ok(copied.some((source) => needed === source || needed.startsWith(`${source}/`)), `the build stage does not copy ${needed}`);
  }
  const context = filesUnder(checkoutRoot, ignored);
  for (const path of context) assert.doesNotMatch(path, /^(node_modules|dist|\.git|\.test-build)\/|\.db$|\.tgz$/, `${path} is sent to the builder`);
  assert.ok(context.includes('src/index.ts') && context.includes('package-lock.json'));
});

test('workspaces anywhere in the checkout stay out of the build context: `kgrag eval` writes kgrag-eval/ in the folder it runs in', () => {
  for (const path of ['kgrag-eval/hotpotqa-train-100/workspace/kgrag.db', 'notes/kgrag.db', 'notes/kgrag.db-draft', 'notes/.kgrag/lock', 'kgrag.db']) {
    assert.ok(ignored(path), `${path} would be sent to the builder`);
  }
});

test('the runtime stage runs the installed package as an unprivileged user, with a liveness check', () => {
  const [build, runtime] = dockerfileStages(dockerfile) as [Instruction[], Instruction[]];
  const run = build.filter((instruction) => instruction.keyword === 'RUN').map((instruction) => instruction.args).join(' ');
  // The install a user makes: packed, then production dependencies only (test/packed-install.test.ts runs the same).
  assert.match(run, /npm ci\b/);
  assert.match(run, /npm pack\b/);
  assert.match(run, /npm install --omit=dev\b/);
  const user = runtime.filter((instruction) => instruction.keyword === 'USER').at(-1)?.args;
  assert.ok(user !== undefined && !/^(root|0)(:|$)/.test(user), `runtime user: ${user}`);
  assert.ok(runtime.some((instruction) => instruction.keyword === 'COPY' && instruction.args.startsWith('--from=build')), 'the runtime copies only the build stage\'s install');
  assert.ok(!runtime.some((instruction) => instruction.keyword === 'RUN' && /apt-get install|npm (ci|install)/.test(instruction.args)), 'no compiler or npm install in the runtime stage');
  const health = runtime.find((instruction) => instruction.keyword === 'HEALTHCHECK')?.args ?? '';
  assert.match(health, /\/health\/live/);
  const entrypoint = JSON.parse(runtime.find((instruction) => instruction.keyword === 'ENTRYPOINT')?.args ?? '[]') as string[];
  assert.deepEqual(entrypoint.slice(0, 2), ['node', '/app/node_modules/kgrag/bin/kgrag.js']);
  // The package's bin is what the entrypoint runs.
  const bin = (JSON.parse(readFileSync(join(checkoutRoot, 'package.json'), 'utf8')) as { bin: Record<string, string> }).bin.kgrag;
  assert.equal(`/app/node_modules/kgrag/${bin}`, entrypoint[1]);
});

test('compose: the owner\'s migration first, then two query servers, an indexer and a shards worker on one database, and Prometheus scraping both', () => {
  const compose = parse(readFileSync(join(checkoutRoot, 'compose.yaml'), 'utf8'), { merge: true }) as {
    services: Record<string, { image?: string; command?: string[]; environment?: Record<string, string>; depends_on?: Record<string, { condition: string }> | string[]; healthcheck?: { test?: string[]; disable?: boolean }; volumes?: string[] }>;
  };
  const { services } = compose;
  assert.deepEqual(Object.keys(services).sort(), ['db', 'indexer', 'migrate', 'prometheus', 'server-a', 'server-b', 'worker']);
  assert.match(services.db?.image ?? '', /^pgvector\/pgvector:/);
  assert.ok(services.db?.healthcheck?.test?.join(' ').includes('pg_isready'));
  assert.deepEqual(services.migrate?.command, ['migrate']);
  assert.deepEqual(services.migrate?.depends_on, { db: { condition: 'service_healthy' } });
  for (const name of ['server-a', 'server-b', 'indexer', 'worker']) {
    const service = services[name];
    assert.deepEqual(service?.depends_on, { migrate: { condition: 'service_completed_successfully' } }, name);
    const environment = service?.environment ?? {};
    assert.match(environment.KGRAG_DATABASE_URL ?? '', /^postgres:\/\/kgrag:\$\{POSTGRES_PASSWORD:-kgrag-local-only\}@db:5432\/kgrag$/, `${name}: the database, its password from the environment`);
    assert.match(environment.KGRAG_API_KEYS ?? '', /^\$\{KGRAG_API_KEYS:\?/, `${name}: no key written in the file; compose refuses to start without one`);
    assert.equal(environment.KGRAG_STORE_WORKSPACE, '${KGRAG_WORKSPACE_NAME:-default}', `${name}: every process on the same workspace`);
  }
  // The query servers run no index work; the indexer runs every job, whichever server queued it.
  assert.deepEqual(services['server-a']?.command, ['serve', '--index-jobs', 'workers']);
  assert.deepEqual(services['server-b']?.command, ['serve', '--index-jobs', 'workers']);
  assert.deepEqual(services.indexer?.command, ['worker', '--role', 'indexer']);
  assert.deepEqual(services.worker?.command, ['worker', '--role', 'shards']);
  const scrape = parse(readFileSync(join(checkoutRoot, 'deploy', 'prometheus.yml'), 'utf8')) as { scrape_configs: Array<{ metrics_path: string; static_configs: Array<{ targets: string[] }> }> };
  assert.equal(scrape.scrape_configs[0]?.metrics_path, '/metrics');
  assert.deepEqual(scrape.scrape_configs[0]?.static_configs[0]?.targets, ['server-a:8080', 'server-b:8080']);
  assert.ok(services.prometheus?.volumes?.some((volume) => volume.startsWith('./deploy/prometheus.yml:')));
});
