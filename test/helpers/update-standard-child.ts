/*
 * Child process of the crash tests: one update of a standard-mode workspace against an OpenAI-compatible
 * endpoint, as `kgrag index <path>` or `kgrag delete <selector>` would make it. With a kill event it sends itself
 * SIGKILL when that pipeline event happens — no cleanup, like a crash or an OOM kill. `KGRAG_TEST_CHILD_CONFIG` (JSON)
 * adds to the configuration: `pipeline`, and `llm` settings over the test's. A run that ends prints the steps it ran.
 * Usage: node --import tsx test/helpers/update-standard-child.ts <workspace> <base-url> index|delete <path-or-selector> [<event-type> <step>]
 */
import { createKgrag } from '../../src/api/create-kgrag.js';
import type { PipelineEvent } from '../../src/pipeline/pipeline-step.js';
import { standardTestLlmConfig } from './standard-test-config.js';

const [workspace, baseURL, operation, target, eventType, step] = process.argv.slice(2);
if (!workspace || !baseURL || !target || (operation !== 'index' && operation !== 'delete')) {
  throw new Error('usage: update-standard-child.ts <workspace> <base-url> index|delete <path-or-selector> [<event-type> <step>]');
}
const extra = JSON.parse(process.env.KGRAG_TEST_CHILD_CONFIG ?? '{}') as { pipeline?: Record<string, unknown>; llm?: Record<string, unknown> };
// Nothing is injected, so a slow reply on a loaded machine must not time out and be paid twice.
const kgrag = await createKgrag({
  workspace,
  env: {},
  config: { index: { mode: 'standard' }, ...(extra.pipeline ? { pipeline: extra.pipeline } : {}), llm: { ...standardTestLlmConfig(baseURL), timeoutMs: 60_000, ...extra.llm } },
});
const onEvent = (event: PipelineEvent): void => {
  if (eventType !== undefined && event.type === eventType && 'step' in event && event.step === step) process.kill(process.pid, 'SIGKILL');
};
const ran = operation === 'index' ? (await kgrag.index([target], { onEvent })).ran : (await kgrag.delete([target], { onEvent })).run.ran;
await kgrag.close();
process.stdout.write(`finished without being killed; ran ${JSON.stringify(ran)}\n`);
