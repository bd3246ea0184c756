import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { disconnectedCommunities, louvainMembership, normalizedMutualInformation, plantedPartition } from '../../test/helpers/community-graphs.js';
import { createRandom } from '../core/random.js';
import { csrFromTriplets, undirectedGraphCsr } from '../math/csr-matrix.js';
import type { CsrMatrix, IndexedEdge } from '../math/csr-matrix.js';
import { leiden, leidenDefaults, placeNodes } from './leiden.js';
import { modularity } from './modularity.js';

const edgesOf = (pairs: ReadonlyArray<readonly [number, number, number?]>): IndexedEdge[] =>
  pairs.map(([source, target, weight]) => ({ source, target, weight: weight ?? 1 }));

/** A sparse random graph (many tree-like parts, where Louvain is known to leave disconnected communities). */
function randomGraph(seed: number): { graph: CsrMatrix; edges: IndexedEdge[]; nodes: number } {
  const random = createRandom(seed);
  const nodes = 10 + Math.floor(random() * 140);
  const density = (0.6 + random() * 4) / nodes;
  const edges: IndexedEdge[] = [];
  for (let i = 0; i < nodes; i++) {
    for (let j = i + 1; j < nodes; j++) if (random() < density) edges.push({ source: i, target: j, weight: random() < 0.5 ? 1 : 0.05 + 3 * random() });
  }
  return { graph: undirectedGraphCsr(nodes, edges), edges, nodes };
}

/** Connected components (plain BFS over stored entries with positive weight). */
function components(graph: CsrMatrix): Int32Array {
  const label = new Int32Array(graph.rows).fill(-1);
  let next = 0;
  for (let root = 0; root < graph.rows; root++) {
    if ((label[root] as number) >= 0) continue;
    label[root] = next;
    const stack = [root];
    while (stack.length > 0) {
      const node = stack.pop() as number;
      for (let entry = graph.rowPointers[node] as number; entry < (graph.rowPointers[node + 1] as number); entry++) {
        const neighbor = graph.columnIndices[entry] as number;
        if (label[neighbor] === -1 && (graph.values[entry] as number) > 0) {
          label[neighbor] = next;
          stack.push(neighbor);
        }
      }
    }
    next++;
  }
  return label;
}

/** The largest modularity gain (in edge-weight units) of moving one node to a neighbouring or empty community. */
function bestSingleMoveGain(graph: CsrMatrix, membership: Int32Array, resolution: number): number {
  const n = graph.rows;
  const degree = new Float64Array(n);
  for (let node = 0; node < n; node++) {
    for (let entry = graph.rowPointers[node] as number; entry < (graph.rowPointers[node + 1] as number); entry++) {
      degree[node] = (degree[node] as number) + (graph.columnIndices[entry] === node ? 2 : 1) * (graph.values[entry] as number);
    }
  }
  const total = degree.reduce((sum, value) => sum + value, 0);
  const communityDegree = new Map<number, number>();
  membership.forEach((community, node) => communityDegree.set(community, (communityDegree.get(community) ?? 0) + (degree[node] as number)));
  let best = 0;
  for (let node = 0; node < n; node++) {
    const weightTo = new Map<number, number>();
    for (let entry = graph.rowPointers[node] as number; entry < (graph.rowPointers[node + 1] as number); entry++) {
      const neighbor = graph.columnIndices[entry] as number;
      if (neighbor === node) continue;
      const community = membership[neighbor] as number;
      weightTo.set(community, (weightTo.get(community) ?? 0) + (graph.values[entry] as number));
    }
    const own = membership[node] as number;
    const k = degree[node] as number;
    const score = (community: number): number => {
      const others = (communityDegree.get(community) ?? 0) - (community === own ? k : 0);
      return (weightTo.get(community) ?? 0) - (resolution * k * others) / total;
    };
    const stay = score(own);
    best = Math.max(best, -stay);
    for (const community of weightTo.keys()) best = Math.max(best, score(community) - stay);
  }
  return best;
}

