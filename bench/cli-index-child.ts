/*
 * Child process of the reliability benchmark: `kgrag index` as the command line runs it (runCli, with its progress
 * on stderr), in a fresh process, printing one JSON line with the exit code, the --json summary, the wall time and
 * the process's peak RSS.
 */
import { PassThrough } from 'node:stream';
import { runCli } from '../src/cli/main.js';

const args = process.argv.slice(2);
const stdout = new PassThrough();
let out = '';
stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
const started = performance.now();
const code = await runCli(['index', ...args, '--json'], { stdout, stderr: process.stderr, env: { PATH: process.env.PATH }, cwd: process.cwd() });
const seconds = (performance.now() - started) / 1000;
process.stdout.write(`${JSON.stringify({ code, seconds, maxRssMb: process.resourceUsage().maxRSS / 1024, summary: code === 0 ? JSON.parse(out) : null })}\n`);
