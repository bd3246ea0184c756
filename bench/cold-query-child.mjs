/*
 * Child of the cold-query benchmark: the `kgrag` command exactly as bin/kgrag.js runs it (the compiled CLI),
 * then one last stderr line with its exit code and peak RSS. The parent times the whole process.
 */
import { processIo } from '../dist/cli/cli-io.js';
import { runCli } from '../dist/cli/main.js';

const code = await runCli(process.argv.slice(2), processIo());
process.stderr.write(`\ncold-query-child ${JSON.stringify({ code, maxRssMb: process.resourceUsage().maxRSS / 1024 })}\n`);
process.exitCode = code;