describe('leiden', () => {
  test('planted partitions: modularity at least graphology Louvain’s, planted groups recovered at low mixing', () => {
    let leidenTotal = 0;
    let louvainTotal = 0;
    for (const mixing of [0.1, 0.2, 0.3, 0.4]) {
      for (const seed of [1, 2, 3]) {
        const planted = plantedPartition({ groups: 20, size: 50, edges: 5000, mixing, seed });
        const graph = undirectedGraphCsr(planted.nodes, planted.edges);
        const result = leiden(graph, { seed });
        const louvainQ = modularity(graph, louvainMembership(planted.nodes, planted.edges, seed));
        assert.ok(result.modularity >= louvainQ - 1e-3, `μ ${mixing} seed ${seed}: Leiden Q ${result.modularity} < Louvain Q ${louvainQ}`);
        leidenTotal += result.modularity;
        louvainTotal += louvainQ;
        const nmi = normalizedMutualInformation(result.membership, planted.truth);
        if (mixing <= 0.3) assert.ok(nmi >= 0.9, `μ ${mixing} seed ${seed}: NMI ${nmi}`);
        if (mixing <= 0.1) assert.equal(result.count, 20);
      }
    }
    assert.ok(leidenTotal >= louvainTotal, `mean modularity ${leidenTotal / 12} below Louvain's ${louvainTotal / 12}`);
  });

  test('weighted planted partitions (light edges between groups) are recovered', () => {
    for (const seed of [4, 5]) {
      const planted = plantedPartition({ groups: 10, size: 30, edges: 2500, mixing: 0.5, seed, weight: (inside, random) => (inside ? 1 + random() : 0.1 * random() + 0.01) });
      const result = leiden(undirectedGraphCsr(planted.nodes, planted.edges), { seed });
      assert.ok(normalizedMutualInformation(result.membership, planted.truth) >= 0.95);
    }
  });

  test('every community is connected, across graphs, resolutions, randomness and both quality functions', () => {
    for (let seed = 0; seed < 120; seed++) {
      const { graph } = randomGraph(seed);
      const random = createRandom(seed);
      const options = { seed, resolution: 0.2 + 3 * random(), randomness: random() < 0.5 ? 0.01 : 1, maxIterations: 1 + Math.floor(random() * 3) };
      for (const quality of ['modularity', 'cpm'] as const) {
        const result = leiden(graph, { ...options, quality, resolution: quality === 'cpm' ? options.resolution / 10 : options.resolution });
        assert.deepEqual(disconnectedCommunities(graph, result.membership), [], `seed ${seed} ${quality}`);
        // The refinement itself guarantees it: the final connectivity pass had nothing to split.
        assert.equal(result.connectivitySplits, 0, `seed ${seed} ${quality}`);
      }
    }
  });

  test('communities never span components; isolated nodes stay alone', () => {
    for (let seed = 0; seed < 30; seed++) {
      const { graph, nodes } = randomGraph(1000 + seed);
      const component = components(graph);
      const result = leiden(graph, { seed });
      const componentOf = new Map<number, number>();
      for (let node = 0; node < nodes; node++) {
        const community = result.membership[node] as number;
        const previous = componentOf.get(community);
        if (previous === undefined) componentOf.set(community, component[node] as number);
        else assert.equal(previous, component[node], `seed ${seed}: community ${community} spans components`);
      }
      for (let node = 0; node < nodes; node++) {
        if (graph.rowPointers[node] === graph.rowPointers[node + 1]) {
          assert.equal(result.membership.filter((community) => community === result.membership[node]).length, 1, 'an isolated node is alone');
        }
      }
    }
  });

  test('two cliques and an isolated node, no edges between: three communities in node order', () => {
    const pairs: Array<[number, number]> = [];
    for (let i = 0; i < 5; i++) for (let j = i + 1; j < 5; j++) pairs.push([i, j], [i + 6, j + 6]);
    const result = leiden(undirectedGraphCsr(11, edgesOf(pairs)));
    assert.deepEqual(Array.from(result.membership), [0, 0, 0, 0, 0, 1, 2, 2, 2, 2, 2]);
    assert.equal(result.count, 3);
  });

  test('bridged triangles split at the bridge, with the hand-computed modularity 5/14', () => {
    const graph = undirectedGraphCsr(6, edgesOf([[0, 1], [1, 2], [0, 2], [3, 4], [4, 5], [3, 5], [2, 3]]));
    const result = leiden(graph);
    assert.deepEqual(Array.from(result.membership), [0, 0, 0, 1, 1, 1]);
    assert.ok(Math.abs(result.modularity - 5 / 14) < 1e-12);
    assert.equal(result.quality, result.modularity);
  });

  test('the result reports its own modularity, count and a canonical numbering', () => {
    for (let seed = 0; seed < 20; seed++) {
      const { graph } = randomGraph(2000 + seed);
      const result = leiden(graph, { seed, resolution: 1.5 });
      assert.ok(Math.abs(result.modularity - modularity(graph, result.membership, 1.5)) < 1e-12);
      assert.equal(result.count, new Set(result.membership).size);
      let next = 0;
      for (const community of result.membership) {
        assert.ok(community <= next, 'communities are numbered by first appearance');
        if (community === next) next++;
      }
    }
  });

  test('a converged partition cannot be improved by moving any single node', () => {
    let converged = 0;
    for (let seed = 0; seed < 40; seed++) {
      const { graph } = randomGraph(3000 + seed);
      const result = leiden(graph, { seed, maxIterations: 50 });
      if (result.iterations === 50) continue;
      converged++;
      assert.ok(bestSingleMoveGain(graph, result.membership, 1) <= 1e-9, `seed ${seed}`);
    }
    assert.ok(converged >= 30, `only ${converged} runs converged`);
  });

  test('deterministic for a seed; an injected generator equals the seed; other seeds may differ', () => {
    const planted = plantedPartition({ groups: 20, size: 30, edges: 3000, mixing: 0.45, seed: 9 });
    const graph = undirectedGraphCsr(planted.nodes, planted.edges);
    const first = leiden(graph, { seed: 42 });
    assert.deepEqual(leiden(graph, { seed: 42 }), first);
    assert.deepEqual(leiden(graph, { random: createRandom(42) }), first);
    assert.deepEqual(leiden(graph), leiden(graph, { seed: leidenDefaults.seed }));
    const distinct = new Set([1, 2, 3, 4, 5, 6].map((seed) => leiden(graph, { seed }).membership.join(',')));
    assert.ok(distinct.size > 1, 'different seeds explore different partitions');
  });

  test('resolution: higher gives more communities; 0 merges each component', () => {
    const planted = plantedPartition({ groups: 10, size: 20, edges: 1500, mixing: 0.2, seed: 3 });
    const graph = undirectedGraphCsr(planted.nodes, planted.edges);
    const counts = [0.5, 1, 2, 4].map((resolution) => leiden(graph, { resolution, seed: 3 }).count);
    for (let index = 1; index < counts.length; index++) assert.ok((counts[index] as number) >= (counts[index - 1] as number), `counts ${counts.join(', ')}`);
    const component = components(graph);
    assert.equal(leiden(graph, { resolution: 0 }).count, new Set(component).size);
  });

  test('CPM: a resolution above every edge weight leaves nodes alone; a tiny one merges each component', () => {
    const { graph } = randomGraph(77);
    const alone = leiden(graph, { quality: 'cpm', resolution: 3.1 });
    assert.equal(alone.count, graph.rows);
    const merged = leiden(graph, { quality: 'cpm', resolution: 1e-6 });
    assert.equal(merged.count, new Set(components(graph)).size);
    // Two triangles and a bridge, γ = 0.5: L = 3 each, n = 3 each → 2·(3 − 0.5·3) = 3.
    const triangles = undirectedGraphCsr(6, edgesOf([[0, 1], [1, 2], [0, 2], [3, 4], [4, 5], [3, 5], [2, 3]]));
    const result = leiden(triangles, { quality: 'cpm', resolution: 0.5 });
    assert.deepEqual(Array.from(result.membership), [0, 0, 0, 1, 1, 1]);
    assert.equal(result.quality, 3);
  });

  test('self-loops: kept in degrees, and a heavy loop keeps its node apart', () => {
    // A path 0–1–2 where node 2 carries a heavy loop: it is better alone.
    const graph = undirectedGraphCsr(3, edgesOf([[0, 1], [1, 2], [2, 2, 20]]));
    const result = leiden(graph);
    assert.deepEqual(Array.from(result.membership), [0, 0, 1]);
    assert.ok(Math.abs(result.modularity - modularity(graph, result.membership)) < 1e-12);
  });

  test('degenerate graphs: empty, one node, zero weights, no edges', () => {
    const empty = leiden(csrFromTriplets(0, 0, [], [], []));
    assert.equal(empty.count, 0);
    assert.equal(empty.membership.length, 0);
    assert.equal(empty.modularity, 0);
    const single = leiden(undirectedGraphCsr(1, []));
    assert.deepEqual(Array.from(single.membership), [0]);
    assert.equal(single.count, 1);
    const loop = leiden(undirectedGraphCsr(1, edgesOf([[0, 0, 3]])));
    assert.deepEqual(Array.from(loop.membership), [0]);
    const zero = leiden(undirectedGraphCsr(4, edgesOf([[0, 1, 0], [1, 2, 0], [2, 3, 0]])));
    assert.deepEqual(Array.from(zero.membership), [0, 1, 2, 3]);
    assert.equal(zero.modularity, 0);
    assert.equal(zero.iterations, 0);
    const none = leiden(undirectedGraphCsr(5, []));
    assert.deepEqual(Array.from(none.membership), [0, 1, 2, 3, 4]);
  });

  test('rejects negative or non-finite weights, non-square matrices and out-of-range options', () => {
    assert.throws(() => leiden(undirectedGraphCsr(2, edgesOf([[0, 1, -1]]))), RangeError);
    assert.throws(() => leiden(undirectedGraphCsr(2, edgesOf([[0, 1, Number.NaN]]))), RangeError);
    assert.throws(() => leiden(undirectedGraphCsr(2, edgesOf([[0, 1, Number.POSITIVE_INFINITY]]))), RangeError);
    assert.throws(() => leiden(csrFromTriplets(2, 3, [0], [1], [1])), RangeError);
    const graph = undirectedGraphCsr(2, edgesOf([[0, 1]]));
    assert.throws(() => leiden(graph, { resolution: -1 }), RangeError);
    assert.throws(() => leiden(graph, { randomness: 0 }), RangeError);
    assert.throws(() => leiden(graph, { maxIterations: 0 }), RangeError);
    assert.throws(() => leiden(graph, { maxIterations: 1.5 }), RangeError);
    // A failed call leaves nothing behind that changes the next one.
    assert.deepEqual(Array.from(leiden(graph).membership), [0, 0]);
  });

  test('large and small calls interleave without sharing state', () => {
    const small = randomGraph(5);
    const expected = leiden(small.graph, { seed: 5 });
    const planted = plantedPartition({ groups: 50, size: 700, edges: 140_000, mixing: 0.2, seed: 1 });
    leiden(undirectedGraphCsr(planted.nodes, planted.edges), { seed: 1, maxIterations: 1 });
    assert.deepEqual(leiden(small.graph, { seed: 5 }), expected);
  });
});

