import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { KgragError } from '../core/errors.js';
import { packageVersion } from '../core/package-version.js';
import { type CliIo, processIo, writeLine } from './cli-io.js';
import { cliErrorLine } from './cli-error-line.js';
import { INTERRUPTED_CODE } from './interrupted-error.js';
import { defaultWatchDebounceMs } from './watch-debounce-ms.js';
import type { DeleteCommandOptions } from './commands/delete-command.js';
import type { EvalCommandOptions } from './commands/eval-command.js';
import type { MergesCommandOptions } from './commands/entities-command.js';
import type { ExportCommandOptions } from './commands/export-command.js';
import type { WorkerCommandOptions } from './commands/worker-command.js';
import type { GenerateQuestionsOptions } from './commands/generate-questions-command.js';
import type { ImportGraphragCommandOptions, ImportOpenieCommandOptions } from './commands/import-command.js';
import type { IndexCommandOptions } from './commands/index-command.js';
import type { QueryCommandOptions } from './commands/query-command.js';
import type { ServeCommandOptions } from './commands/serve-command.js';
import type { GlobalOptions } from './workspace-options.js';
import { methodListHelp } from './method-list-help.js';
import { supportedFileTypesText } from '../text/load/file-format.js';

function positiveInteger(value: string): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed <= 0) throw new InvalidArgumentError('expected a positive integer');
  return parsed;
}

function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

/**
 * Builds the `kgrag` command line. Each command's module is imported when it runs: a query need not load the
 * indexing pipeline, the evaluation runner or the dry run (about half a second of a cold CLI start). `args`
 * are the arguments it will parse, for messages that name an option as the user spelled it.
 */
