import { cpSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pino from 'pino';
import { createKgrag, type KgragOptions } from '../../src/api/create-kgrag.js';
import { configSchema, type KgragConfigInput } from '../../src/core/config/config-schema.js';
import { serveWorkspaces, type ServedWorkspaces } from '../../src/server/serve-workspaces.js';
import { EventSourceParserStream } from 'eventsource-parser/stream';

export const sampleCorpus = fileURLToPath(new URL('../../examples/sample-corpus/', import.meta.url));

let built: Promise<string> | undefined;

/** A fast-mode index of the sample corpus, built once per test process; each caller gets its own copy. */
export async function sampleWorkspace(): Promise<string> {
  built ??= (async () => {
    const directory = mkdtempSync(join(tmpdir(), 'kgrag-server-sample-'));
    const kgrag = await createKgrag({ workspace: directory, env: {}, config: { index: { mode: 'fast' } } });
    try {
      await kgrag.index([sampleCorpus]);
    } finally {
      await kgrag.close();
    }
    return directory;
  })();
  const source = await built;
  const copy = mkdtempSync(join(tmpdir(), 'kgrag-server-ws-'));
  cpSync(source, copy, { recursive: true });
  return copy;
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
