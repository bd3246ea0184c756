import { PassThrough } from 'node:stream';
import { runCli } from '../../src/cli/main.js';

/** What one in-process CLI run printed and returned. */
export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the CLI in-process with captured streams, in `cwd`, with exactly `env` as its environment. */
export async function runCliCaptured(args: string[], options: { cwd: string; env?: Record<string, string> }): Promise<CliRun> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const code = await runCli(args, { stdout, stderr, env: options.env ?? {}, cwd: options.cwd });
  return { code, stdout: out, stderr: err };
}
