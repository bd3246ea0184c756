import { cpSync, existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pino from 'pino';
import { createKgrag, type KgragOptions } from '../../src/api/create-kgrag.js';
import { configSchema, type KgragConfigInput } from '../../src/core/config/config-schema.js';
import type { WatchedPaths } from '../../src/server/follow-watched-paths.js';
import { serveWorkspaces, type ServedWorkspaces } from '../../src/server/serve-workspaces.js';
import { EventSourceParserStream } from 'eventsource-parser/stream';

export const sampleCorpus = fileURLToPath(new URL('../../examples/sample-corpus/', import.meta.url));

let built: Promise<string> | undefined;

async function indexSample(directory: string): Promise<void> {
  const kgrag = await createKgrag({ workspace: directory, env: {}, config: { index: { mode: 'fast' } } });
  try {
    await kgrag.index([sampleCorpus]);
  } finally {
    await kgrag.close();
  }
}

/**
 * The fast index of the sample corpus, built once for the whole test run when `KGRAG_TEST_SHARED` names a folder
 * the test processes share (scripts/run-tests.mjs sets it): the first process builds it under a lock directory, the
 * others wait for its marker. The build is deterministic, so every process would build the same index. A builder that
 * died leaves no marker; after a while the others build their own.
 */
async function sharedSample(shared: string): Promise<string> {
  const target = join(shared, 'sample-fast');
  const ready = `${target}.ready`;
  try {
    mkdirSync(`${target}.lock`);
  } catch {
    for (let waited = 0; waited < 300_000; waited += 200) {
      if (existsSync(ready)) return target;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const own = mkdtempSync(join(tmpdir(), 'kgrag-server-sample-'));
    await indexSample(own);
    return own;
  }
  await indexSample(target);
  writeFileSync(ready, '');
  return target;
}

/** A fast-mode index of the sample corpus, built once per test run (or process); each caller gets its own copy. */
export async function sampleWorkspace(): Promise<string> {
  return sampleWorkspaceAt(mkdtempSync(join(tmpdir(), 'kgrag-server-ws-')));
}

/**
 * A copy of the sample corpus's fast index (see {@link sampleWorkspace}) at `directory`: the workspace
 * `createKgrag({ workspace: directory, env: {} })` and `index([sampleCorpus])` build, without building it again.
 */
export async function sampleWorkspaceAt(directory: string): Promise<string> {
  built ??= (async () => {
    const shared = process.env.KGRAG_TEST_SHARED;
    if (shared !== undefined && existsSync(shared)) return sharedSample(shared);
    const own = mkdtempSync(join(tmpdir(), 'kgrag-server-sample-'));
    await indexSample(own);
    return own;
  })();
  cpSync(await built, directory, { recursive: true });
  return directory;
}

/** Options of {@link startTestServer}. */
export interface TestServerOptions {
  directory: string;
  layout?: 'single' | 'folder';
  server?: NonNullable<KgragConfigInput['server']>;
  /** Extra options of every workspace the server opens (a scripted LLM). */
  kgrag?: Omit<KgragOptions, 'workspace'>;
  /** The built web explorer to serve at `/` (default: the package's `dist/web`). */
  webDirectory?: string;
  /** Files and folders to follow, as `kgrag serve --watch` does. */
  watch?: WatchedPaths;
}

/** `kgrag serve` in this process on a free loopback port, logging nothing. */
export async function startTestServer(options: TestServerOptions): Promise<ServedWorkspaces> {
  const config = configSchema.parse({ server: { port: 0, ...options.server } }).server;
  return serveWorkspaces({
    layout: options.layout ?? 'single',
    directory: options.directory,
    config,
    version: 'test',
    logger: pino({ level: 'silent' }),
    openKgrag: (workspace) => createKgrag({ workspace, env: {}, config: { index: { mode: 'fast' } }, ...options.kgrag }),
    webDirectory: options.webDirectory,
    ...(options.watch === undefined ? {} : { watch: options.watch }),
    // Jobs run in processes of their own, as under `kgrag serve`, unless the workspace needs objects of this process.
    ...(options.kgrag === undefined ? { jobProcess: { env: { PATH: process.env.PATH }, config: { index: { mode: 'fast' } } } } : {}),
  });
}

/** One server-sent event. */
export interface SseEvent {
  event: string | undefined;
  data: string;
}

/** Reads a whole event stream with a real SSE parser. */
export async function readEvents(response: Response): Promise<SseEvent[]> {
  const events: SseEvent[] = [];
  const reader = response.body!.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream()).getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return events;
    events.push({ event: value.event, data: value.data });
  }
}
