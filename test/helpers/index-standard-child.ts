/*
 * Child process of the standard-mode crash test: indexes the sample corpus in standard mode against an
 * OpenAI-compatible endpoint, like `kgrag index --mode standard` would. With a kill event it sends itself
 * SIGKILL when that pipeline event happens — no cleanup, no finally blocks, like a crash or an OOM kill.
 * Usage: node --import tsx test/helpers/index-standard-child.ts <workspace> <base-url> [<event-type> <step>]
 */
import { createKgrag } from '../../src/api/create-kgrag.js';
import { standardTestLlmConfig } from './standard-test-config.js';

const [workspace, baseURL, eventType, step] = process.argv.slice(2);
if (!workspace || !baseURL) throw new Error('usage: index-standard-child.ts <workspace> <base-url> [<event-type> <step>]');
const corpus = new URL('../../examples/sample-corpus/', import.meta.url).pathname;
// No fault is injected in the runs of this child, so a slow reply on a loaded machine must not time out: a retry
// of a request the server did answer would count as a call paid twice.
const kgrag = await createKgrag({ workspace, env: {}, config: { llm: { ...standardTestLlmConfig(baseURL), timeoutMs: 60_000 } } });
await kgrag.index([corpus], {
  mode: 'standard',
  onEvent(event) {
    if (eventType !== undefined && event.type === eventType && 'step' in event && event.step === step) process.kill(process.pid, 'SIGKILL');
  },
});
await kgrag.close();
process.stdout.write('finished without being killed\n');
