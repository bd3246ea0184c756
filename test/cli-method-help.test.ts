import assert from 'node:assert/strict';
import { test } from 'node:test';
import { builtInMethods } from '../src/api/built-in-methods.js';
import { methodListHelp } from '../src/cli/method-list-help.js';
import { runCliCaptured } from './helpers/run-cli-captured.js';

test('kgrag query --help lists every built-in method with its variants, the default first', async () => {
  const help = await runCliCaptured(['query', '--help'], { cwd: process.cwd() });
  assert.equal(help.code, 0);
  assert.ok(help.stdout.includes(methodListHelp.trim().split('\n')[0] as string), help.stdout);
  const listed = new Map(
    [...methodListHelp.matchAll(/^ {2}([a-z]+)(?: {2,}([a-z0-9-]+(?:, [a-z0-9-]+)*))?(?: {2,}|$)/gm)].map((match) => [match[1] as string, match[2]?.split(', ') ?? []]),
  );
  assert.deepEqual([...listed.keys()], builtInMethods.map((method) => method.name));
  for (const method of builtInMethods) assert.deepEqual(listed.get(method.name), [...method.variants], method.name);
});