/**
 * A planted graph and the same graph after a small change: `extra` new edges drawn like the planted ones
 * (a few to `added` new nodes at the end), so some nodes' neighbourhoods change and most do not.
 */
function changedPlanted(seed: number, extra: number, added: number): { before: CsrMatrix; after: CsrMatrix; affected: Uint8Array; nodes: number } {
  const planted = plantedPartition({ groups: 20, size: 40, edges: 4000, mixing: 0.45, seed });
  const random = createRandom(seed + 1000);
  const nodes = planted.nodes + added;
  const edges = [...planted.edges];
  const affected = new Uint8Array(nodes);
  const link = (source: number, target: number): void => {
    if (source === target) return;
    edges.push({ source, target, weight: 1 });
    affected[source] = 1;
    affected[target] = 1;
  };
  for (let index = 0; index < extra; index++) {
    const source = Math.floor(random() * planted.nodes);
    const group = random() < 0.7 ? (planted.truth[source] as number) : Math.floor(random() * 20);
    let target = Math.floor(random() * planted.nodes);
    while (planted.truth[target] !== group) target = Math.floor(random() * planted.nodes);
    link(source, target);
  }
  for (let node = planted.nodes; node < nodes; node++) for (let edge = 0; edge < 4; edge++) link(node, Math.floor(random() * planted.nodes));
  return { before: undirectedGraphCsr(planted.nodes, planted.edges), after: undirectedGraphCsr(nodes, edges), affected, nodes };
}