export function createProgram(io: CliIo, args: readonly string[] = []): Command {
  const program = new Command('kgrag')
    .description('Knowledge-graph RAG: index documents into a graph, answer questions with GraphRAG, HippoRAG, AutoKG, KGP and more')
    .option('-w, --workspace <dir>', 'workspace folder with kgrag.yaml and the index (default: $KGRAG_WORKSPACE or the current folder)')
    .option('-c, --config <file>', 'configuration file (default: <workspace>/kgrag.yaml)')
    .option('--set <key=value>', 'set a configuration key, e.g. --set llm.model=gpt-4.1-mini (repeatable)', collect)
    .option('-q, --quiet', 'no progress output')
    .version(packageVersion(), '-V, --version', 'print the kgrag version')
    .showHelpAfterError('(run kgrag --help for usage)')
    .configureOutput({
      writeOut: (text) => io.stdout.write(text),
      writeErr: (text) => io.stderr.write(text),
    })
    .exitOverride();
  const global = (): GlobalOptions => program.opts<GlobalOptions>();

  program
    .command('init')
    .description('write a commented kgrag.yaml with every key and its default')
    .argument('[dir]', 'workspace folder', '.')
    .option('--force', 'overwrite an existing kgrag.yaml (prompt files already there are kept; missing ones are written)')
    .action(async (directory: string, options: { force?: boolean }) => (await import('./commands/init-command.js')).initCommand(directory, options, io));

  program
    .command('index')
    .description(`index files and folders (${supportedFileTypesText}) into the workspace`)
    .argument('[paths...]', 'files or folders (none: bring the index of the documents already in the workspace up to date)')
    .option('--methods <list>', 'comma-separated methods to build the index for (default: pipeline.methods, all); methods built earlier are kept up to date')
    .addOption(new Option('--mode <mode>', 'fast: NLP graph, no LLM; standard: LLM extraction').choices(['fast', 'standard']))
    .option('--strict', 'exit non-zero if any input was skipped')
    .option('--json', 'print the summary as JSON')
    .option('--dry-run', 'print the LLM calls, tokens and cost each step would take, without calling the LLM or changing the workspace')
    .option('--prune', 'remove the indexed documents under the given folders whose files (or records) are gone, and name them')
    .option('--refresh', 'refit the corpus-wide statistics now (the index then equals a fresh build); updates otherwise keep them until index.refreshShare of the chunks has changed')
    .option('--no-wait', 'fail at once if another process is writing the workspace (default: wait for it)')
    .option('--workers <n>', 'start n worker processes for the LLM calls of extraction, claims, summaries and reports (postgres backend; workers.local)')
    .option('--remote-workers', 'also hand that work to `kgrag worker` processes on other machines (postgres backend; workers.remote)')
    .option('--watch', 'after indexing, follow the paths and update the index after each burst of changes (adds, edits, deletes, renames; implies --prune) until Ctrl-C')
    .option('--debounce <ms>', `with --watch: the quiet time after the last change before an update (default: ${defaultWatchDebounceMs})`)
    .action(async (paths: string[], options: IndexCommandOptions) => (await import('./commands/index-command.js')).indexCommand(paths, options, global(), io));

  const keys = program.command('keys').description('API keys of `kgrag serve` limited to workspaces and a role');
  keys
    .command('create')
    .description('print a new random key (once, on stdout) and the server.apiKeys entry that admits it by its hash (on stderr)')
    .option('--workspaces <names>', 'the workspaces the key may use, comma-separated (default: all); -w names the workspace a command opens, not this')
    .addOption(new Option('--role <role>', 'read: ask; write: also add and delete documents; admin: also create workspaces').choices(['read', 'write', 'admin']).default('read'))
    .option('--name <name>', 'what logs and rate limits call the key')
    .action(async (options: { workspaces?: string; role?: 'read' | 'write' | 'admin'; name?: string }) => (await import('./commands/keys-command.js')).keysCreateCommand(options, io));
  keys
    .command('hash')
    .description('print the keyHash of a key read on stdin, for a server.apiKeys entry')
    .action(async () => (await import('./commands/keys-command.js')).keysHashCommand(io, process.stdin));

  program
    .command('migrate')
    .description("bring the workspace's store to the schema this kgrag needs (on Postgres, run it as the schema's owner); --check changes nothing")
    .option('--check', 'exit non-zero, naming the versions, when the store is behind; change nothing')
    .action(async (options: { check?: boolean }) => (await import('./commands/migrate-command.js')).migrateCommand(options, global(), io));

  program
    .command('worker')
    .description("work for index runs on this workspace's Postgres database until stopped: their LLM calls (--role shards), or whole index jobs that kgrag serve queued (--role indexer)")
    .addOption(
      new Option('--role <role>', 'shards: LLM calls of running index runs (extraction, claims, summaries, reports); indexer: whole index and delete jobs, so that query servers (server.indexJobs: workers) only read')
        .choices(['shards', 'indexer'])
        .default('shards'),
    )
    .option('--workspaces <dir>', 'with --role indexer: run the jobs of every workspace folder inside <dir> (as kgrag serve --workspaces serves them)')
    .action(async (options: WorkerCommandOptions) => (await import('./commands/worker-command.js')).workerCommand(options, global(), io));

  program
    .command('delete')
    .description('remove documents and everything derived only from them, then bring the index up to date')
    .argument('<selectors...>', 'document ids (or 8+ character prefixes), source paths or folders, titles, or globs over sources ("**/drafts/*.md")')
    .addOption(new Option('--mode <mode>', 'mode of the index run that follows').choices(['fast', 'standard']))
    .option('--dry-run', 'list the documents the selectors choose and what the update would cost, changing nothing')
    .option('--keep-cache', "keep the cached LLM replies of the deleted documents' calls, so that indexing them again costs no call")
    .option('--json', 'print the summary as JSON')
    .option('--no-wait', 'fail at once if another process is writing the workspace (default: wait for it)')
    .action(async (selectors: string[], options: DeleteCommandOptions) => (await import('./commands/delete-command.js')).deleteCommand(selectors, options, global(), io));

  program
    .command('documents')
    .description('list the indexed documents: id, title, source, chunks, when indexed, and whether the source file still exists')
    .option('--json', 'print the list as JSON')
    .action(async (options: { json?: boolean }) => (await import('./commands/documents-command.js')).documentsCommand(options, global(), io));

  const entities = program.command('entities').description("the index's entities: merge, split and undo, and what fast mode merged");
  const entityCommands = async () => import('./commands/entity-edit-commands.js');
  entities
    .command('merge')
    .description('merge entities into one (by id, name or alias), then update the index; kgrag entities undo takes it back')
    .argument('<entities...>', 'the entities to merge into --into')
    .requiredOption('--into <entity>', 'the entity they become')
    .action(async (names: string[], options: { into: string }) => (await entityCommands()).entityEditCommand({ merge: names, into: options.into }, global(), io));
  entities
    .command('split')
    .description('make one name of an entity an entity of its own, then update the index')
    .argument('<name>', 'the name (an alias) that becomes its own entity')
    .requiredOption('--from <entity>', 'the entity it is a name of')
    .action(async (name: string, options: { from: string }) => (await entityCommands()).entityEditCommand({ split: name, from: options.from }, global(), io));
  entities
    .command('undo')
    .description('undo an entity merge or split (kgrag entities edits lists them), then update the index')
    .argument('<edit>', 'the edit id, e.g. edit-1')
    .action(async (id: string) => (await entityCommands()).entityEditCommand({ undo: id }, global(), io));
  entities
    .command('edits')
    .description('list the entity merges and splits made, oldest first, undone ones included')
    .option('--json', 'print the list as JSON')
    .action(async (options: { json?: boolean }) => (await entityCommands()).entityEditsCommand(options, global(), io));
  entities
    .command('merges')
    .description('list the short names fast mode merged into a longer name of their chunk ("Babbage" into "Charles Babbage"); --undo keeps names apart and updates the index')
    .option('--undo <names...>', 'keep these short names apart (added to extract.nlp.keepApart in kgrag.yaml), then update the index')
    .option('--limit <n>', 'list at most n merges (default 100)')
    .option('--json', 'print the list as JSON')
    .action(async (options: MergesCommandOptions) => (await import('./commands/entities-command.js')).mergesCommand(options, global(), io));

  program
    .command('query')
    .description('answer a question from the index, with citations')
    .argument('<question>', 'the question, quoted')
    .option('-m, --method <method>', 'method or method:variant, e.g. basic:bm25 (default: query.method)')
    .option('-k, --top-k <k>', 'how many to retrieve: passages (basic, global, relations) or matched entities (local, drift)', positiveInteger)
    .option('-p, --param <key=value>', 'method parameter (repeatable)', collect)
    .option('--json', 'print the whole result as JSON')
    .option('--context-only', 'print the assembled context, without calling an LLM')
    .option('--stream', 'stream the generated answer as it is written')
    .addHelpText('after', methodListHelp)
    .action(async (question: string, options: QueryCommandOptions) => (await import('./commands/query-command.js')).queryCommand(question, options, global(), io, args));

  program
    .command('eval')
    .description('measure methods on a dataset: Recall@k, AR@k, and with an LLM EM, F1, EM-in and graded accuracy')
    .option('-d, --dataset <name>', 'musique-train-100 | hotpotqa-train-100 | sample (reads ../shared/datasets or $KGRAG_DATASETS_DIR)')
    .option('--corpus <file>', 'corpus file (custom: corpus.json or corpus.jsonl of {title, text})')
    .option('--questions <file>', 'questions file (custom: questions.jsonl of {id, question, answers, gold_passages})')
    .addOption(new Option('--format <format>', 'format of --corpus/--questions').choices(['auto', 'custom', 'musique', 'hotpotqa', '2wiki', 'multihop-rag']).default('auto'))
    .option('-m, --methods <list>', 'comma-separated methods or method:variant, or "all"', 'all')
    .option('--k <list>', 'recall cut-offs', '1,2,5,10')
    .option('--limit <n>', 'only the first n questions', positiveInteger)
    .option('-o, --out <file>', 'report path (default: kgrag-eval/<dataset>/report.json; .md, .svg and .questions.jsonl go beside it)')
    .option('--no-answer', 'measure retrieval only: no generated answers even when an LLM is configured, and without one no extractive answers')
    .option('--judge <a,b>', 'compare the answers of two of the methods with an LLM judge (needs an LLM)')
    .option('--openie <file>', 'import a HippoRAG OpenIE file of the corpus into the evaluation workspace first: its triples replace extraction for the passages it covers')
    .option('--json', 'print the report as JSON instead of a markdown table')
    .action(async (options: EvalCommandOptions) => (await import('./commands/eval-command.js')).evalCommand(options, global(), io));

  const importCommand = program.command('import').description('import data made elsewhere into the workspace');
  importCommand
    .command('graphrag')
    .description("import a Microsoft GraphRAG index (its output folder of parquet tables, 1.x or 2.x) and build what kgrag adds, so every method answers over it")
    .argument('<output-dir>', "GraphRAG's output folder (or the project folder holding output/)")
    .option('--json', 'print the summary as JSON')
    .option('--no-wait', 'fail at once if another process is writing the workspace (default: wait for it)')
    .action(async (directory: string, options: ImportGraphragCommandOptions) => (await import('./commands/import-command.js')).importGraphragCommand(directory, options, global(), io));
  importCommand
    .command('openie')
    .description("import a HippoRAG OpenIE file (openie_*_results_ner_*.json): its triples replace the triples step's extraction for the documents it covers")
    .argument('<file>', 'the OpenIE file')
    .addOption(new Option('--mode <mode>', 'mode of the index run that follows').choices(['fast', 'standard']))
    .option('--json', 'print the summary as JSON')
    .option('--no-wait', 'fail at once if another process is writing the workspace (default: wait for it)')
    .action(async (file: string, options: ImportOpenieCommandOptions) => (await import('./commands/import-command.js')).importOpenieCommand(file, options, global(), io));

  program
    .command('export')
    .description('write the index in another format: graphrag (GraphRAG 2.x parquet tables), graphml (Gephi, Cytoscape, networkx) or neo4j (CSV for neo4j-admin import and a Cypher script)')
    .argument('<dir>', 'the folder to write (created when missing; must be empty unless --overwrite)')
    .addOption(new Option('--format <format>', 'the format').choices(['graphrag', 'graphml', 'neo4j']).makeOptionMandatory())
    .option('--overwrite', 'write into a folder that already holds files')
    .option('--json', 'print what was written as JSON')
    .action(async (directory: string, options: ExportCommandOptions) => (await import('./commands/export-command.js')).exportCommand(directory, options, global(), io));

  program
    .command('generate-questions')
    .description('write global, activity-centred questions for a corpus (GraphRAG §3.2: personas × tasks × questions; needs an LLM)')
    .requiredOption('--description <text>', 'a short description of the corpus')
    .option('--personas <n>', 'users', positiveInteger, 5)
    .option('--tasks <n>', 'tasks per user', positiveInteger, 5)
    .option('--questions <n>', 'questions per task', positiveInteger, 5)
    .option('-o, --out <file>', 'write questions.jsonl (custom format) here instead of stdout')
    .action(async (options: GenerateQuestionsOptions) => (await import('./commands/generate-questions-command.js')).generateQuestionsCommand(options, global(), io));

  program
    .command('serve')
    .description('serve the HTTP API, an OpenAI-compatible chat endpoint (/v1/chat/completions) and MCP (/mcp) until SIGTERM')
    .option('--host <address>', 'address to bind (default: server.host, 127.0.0.1); beyond loopback an API key is required')
    .option('--port <port>', 'port (default: server.port, 8080; 0: any free port)', (value: string) => {
      const parsed = Number(value);
      if (!Number.isInteger(parsed) || parsed < 0 || parsed > 65535) throw new InvalidArgumentError('expected a port number 0–65535');
      return parsed;
    })
    .option('--workspaces <dir>', 'serve every workspace folder inside <dir> at /v1/workspaces/{name}/… (instead of one workspace at /v1/…)')
    .option(
      '--watch <paths>',
      'follow these files or folders (repeat it, or separate with commas) and update the index after each burst of changes, as an index job (adds, edits, deletes, renames; prunes what is gone)',
      (value: string, previous: string[] = []) => [...previous, ...value.split(',').filter((path) => path.length > 0)],
    )
    .option('--debounce <ms>', `with --watch: the quiet time after the last change before an update (default: ${defaultWatchDebounceMs})`)
    .addOption(
      new Option('--index-jobs <where>', 'where index jobs run: here, or workers (only `kgrag worker --role indexer` runs them; postgres store; default: server.indexJobs, here)').choices(['here', 'workers']),
    )
    .addOption(new Option('--insecure', 'removed: fails with a message saying to set an API key').hideHelp())
    .addOption(new Option('--log-level <level>', 'request log level (stderr, JSON lines)').choices(['debug', 'info', 'warn', 'error']))
    .action(async (options: ServeCommandOptions) => (await import('./commands/serve-command.js')).serveCommand(options, global(), io));

  program
    .command('mcp')
    .description('serve the workspace to MCP clients (Claude Desktop, agents) over stdio: query, entity search and browsing, adding documents')
    .action(async () => (await import('./commands/mcp-command.js')).mcpCommand(global(), io));

  program
    .command('demo')
    .description('index the bundled sample corpus in a temporary workspace and answer sample questions (offline)')
    .option('--keep', 'keep the temporary workspace')
    .action(async (options: { keep?: boolean }) => (await import('./commands/demo-command.js')).demoCommand(options, io));

  return program;
}

