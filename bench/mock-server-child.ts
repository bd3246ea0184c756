import { createInterface } from 'node:readline';
import { startMockOpenAiServer } from '../src/testing/index.js';
import { sampleLlmReply } from '../test/helpers/sample-llm-responder.js';
import type { LoggedChat } from './request-chains.js';

/*
 * The loopback mock answering like a model over the sample corpus, in its own process: a real endpoint does
 * its work on another machine, so the benchmark must not bill the mock's CPU to the client's event loop.
 * Arguments: the latency in ms, then `--log` to keep a log of the chat requests it answers (`LoggedChat`: messages,
 * reply, when each arrived and was answered, on the epoch clock both processes share), which a line `log` on stdin
 * prints — what was logged since the last one, as one JSON line — outside the parent's measured time.
 * Prints `{"url": …}` once listening; stops when its parent closes stdin.
 */
const latencyMs = Number(process.argv[2] ?? 0);
const keepLog = process.argv[3] === '--log';
let log: LoggedChat[] = [];
const server = await startMockOpenAiServer({
  reply: (request) => sampleLlmReply(request),
  latencyMs,
  onResponse: (request) => {
    if (!keepLog || request.path !== '/v1/chat/completions') return;
    const messages = (request.body as { messages?: LoggedChat['messages'] } | undefined)?.messages ?? [];
    log.push({ receivedAt: request.receivedAt, answeredAt: request.answeredAt, messages, reply: request.content });
  },
});
process.stdout.write(`${JSON.stringify({ url: server.url })}\n`);
const commands = createInterface({ input: process.stdin });
commands.on('line', (line) => {
  if (line.trim() !== 'log') return;
  process.stdout.write(`${JSON.stringify(log)}\n`);
  log = [];
});
commands.on('close', () => {
  void server.close().then(() => process.exit(0));
});