/** The partition of the first `n` nodes followed by −1 (no community) for the rest. */
function extended(membership: Int32Array, nodes: number): Int32Array {
  const initial = new Int32Array(nodes).fill(-1);
  initial.set(membership);
  return initial;
}

describe('leiden warm start and dynamic frontier', () => {
  test('nothing affected: the initial partition comes back unchanged, canonically numbered', () => {
    for (const seed of [1, 2, 3]) {
      const planted = plantedPartition({ groups: 15, size: 30, edges: 3000, mixing: 0.35, seed });
      const graph = undirectedGraphCsr(planted.nodes, planted.edges);
      const fresh = leiden(graph, { seed, maxIterations: 2 });
      // Labels need not be 0…k−1: any integers, equal labels one community.
      const labels = Array.from(fresh.membership, (community) => 1000 + 7 * community);
      const warm = leiden(graph, { seed: seed + 1, initialMembership: labels, affected: new Uint8Array(planted.nodes) });
      assert.deepEqual(warm.membership, fresh.membership);
      assert.equal(warm.iterations, 1);
    }
  });

  test('after a small change a warm start is as good as a fresh run, with or without a frontier and a move margin', () => {
    // 2 % more edges and 6 new nodes on a graph whose structure is weak enough that two iterations do not converge.
    const totals = { fresh: 0, naive: 0, frontier: 0, margin: 0 };
    for (const seed of [1, 2, 3, 4]) {
      const { before, after, affected, nodes } = changedPlanted(seed, 80, 6);
      const earlier = leiden(before, { seed, maxIterations: 2 }).membership;
      const initialMembership = extended(earlier, nodes);
      const q = {
        fresh: leiden(after, { seed, maxIterations: 2 }).modularity,
        naive: leiden(after, { seed, maxIterations: 2, initialMembership }).modularity,
        frontier: leiden(after, { seed, maxIterations: 2, initialMembership, affected }).modularity,
        margin: leiden(after, { seed, maxIterations: 2, initialMembership, affected, moveMargin: 0.2 }).modularity,
      };
      for (const [name, value] of Object.entries(q)) {
        assert.ok(value >= q.fresh * 0.99, `seed ${seed}: ${name} Q ${value} more than 1 % below the fresh run's ${q.fresh}`);
        totals[name as keyof typeof totals] += value;
      }
    }
    for (const name of ['naive', 'frontier'] as const) assert.ok(totals[name] >= totals.fresh, `${name}: mean Q ${totals[name] / 4} < fresh ${totals.fresh / 4}`);
  });

  test('a disconnected new component is clustered and every earlier community stays as it was', () => {
    const planted = plantedPartition({ groups: 10, size: 30, edges: 2000, mixing: 0.3, seed: 9 });
    const earlier = leiden(undirectedGraphCsr(planted.nodes, planted.edges), { seed: 9 }).membership;
    const start = planted.nodes;
    // Two triangles, far from everything else and from each other.
    const component = edgesOf([[start, start + 1], [start + 1, start + 2], [start, start + 2], [start + 3, start + 4], [start + 4, start + 5], [start + 3, start + 5]]);
    const nodes = start + 6;
    const affected = new Uint8Array(nodes).fill(1, start);
    const warm = leiden(undirectedGraphCsr(nodes, [...planted.edges, ...component]), { seed: 9, initialMembership: extended(earlier, nodes), affected });
    assert.deepEqual(warm.membership.subarray(0, start), earlier, 'old nodes keep their canonical communities');
    const tail = Array.from(warm.membership.subarray(start));
    assert.equal(tail[0], tail[2]);
    assert.equal(tail[3], tail[5]);
    assert.notEqual(tail[0], tail[3], 'the two triangles are two communities');
    assert.ok(tail.every((community) => community >= (Math.max(...earlier) as number) + 1), 'and none is an earlier one');
  });

  test('a new node starts alone and joins the community it is best connected to', () => {
    // Two 5-cliques; node 10 is new, with three edges into the second clique and one into the first.
    const pairs: Array<[number, number]> = [];
    for (const offset of [0, 5]) for (let i = 0; i < 5; i++) for (let j = i + 1; j < 5; j++) pairs.push([offset + i, offset + j]);
    pairs.push([0, 5], [10, 6], [10, 7], [10, 8], [10, 1]);
    const graph = undirectedGraphCsr(11, edgesOf(pairs));
    const affected = new Uint8Array(11);
    affected[10] = 1;
    for (const moveMargin of [0, 0.5]) {
      const result = leiden(graph, { initialMembership: [0, 0, 0, 0, 0, 1, 1, 1, 1, 1, -1], affected, moveMargin });
      assert.deepEqual(Array.from(result.membership), [0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1], `margin ${moveMargin}: a new node is never held back`);
    }
  });

  test('the move margin keeps a node with companions where it is unless a move gains more than that share of its edges', () => {
    // Node 0 sits in the first clique (2 edges there) but has 3 edges into the second one.
    // Node 0 has 2 edges in its own group and 4 into a 4-clique: moving gains ΔH 0.8 against 0.4 for staying
    // (2m = 30, k₀ = 6), i.e. 0.4 = 6.7 % of its edge weight.
    const pairs: Array<[number, number]> = [[0, 1], [0, 2], [1, 2], [1, 3], [2, 3]];
    for (let i = 4; i < 8; i++) for (let j = i + 1; j < 8; j++) pairs.push([i, j]);
    pairs.push([0, 4], [0, 5], [0, 6], [0, 7]);
    const graph = undirectedGraphCsr(8, edgesOf(pairs));
    const initialMembership = [0, 0, 0, 0, 1, 1, 1, 1];
    const affected = Uint8Array.from([1, 0, 0, 0, 0, 0, 0, 0]);
    for (const moveMargin of [0, 0.05]) assert.deepEqual(Array.from(leiden(graph, { initialMembership, affected, moveMargin }).membership), [0, 1, 1, 1, 0, 0, 0, 0]);
    assert.deepEqual(Array.from(leiden(graph, { initialMembership, affected, moveMargin: 0.1 }).membership), [0, 0, 0, 0, 1, 1, 1, 1]);
  });

  test('rejects an affected set without a start and lists of the wrong length', () => {
    const graph = undirectedGraphCsr(3, edgesOf([[0, 1], [1, 2]]));
    assert.throws(() => leiden(graph, { affected: [1, 1, 1] }), RangeError);
    assert.throws(() => leiden(graph, { initialMembership: [0, 0] }), RangeError);
    assert.throws(() => leiden(graph, { initialMembership: [0, 0, 0], affected: [1] }), RangeError);
    assert.throws(() => leiden(graph, { initialMembership: [0, 0.5, 0] }), RangeError);
    assert.throws(() => leiden(graph, { initialMembership: [0, 0, 0], affected: [1, 1, 1], moveMargin: -1 }), RangeError);
  });

  test('a warm start on a graph without edges still returns connected communities', () => {
    const result = leiden(undirectedGraphCsr(4, []), { initialMembership: [0, 0, 1, 1] });
    assert.deepEqual(Array.from(result.membership), [0, 1, 2, 3]);
  });
});

