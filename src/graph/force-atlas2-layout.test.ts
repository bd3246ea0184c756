import assert from 'node:assert/strict';
import { test } from 'node:test';
import { forceAtlas2Layout, type LayoutGraph } from './force-atlas2-layout.js';

/** Two 12-node cliques joined by one edge, two isolated nodes, and edges the layout must ignore. */
function twoCliques(): LayoutGraph {
  const nodes: string[] = [];
  const groups: Array<string | undefined> = [];
  const edges: Array<{ source: string; target: string; weight: number }> = [];
  for (const group of ['a', 'b']) {
    for (let i = 0; i < 12; i++) {
      nodes.push(`${group}${i}`);
      groups.push(group);
      for (let j = 0; j < i; j++) edges.push({ source: `${group}${j}`, target: `${group}${i}`, weight: 1 });
    }
  }
  edges.push({ source: 'a0', target: 'b0', weight: 1 });
  nodes.push('lonely', 'hermit');
  groups.push(undefined, undefined);
  // A self-loop, an edge to a node outside the graph and a parallel edge: ignored, ignored, added to its twin.
  edges.push({ source: 'a1', target: 'a1', weight: 5 }, { source: 'a1', target: 'elsewhere', weight: 1 }, { source: 'a1', target: 'a2', weight: 2 });
  return { nodes, groups, edges };
}

function mean(values: number[]): number {
  return values.reduce((sum, value) => sum + value, 0) / values.length;
}

test('every node, isolated ones included, gets a finite position, the same for the same input and seed', () => {
  const graph = twoCliques();
  const positions = forceAtlas2Layout(graph);
  assert.equal(positions.length, graph.nodes.length);
  assert.ok(positions.every(({ x, y }) => Number.isFinite(x) && Number.isFinite(y)));
  assert.deepEqual(forceAtlas2Layout(twoCliques()), positions);
  assert.notDeepEqual(forceAtlas2Layout(twoCliques(), { seed: 2 }), positions);
  assert.equal(new Set(positions.map(({ x, y }) => `${x},${y}`)).size, positions.length, 'no two nodes on one point');
});

test('nodes of one clique end closer to each other than to the other clique', () => {
  const graph = twoCliques();
  const positions = forceAtlas2Layout(graph);
  const at = (id: string) => positions[graph.nodes.indexOf(id)] ?? { x: NaN, y: NaN };
  const distance = (a: string, b: string) => Math.hypot(at(a).x - at(b).x, at(a).y - at(b).y);
  const within: number[] = [];
  const across: number[] = [];
  for (let i = 0; i < 12; i++) {
    for (let j = 0; j < 12; j++) {
      if (i < j) within.push(distance(`a${i}`, `a${j}`), distance(`b${i}`, `b${j}`));
      across.push(distance(`a${i}`, `b${j}`));
    }
  }
  assert.ok(mean(within) * 2 < mean(across), `within ${mean(within)}, across ${mean(across)}`);
});

test('Barnes–Hut and exact repulsion both give finite drawings; no node, one node and no iterations are drawn too', () => {
  const graph = twoCliques();
  for (const barnesHutAbove of [0, 1000]) {
    assert.ok(forceAtlas2Layout(graph, { barnesHutAbove }).every(({ x, y }) => Number.isFinite(x) && Number.isFinite(y)));
  }
  assert.deepEqual(forceAtlas2Layout({ nodes: [], edges: [] }), []);
  const [only, ...others] = forceAtlas2Layout({ nodes: ['only'], edges: [] });
  assert.ok(only && Math.hypot(only.x, only.y) < 1 && others.length === 0, 'one node is drawn at the centre');
  const start = forceAtlas2Layout(graph, { iterations: 0 });
  assert.ok(start.every(({ x, y }) => Number.isFinite(x) && Number.isFinite(y)));
  assert.notDeepEqual(forceAtlas2Layout(graph, { iterations: 5 }), start);
});
