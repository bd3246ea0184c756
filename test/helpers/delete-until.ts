/*
 * Child process for the tests of a deletion killed with kill -9: deletes documents from a workspace as
 * `kgrag delete <selector…>` does (the same command line recorded), and sends itself SIGKILL when a given pipeline
 * event happens — no cleanup, no finally blocks, like a crash or an OOM kill.
 * Usage: node --import tsx test/helpers/delete-until.ts <workspace> <event-type> <step> <selector…>
 */
import { createKgrag } from '../../src/api/create-kgrag.js';

const [workspace, eventType, step, ...selectors] = process.argv.slice(2);
if (!workspace || !eventType || !step || selectors.length === 0) throw new Error('usage: delete-until.ts <workspace> <event-type> <step> <selector…>');
const kgrag = await createKgrag({ workspace, env: {} });
await kgrag.delete(selectors, {
  command: ['kgrag delete', ...selectors].join(' '),
  cwd: workspace,
  onEvent(event) {
    if (event.type === eventType && 'step' in event && event.step === step) process.kill(process.pid, 'SIGKILL');
  },
});
process.stdout.write('finished without being killed\n');