/** Errors in what the command line asked for (a method, variant or parameter it does not know): usage errors, exit 2. */
const usageErrorCodes: ReadonlySet<string> = new Set(['QUERY_UNKNOWN_METHOD', 'QUERY_UNKNOWN_VARIANT', 'QUERY_INVALID_PARAMS', 'QUERY_INDEX_SETTING', 'QUERY_CONFIG_ONLY_PARAM']);

/**
 * Runs the CLI and returns the exit code: 0 success, 1 a problem with input, configuration, a provider
 * or the store (one line naming it and the fix), 2 a usage error, 130 interrupted with Ctrl-C.
 */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  const program = createProgram(io, argv);
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) {
      return error.exitCode === 0 ? 0 : 2;
    }
    if (KgragError.isInstance(error) && error.code === INTERRUPTED_CODE) {
      // Stopped by the user: not an error, and 128 + SIGINT like any program Ctrl-C ends.
      writeLine(io.stderr, cliErrorLine(error, ''));
      return 130;
    }
    writeLine(io.stderr, cliErrorLine(error));
    if (!KgragError.isInstance(error) && io.env.KGRAG_DEBUG) writeLine(io.stderr, (error as Error).stack ?? '');
    return KgragError.isInstance(error) && usageErrorCodes.has(error.code) ? 2 : 1;
  }
}

function isEntryPoint(): boolean {
  const entry = process.argv[1];
  if (!entry) return false;
  try {
    return realpathSync(entry) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

if (isEntryPoint()) {
  process.exitCode = await runCli(process.argv.slice(2), processIo());
}
