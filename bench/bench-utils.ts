import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { lstatSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** One measured quantity of a benchmark, reported as the median over runs. */
export interface BenchResult {
  median: number;
  unit: string;
  runs: number[];
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((left, right) => left - right);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[middle] as number) : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

export function result(runs: number[], unit: string): BenchResult {
  return { median: median(runs), unit, runs };
}

/** Bytes of the files under `path` (the file's own size for a file; links are not followed). */
export function folderBytes(path: string): number {
  const stat = lstatSync(path);
  if (!stat.isDirectory()) return stat.size;
  return readdirSync(path).reduce((sum, name) => sum + folderBytes(join(path, name)), 0);
}

/**
 * Runs a TypeScript script in a fresh Node process and parses the JSON line it prints last. `command` wraps the Node
 * command line (e.g. in `taskset` to pin it to a CPU).
 */
export function runChild<T>(script: string, args: readonly string[], command: readonly string[] = []): T {
  const path = fileURLToPath(new URL(script, import.meta.url));
  const line = [...command, process.execPath, '--import', 'tsx', path, ...args];
  const child = spawnSync(line[0] as string, line.slice(1), { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (child.status !== 0) throw new Error(`${script} failed (${child.status}): ${child.stderr}`);
  const lines = child.stdout.trim().split('\n');
  return JSON.parse(lines[lines.length - 1] as string) as T;
}

/** Where the shared evaluation data lives (never copied into the repository). */
export const sharedDatasets = fileURLToPath(new URL('../../shared/datasets/', import.meta.url));

/** 2Wiki-style questions over the 2Wiki corpus, for latency benchmarks (the shared data has the corpus, no questions). */
export const twoWikiQuestions: readonly string[] = [
  'Who is the mother of the director of film Polish-Russian War?',
  'Which film came out first, The Love Route or Ranjhe Di Heer?',
  'Where was the director of film The Fascist born?',
  'What nationality is the director of film Wedding Night In Paradise?',
  'Who was born first, Franco Rossi or Vicente Aranda?',
  'When did the composer of song Flaming Youth die?',
  'Which country the director of film Madhuchandrika is from?',
  'Are both Elsa Wiezell and Ann Kelly from the same country?',
];

/** A running `kgrag serve` child process and the URL it serves at. */
export interface ServeProcess {
  child: ChildProcess;
  url: string;
  exited: Promise<number | null>;
}

/**
 * `kgrag <args>` from the sources in a child process, without an LLM key: `command` wraps the Node command line (e.g.
 * `taskset`), `env` adds variables; stdout is ignored and stderr piped or passed through.
 */
export function spawnKgrag(args: readonly string[], options: { command?: readonly string[]; env?: Record<string, string>; stderr: 'pipe' | 'inherit' }): ChildProcess {
  const [command, ...prefix] = [...(options.command ?? []), process.execPath];
  return spawn(command as string, [...prefix, '--import', 'tsx', 'src/cli/main.ts', ...args], {
    cwd: fileURLToPath(new URL('..', import.meta.url)),
    env: { PATH: process.env.PATH ?? '', ...options.env },
    stdio: ['ignore', 'ignore', options.stderr],
  });
}

/**
 * Starts `kgrag serve` on `workspace` on a free loopback port, without an LLM key (extractive answers), and resolves
 * once it says where it serves. `command` wraps the Node command line (e.g. `taskset`); `args` are more serve flags.
 */
export async function startServe(workspace: string, options: { command?: readonly string[]; args?: readonly string[]; env?: Record<string, string> } = {}): Promise<ServeProcess> {
  const child = spawnKgrag(['-w', workspace, 'serve', '--port', '0', '--log-level', 'warn', ...(options.args ?? [])], { ...options, stderr: 'pipe' });
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  let stderr = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const found = /serving .* at (http:\/\/\S+) —/.exec(stderr);
      if (found) resolve(found[1] as string);
    });
    void exited.then((code) => reject(new Error(`kgrag serve exited with ${code}: ${stderr}`)));
  });
  child.stderr!.on('data', (chunk: Buffer) => process.stderr.write(chunk));
  return { child, url, exited };
}
