/*
 * Child process for the writer tests: indexes paths into a workspace and, at the first event of a given step,
 * either pauses — writes <marker>, then blocks until <marker>.continue exists, holding the writer lock with a
 * half-written draft — or fails there.
 * Usage: node --import tsx test/helpers/index-paused.ts <workspace> <step> <pause|fail> <marker> <path…>
 */
import { existsSync, writeFileSync } from 'node:fs';
import { createKgrag } from '../../src/api/create-kgrag.js';

const [workspace, step, action, marker, ...paths] = process.argv.slice(2);
if (!workspace || !step || !marker || paths.length === 0 || (action !== 'pause' && action !== 'fail')) {
  throw new Error('usage: index-paused.ts <workspace> <step> <pause|fail> <marker> <path…>');
}
const blocker = new Int32Array(new SharedArrayBuffer(4));
let acted = false;
const kgrag = await createKgrag({ workspace, env: {} });
try {
  await kgrag.index(paths, {
    command: `index-paused ${action} at ${step}`,
    onEvent(event) {
      if (acted || !('step' in event) || event.step !== step) return;
      acted = true;
      if (action === 'fail') throw new Error(`injected failure at ${step}`);
      writeFileSync(marker, String(process.pid));
      // Events are delivered synchronously, so block the whole process here, as a long step would.
      while (!existsSync(`${marker}.continue`)) Atomics.wait(blocker, 0, 0, 20);
    },
  });
  process.stdout.write('indexed\n');
} catch (error) {
  process.stderr.write(`${(error as Error).message}\n`);
  process.exitCode = 1;
} finally {
  await kgrag.close();
}
