import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { KgragError } from '../core/errors.js';
import { createRandom } from '../core/random.js';
import type { Random } from '../core/random.js';
import { csrToDense, maxAbsDifference, solveDense } from '../../test/helpers/dense-oracles.js';
import type { Dense } from '../../test/helpers/dense-oracles.js';
import { csrFromTriplets, undirectedGraphCsr } from '../math/csr-matrix.js';
import type { CsrMatrix } from '../math/csr-matrix.js';
import { createPageRankArena, pageRankDefaults, personalizedPageRank, preparePageRankGraph } from './pagerank.js';

/** A random weighted directed graph in which about a fifth of the nodes have no out-edges. */
function randomDirectedGraph(random: Random, n: number, density: number): CsrMatrix {
  const rows: number[] = [];
  const cols: number[] = [];
  const values: number[] = [];
  for (let i = 0; i < n; i++) {
    if (random() < 0.2) continue;
    for (let j = 0; j < n; j++) {
      if (random() < density) {
        rows.push(i);
        cols.push(j);
        values.push(0.1 + random() * 3);
      }
    }
  }
  return csrFromTriplets(n, n, rows, cols, values);
}

/** Solves (I − α·P̃ᵀ)·x = (1 − α)·v densely, P̃ with dangling rows replaced by `danglingRow`. */
function denseOracle(adjacency: CsrMatrix, damping: number, v: Float64Array, danglingRow: Float64Array): Float64Array {
  const n = adjacency.rows;
  const w = csrToDense(adjacency);
  const system: Dense = { rows: n, cols: n, data: new Float64Array(n * n) };
  for (let i = 0; i < n; i++) {
    let out = 0;
    for (let j = 0; j < n; j++) out += w.data[i * n + j] as number;
    for (let j = 0; j < n; j++) {
      const transition = out > 0 ? (w.data[i * n + j] as number) / out : (danglingRow[j] as number);
      // Row j of (I − α·P̃ᵀ) holds −α·P̃_ij in column i.
      system.data[j * n + i] = (system.data[j * n + i] as number) - damping * transition;
    }
  }
  for (let i = 0; i < n; i++) system.data[i * n + i] = (system.data[i * n + i] as number) + 1;
  return solveDense(system, v.map((value) => (1 - damping) * value));
}

function randomDistribution(random: Random, n: number, support: number): Float64Array {
  const v = new Float64Array(n);
  for (let k = 0; k < support; k++) v[Math.floor(random() * n)] = random() + 0.1;
  const sum = v.reduce((total, value) => total + value, 0);
  return v.map((value) => value / sum);
}