describe('placeNodes', () => {
  // Two 4-cliques joined by one edge (0–3 and 4–7), then new nodes 8, 9 and 10, each alone in the initial partition.
  const clique = (offset: number): Array<[number, number]> => [0, 1, 2, 3].flatMap((i) => [0, 1, 2, 3].filter((j) => j > i).map((j): [number, number] => [offset + i, offset + j]));
  const base: Array<[number, number, number?]> = [...clique(0), ...clique(4), [3, 4]];
  const initial = Int32Array.from([0, 0, 0, 0, 1, 1, 1, 1, 2, 3, 4]);
  const placed = Uint8Array.from([0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1]);

  test('a new node joins the community it has most ties to; one without ties stays alone; no earlier node moves', () => {
    // Node 8: three ties into the first clique, one into the second; node 9: none; node 10: two ties into the second.
    const graph = undirectedGraphCsr(11, edgesOf([...base, [8, 0], [8, 1], [8, 2], [8, 5], [10, 6], [10, 7]]));
    const { membership, count } = placeNodes(graph, initial, placed);
    assert.deepEqual(Array.from(membership), [0, 0, 0, 0, 1, 1, 1, 1, 0, 2, 1]);
    assert.equal(count, 3);
  });

  test('a self-loop weighs twice in the node weight, as in leiden, and is no tie to another community', () => {
    const withLoop = undirectedGraphCsr(11, edgesOf([...base, [8, 8, 5], [8, 0]]));
    const without = undirectedGraphCsr(11, edgesOf([...base, [8, 0]]));
    // k_8 = 2·5 + 1 = 11 of 2m = 38: joining gains 1 − 11·14/38 < 0, so node 8 stays alone (numbered 2, after the cliques).
    assert.equal(placeNodes(withLoop, initial, placed).membership[8], 2);
    // k_8 = 1 of 2m = 28: joining gains 1 − 14/28 > 0.
    assert.equal(placeNodes(without, initial, placed).membership[8], 0);
  });

  test('rejects arrays that do not fit the graph', () => {
    const graph = undirectedGraphCsr(11, edgesOf(base));
    assert.throws(() => placeNodes(graph, initial.subarray(0, 10), placed), /placeNodes: initial has 10 and placed 11 entries for 11 nodes/);
  });
});
