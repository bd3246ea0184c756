import type { Writable } from 'node:stream';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { Kgrag } from '../../api/create-kgrag.js';
import { createMcpServer, type McpTarget } from '../../mcp/create-mcp-server.js';
import type { InputDocument, PipelineEvent } from '../../pipeline/pipeline-step.js';
import type { PipelineSummary } from '../../pipeline/run-pipeline.js';
import { type CliIo, writeLine } from '../cli-io.js';
import { openWorkspace } from '../open-workspace.js';
import { llmPriceOf } from '../llm-price-of.js';
import { createProgressRenderer } from '../progress-renderer.js';
import { createRetryReporter } from '../retry-reporter.js';
import { type GlobalOptions, workspaceOptions } from '../workspace-options.js';
import { writerLockOptions } from '../writer-lock-options.js';

/** What `add_documents` tells the agent about an index run. */
function addedMessage(documents: readonly InputDocument[], summary: PipelineSummary): string {
  const load = summary.counts.load ?? {};
  const parts = [`${load.added ?? 0} added`, `${load.replaced ?? 0} replaced`, `${load.unchanged ?? 0} unchanged`];
  return `indexed ${documents.length} ${documents.length === 1 ? 'document' : 'documents'} (${parts.join(', ')}); the index now holds ${load.documents ?? 0} documents and queries see them`;
}

/**
 * Console output of the process's dependencies goes to stderr while the MCP server runs: stdout is the protocol,
 * and one stray line there would break the client's stream. Returns the function that puts the console back.
 */
function consoleToStderr(): () => void {
  const saved = { log: console.log, info: console.info, debug: console.debug };
  console.log = console.info = console.debug = console.error;
  return () => Object.assign(console, saved);
}

/**
 * `kgrag mcp`: the MCP server over stdio for the workspace, until the client closes stdin or the process gets
 * SIGINT or SIGTERM. `add_documents` indexes in this process and waits (taking the writer lock like any writer);
 * its progress goes to stderr, as does everything else: stdout carries only the protocol. Stopping interrupts a
 * running index job, which keeps its draft for the next run to resume, then closes the workspace.
 */
export async function mcpCommand(global: GlobalOptions, io: CliIo): Promise<void> {
  const restoreConsole = consoleToStderr();
  const shutdown = new AbortController();
  let kgrag: Kgrag | undefined;
  const running = new Set<Promise<unknown>>();
  // Why the server stops, for the line on stderr: the client closing stdin, or a signal.
  let settle = (_reason: string): void => undefined;
  const stopped = new Promise<string>((resolve) => {
    settle = resolve;
  });
  const stops: Array<[NodeJS.EventEmitter, string, () => void]> = [
    [process.stdin, 'end', () => settle('the client closed stdin')],
    [process.stdin, 'close', () => settle('the client closed stdin')],
    [process, 'SIGINT', () => settle('SIGINT')],
    [process, 'SIGTERM', () => settle('SIGTERM')],
  ];
  for (const [emitter, event, listener] of stops) emitter.once(event, listener);
  try {
    // The renderer reports retries while the workspace opens, before its model's price is known.
    let priced = false;
    const renderer = createProgressRenderer(io.stderr, { quiet: global.quiet === true, priced: () => priced });
    const retries = createRetryReporter((line) => renderer.log(line));
    kgrag = await openWorkspace({ ...workspaceOptions(global, io), onRetry: retries.onRetry }, io);
    priced = llmPriceOf(kgrag).price !== undefined;
    const workspace = kgrag;
    // A write of a tool: the writer lock as the CLI takes it, progress on stderr, and kept until it ends (a stop waits).
    const write = async <T>(tool: string, start: (options: ReturnType<typeof writerLockOptions> & { signal: AbortSignal; onEvent: (event: PipelineEvent) => void }) => Promise<T>): Promise<T> => {
      const run = start({
        ...writerLockOptions(`kgrag mcp (${tool})`, true, io),
        signal: shutdown.signal,
        onEvent: (event) => {
          if (event.type === 'step-start') retries.setScope(event.step);
          renderer.onEvent(event);
        },
      });
      running.add(run);
      try {
        return await run;
      } finally {
        running.delete(run);
      }
    };
    const target: McpTarget = {
      kgrag: workspace,
      async addDocuments(documents) {
        return { message: addedMessage(documents, await write('add_documents', (options) => workspace.index(documents, options))) };
      },
      async deleteDocuments(ids) {
        const summary = await write('delete_documents', (options) => workspace.delete(ids, options));
        const titles = summary.deleted.map((document) => document.title).join(', ');
        return { message: `deleted ${summary.deleted.length} ${summary.deleted.length === 1 ? 'document' : 'documents'} (${titles}) and everything derived only from them; queries no longer see them` };
      },
    };
    const server = createMcpServer(target);
    // The transport only writes and waits for 'drain', which every writable stream of the CLI's io supports.
    const transport = new StdioServerTransport(process.stdin, io.stdout as Writable);
    await server.connect(transport);
    if (global.quiet !== true) writeLine(io.stderr, `kgrag mcp: serving ${workspace.workspace} over stdio`);
    const reason = await stopped;
    if (global.quiet !== true) writeLine(io.stderr, `kgrag mcp: stopping (${reason})${running.size > 0 ? '; the index job in progress keeps its work for the next run' : ''}`);
    shutdown.abort();
    await Promise.allSettled(running);
    await server.close();
  } finally {
    for (const [emitter, event, listener] of stops) emitter.off(event, listener);
    await kgrag?.close();
    restoreConsole();
  }
}