describe('personalizedPageRank', () => {
  test('matches the dense solve of (I − αP̃ᵀ)x = (1 − α)v on random directed graphs with dangling nodes', () => {
    const random = createRandom(31);
    for (let trial = 0; trial < 8; trial++) {
      const n = 15 + trial * 5;
      const adjacency = randomDirectedGraph(random, n, 0.15);
      const graph = preparePageRankGraph(adjacency);
      assert.ok(graph.danglingNodes.length > 0);
      for (const damping of [0.5, 0.85]) {
        const v = randomDistribution(random, n, 3);
        const result = personalizedPageRank(graph, { damping, personalization: v, tolerance: 1e-12, maxIterations: 1000 });
        assert.ok(maxAbsDifference(result.scores, denseOracle(adjacency, damping, v, v)) < 1e-9, `trial ${trial} α ${damping}`);
        // The same fixed point, read as the normalized solution with substochastic P (dangling rows 0).
        const substochastic = denseOracle(adjacency, damping, v, new Float64Array(n));
        const total = substochastic.reduce((sum, value) => sum + value, 0);
        assert.ok(maxAbsDifference(result.scores, substochastic.map((value) => value / total)) < 1e-9);
        // Uniform dangling restarts.
        const uniform = personalizedPageRank(graph, { damping, personalization: v, dangling: 'uniform', tolerance: 1e-12, maxIterations: 1000 });
        assert.ok(maxAbsDifference(uniform.scores, denseOracle(adjacency, damping, v, new Float64Array(n).fill(1 / n))) < 1e-9);
      }
    }
  });

  test('plain PageRank on an undirected graph: the symmetric preparation equals the general one and the dense solve', () => {
    const random = createRandom(32);
    const edges = Array.from({ length: 80 }, () => ({ source: Math.floor(random() * 30), target: Math.floor(random() * 30), weight: 0.5 + random() }));
    const adjacency = undirectedGraphCsr(30, edges);
    const general = personalizedPageRank(adjacency, { tolerance: 1e-12, maxIterations: 500 });
    const symmetric = personalizedPageRank(preparePageRankGraph(adjacency, { symmetric: true }), { tolerance: 1e-12, maxIterations: 500 });
    assert.ok(maxAbsDifference(general.scores, symmetric.scores) < 1e-12);
    assert.ok(Math.abs(general.scores.reduce((sum, value) => sum + value, 0) - 1) < 1e-12);
    const n = 30;
    const v = new Float64Array(n).fill(1 / n);
    assert.ok(maxAbsDifference(general.scores, denseOracle(adjacency, pageRankDefaults.damping, v, v)) < 1e-9);
  });

  test('HippoRAG setting: damping 0.5 from query nodes ranks their neighbourhood first', () => {
    // Two triangles joined by one edge; the seed is in the first.
    const adjacency = undirectedGraphCsr(6, [
      { source: 0, target: 1, weight: 1 },
      { source: 1, target: 2, weight: 1 },
      { source: 0, target: 2, weight: 1 },
      { source: 2, target: 3, weight: 1 },
      { source: 3, target: 4, weight: 1 },
      { source: 4, target: 5, weight: 1 },
      { source: 3, target: 5, weight: 1 },
    ]);
    const personalization = Float64Array.from([1, 0, 0, 0, 0, 0]);
    const { scores } = personalizedPageRank(adjacency, { damping: 0.5, personalization, tolerance: 1e-12 });
    const order = Array.from(scores.keys()).sort((a, b) => (scores[b] as number) - (scores[a] as number));
    assert.deepEqual(order.slice(0, 3).sort(), [0, 1, 2]);
    assert.ok((scores[0] as number) > 0.5);
  });

  test('throws GRAPH_PAGERANK_NOT_CONVERGED when maxIterations is too small', () => {
    const adjacency = randomDirectedGraph(createRandom(33), 40, 0.1);
    assert.throws(
      () => personalizedPageRank(adjacency, { tolerance: 1e-12, maxIterations: 5 }),
      (error: unknown) => KgragError.isInstance(error) && error.code === 'GRAPH_PAGERANK_NOT_CONVERGED',
    );
  });

  test('rejects invalid personalization, damping and weights', () => {
    const adjacency = csrFromTriplets(3, 3, [0, 1], [1, 2], [1, 1]);
    assert.throws(() => personalizedPageRank(adjacency, { personalization: [0, 0, 0] }), RangeError);
    assert.throws(() => personalizedPageRank(adjacency, { personalization: [1, -1, 1] }), RangeError);
    assert.throws(() => personalizedPageRank(adjacency, { personalization: [1, 1] }), RangeError);
    assert.throws(() => personalizedPageRank(adjacency, { damping: 1 }), RangeError);
    assert.throws(() => preparePageRankGraph(csrFromTriplets(2, 2, [0], [1], [-1])), RangeError);
  });

  test('an edgeless graph gives the personalization vector back', () => {
    const { scores } = personalizedPageRank(csrFromTriplets(4, 4, [], [], []), { personalization: [0, 3, 1, 0] });
    assert.ok(maxAbsDifference(scores, [0, 0.75, 0.25, 0]) < 1e-12);
  });

  test('the WebAssembly sweep gives the scores of the JavaScript power iteration bit for bit, for graphs ranked in turn', () => {
    const random = createRandom(11);
    const graphs = [randomDirectedGraph(random, 60, 0.08), randomDirectedGraph(random, 35, 0.15)].map((adjacency) => preparePageRankGraph(adjacency));
    for (let round = 0; round < 3; round++) {
      for (const graph of graphs) {
        for (const dangling of ['personalization', 'uniform'] as const) {
          const personalization = randomDistribution(random, graph.n, 4);
          const expected = javascriptPowerIteration(graph, 0.5, personalization, 1e-9, dangling);
          const result = personalizedPageRank(graph, { damping: 0.5, personalization, tolerance: 1e-9, dangling });
          assert.equal(result.iterations, expected.iterations);
          assert.equal(result.error, expected.error);
          assert.deepEqual(Array.from(result.scores), Array.from(expected.scores));
        }
      }
    }
  });
});

