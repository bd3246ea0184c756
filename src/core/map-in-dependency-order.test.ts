import assert from 'node:assert/strict';
import { test } from 'node:test';
import { mapInDependencyOrder } from './map-in-dependency-order.js';

interface Node {
  id: string;
  after: string[];
  ms: number;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

async function trace(nodes: Node[], concurrency: number): Promise<{ results: string[]; started: string[]; maxRunning: number; finishedBefore: Map<string, Set<string>> }> {
  const started: string[] = [];
  const done = new Set<string>();
  const finishedBefore = new Map<string, Set<string>>();
  let running = 0;
  let maxRunning = 0;
  const results = await mapInDependencyOrder(nodes, { key: (node) => node.id, dependencies: (node) => node.after, concurrency }, async (node) => {
    started.push(node.id);
    finishedBefore.set(node.id, new Set(done));
    running++;
    maxRunning = Math.max(maxRunning, running);
    await sleep(node.ms);
    running--;
    done.add(node.id);
    return node.id.toUpperCase();
  });
  return { results, started, maxRunning, finishedBefore };
}

test('an item starts only after its dependencies finished; results come back in input order', async () => {
  const nodes: Node[] = [
    { id: 'a1', after: [], ms: 5 },
    { id: 'a2', after: [], ms: 30 },
    { id: 'b1', after: ['a1'], ms: 5 },
    { id: 'b2', after: ['a2'], ms: 5 },
    { id: 'c', after: ['b1', 'b2', 'not-an-item'], ms: 1 },
  ];
  const { results, started, finishedBefore } = await trace(nodes, 4);
  assert.deepEqual(results, ['A1', 'A2', 'B1', 'B2', 'C']);
  for (const node of nodes) for (const dependency of node.after.filter((id) => id !== 'not-an-item')) assert.ok(finishedBefore.get(node.id)?.has(dependency), `${node.id} after ${dependency}`);
  assert.ok(started.indexOf('b1') < started.indexOf('b2'), 'b1 does not wait for the slow a2, which a level barrier would make it do');
  assert.ok(!finishedBefore.get('b1')?.has('a2'));
});

test('keeps at most `concurrency` items in flight and starts ready items in input order', async () => {
  const nodes: Node[] = Array.from({ length: 12 }, (_, index) => ({ id: `n${index}`, after: [], ms: 2 }));
  const { started, maxRunning } = await trace(nodes, 3);
  assert.equal(maxRunning, 3);
  assert.deepEqual(started, nodes.map((node) => node.id));
});

test('a cycle, a failure or an abort rejects', async () => {
  await assert.rejects(
    trace(
      [
        { id: 'x', after: ['y'], ms: 1 },
        { id: 'y', after: ['x'], ms: 1 },
      ],
      2,
    ),
    /2 items wait on each other in a cycle/,
  );
  let calls = 0;
  await assert.rejects(
    mapInDependencyOrder([1, 2, 3, 4], { key: String, dependencies: () => [], concurrency: 1 }, async (value) => {
      calls++;
      if (value === 2) throw new Error('boom');
      return value;
    }),
    /boom/,
  );
  assert.equal(calls, 2, 'no new work after the failure');
  const controller = new AbortController();
  controller.abort(new Error('stopped'));
  await assert.rejects(mapInDependencyOrder([1], { key: String, dependencies: () => [], concurrency: 1, abortSignal: controller.signal }, async (value) => value), /stopped/);
  assert.deepEqual(await mapInDependencyOrder([], { key: String, dependencies: () => [], concurrency: 2 }, async (value) => value), []);
});
