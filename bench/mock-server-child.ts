import { startMockOpenAiServer } from '../src/testing/index.js';
import { sampleLlmReply } from '../test/helpers/sample-llm-responder.js';

/*
 * The loopback mock answering like a model over the sample corpus, in its own process: a real endpoint does
 * its work on another machine, so the benchmark must not bill the mock's CPU to the client's event loop.
 * Prints `{"url": …}` once listening; stops when its parent closes stdin.
 */
const latencyMs = Number(process.argv[2] ?? 0);
const server = await startMockOpenAiServer({ reply: (request) => sampleLlmReply(request), latencyMs });
process.stdout.write(`${JSON.stringify({ url: server.url })}\n`);
process.stdin.resume();
process.stdin.on('end', () => {
  void server.close().then(() => process.exit(0));
});
