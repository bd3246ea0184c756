import { builtInMethods, isBuiltInMethod } from '../../api/built-in-methods.js';
import { prepareQuery } from '../../api/prepare-query.js';
import { sanitizeForTerminal } from '../../core/sanitize-for-terminal.js';
import { openWorkspace } from '../open-workspace.js';
import { type CliIo, writeLine } from '../cli-io.js';
import { formatQueryResult } from '../format-result.js';
import { llmPriceOf } from '../llm-price-of.js';
import { createQueryProgressLine } from '../query-progress-line.js';
import { createRetryReporter } from '../retry-reporter.js';
import { spelledOption } from '../spelled-option.js';
import { type GlobalOptions, parseSetOptions, workspaceOptions } from '../workspace-options.js';

/** Options of `kgrag query`. */
export interface QueryCommandOptions {
  method?: string;
  json?: boolean;
  contextOnly?: boolean;
  stream?: boolean;
  topK?: number;
  param?: string[];
}

/**
 * `kgrag query "<question>"`: answers with citations; `--json` prints the whole result (SPEC §4.5). `args`
 * are the command line as typed, so that a malformed parameter is reported under the flag the user wrote.
 */
export async function queryCommand(question: string, options: QueryCommandOptions, global: GlobalOptions, io: CliIo, args: readonly string[] = []): Promise<void> {
  // A method that can start on the question before the workspace opens (its model on another thread) does so now.
  if (options.method !== undefined) prepareQuery(question, options.method, builtInMethods);
  const params: Record<string, unknown> = { ...(parseSetOptions(options.param ?? [], (pair) => spelledOption(args, pair, '-p', '--param')) as Record<string, unknown>) };
  const progress = global.quiet === true ? undefined : createQueryProgressLine(io.stderr);
  const retries = createRetryReporter((line) => {
    progress?.stop();
    writeLine(io.stderr, line);
  });
  const kgrag = await openWorkspace({ ...workspaceOptions(global, io), ...(progress === undefined ? {} : { onRetry: retries.onRetry }) }, io);
  // A plugin's method is known once the workspace has loaded it.
  if (options.method !== undefined) prepareQuery(question, options.method, kgrag.engine.methods.filter((method) => !isBuiltInMethod(method)));
  try {
    const streaming = options.stream === true && !options.json && !options.contextOnly && kgrag.llm !== undefined;
    const result = await kgrag.query(question, {
      ...(options.method === undefined ? {} : { method: options.method }),
      params,
      ...(options.topK === undefined ? {} : { topK: options.topK }),
      contextOnly: options.contextOnly === true,
      ...(streaming ? { onText: (delta: string) => io.stdout.write(sanitizeForTerminal(delta, { multiline: true })) } : {}),
      ...(progress ? { onProgress: progress.onProgress } : {}),
    }).finally(() => {
      retries.stop();
      progress?.stop();
    });
    for (const warning of result.warnings) writeLine(io.stderr, `kgrag: warning: ${sanitizeForTerminal(warning)}`);
    if (options.json) {
      writeLine(io.stdout, JSON.stringify(result, null, 2));
    } else {
      if (streaming) writeLine(io.stdout);
      writeLine(io.stdout, formatQueryResult(result, { showAnswer: !streaming, priced: llmPriceOf(kgrag).price !== undefined }));
    }
  } finally {
    await kgrag.close();
  }
}
