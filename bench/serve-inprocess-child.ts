/*
 * Child process of the serve benchmark: the query mix in-process, in a fresh process as the server is, printing
 * `{"rps": …}` as its last line.
 */
import { inProcessLoad } from './serve.js';

const [workspace] = process.argv.slice(2);
if (!workspace) throw new Error('usage: serve-inprocess-child.ts <workspace>');
process.stdout.write(`${JSON.stringify({ rps: await inProcessLoad(workspace) })}\n`);