/** The plain JavaScript loop the WebAssembly sweep replaced, as the reference for bit equality. */
function javascriptPowerIteration(
  graph: ReturnType<typeof preparePageRankGraph>,
  damping: number,
  personalization: Float64Array,
  tolerance: number,
  dangling: 'personalization' | 'uniform',
): { scores: number[]; iterations: number; error: number } {
  const { n, danglingNodes } = graph;
  const { rowPointers, columnIndices, values } = graph.incomingTransitions;
  const total = personalization.reduce((sum, value) => sum + value, 0);
  const restart = personalization.map((value) => value / total);
  let current = Float64Array.from(restart);
  let next = new Float64Array(n);
  for (let iteration = 1; ; iteration++) {
    let danglingMass = 0;
    for (const node of danglingNodes) danglingMass += current[node] as number;
    const restartScale = dangling === 'uniform' ? 1 - damping : damping * danglingMass + (1 - damping);
    const uniformShare = dangling === 'uniform' ? (damping * danglingMass) / n : 0;
    let error = 0;
    for (let node = 0; node < n; node++) {
      let sum = 0;
      for (let entry = rowPointers[node] as number; entry < (rowPointers[node + 1] as number); entry++) sum += (values[entry] as number) * (current[columnIndices[entry] as number] as number);
      const value = damping * sum + restartScale * (restart[node] as number) + uniformShare;
      next[node] = value;
      error += Math.abs(value - (current[node] as number));
    }
    [current, next] = [next, current];
    if (error < tolerance) {
      const sum = current.reduce((total, value) => total + value, 0);
      return { scores: Array.from(current, (value) => value / sum), iterations: iteration, error };
    }
  }
}

describe('the PageRank arena', () => {
  test('keeps graphs within its floor resident, and returns to its floor after a larger graph', () => {
    const floorBytes = 1 << 20;
    const arena = createPageRankArena({ floorBytes });
    assert.equal(arena.bytes, 0, 'no memory before the first run');
    const random = createRandom(7);
    const small = preparePageRankGraph(randomDirectedGraph(random, 60, 0.1));
    // About 3 MiB resident: 40,000 edges of 12 bytes and 30 bytes a node for its vectors and row pointers.
    const large = preparePageRankGraph(randomDirectedGraph(random, 2000, 0.01));
    const options = { damping: 0.5, tolerance: 1e-10 };
    const expectedSmall = personalizedPageRank(small, options).scores;
    const expectedLarge = personalizedPageRank(large, options).scores;

    assert.deepEqual(personalizedPageRank(small, { ...options, arena }).scores, expectedSmall);
    const kept = arena.bytes;
    assert.ok(kept > 0 && kept <= floorBytes, `a graph within the floor stays resident (${kept} bytes)`);
    assert.deepEqual(personalizedPageRank(large, { ...options, arena }).scores, expectedLarge);
    assert.ok(arena.bytes <= floorBytes, `back within the floor after the larger graph (${arena.bytes} bytes)`);
    assert.deepEqual(personalizedPageRank(small, { ...options, arena }).scores, expectedSmall, 'the small graph is copied in again');
    assert.ok(arena.bytes > 0 && arena.bytes <= floorBytes);
  });
});
