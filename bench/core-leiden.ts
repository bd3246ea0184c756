/*
 * Leiden community detection on seeded planted-partition graphs (the setting of the dependency study: groups of 100 nodes,
 * 80 % of edges inside groups), against graphology's Louvain on the same graph in the same process:
 *
 *   leiden_50k_s                    hierarchical Leiden (GraphRAG defaults), 50k nodes / 200k edges
 *   leiden_1m_s                     hierarchical Leiden, 200k nodes / 1M edges
 *   leiden_modularity_vs_louvain    level-0 modularity of the hierarchy / Louvain's, 50k graph (> 1: Leiden better)
 *   louvain_50k_s                   graphology Louvain, 50k graph
 *   leiden_vs_louvain_speed         Louvain time / flat Leiden time, 50k graph (> 1: Leiden faster)
 * plus flat Leiden times, modularities, community counts and the 1M Louvain comparison.
 *
 * Times cover the clustering only: the CSR matrix and the graphology graph are built once, outside.
 * Run r uses seed 0xDEADBEEF + r for both algorithms.
 */
import { UndirectedGraph } from 'graphology';
import louvainModule from 'graphology-communities-louvain';
import { createRandom } from '../src/core/random.js';
import { hierarchicalLeiden, hierarchicalLeidenDefaults } from '../src/graph/hierarchical-leiden.js';
import { leiden } from '../src/graph/leiden.js';
import { modularity } from '../src/graph/modularity.js';
import { undirectedGraphCsr } from '../src/math/csr-matrix.js';
import type { CsrMatrix } from '../src/math/csr-matrix.js';
import { plantedPartition } from '../test/helpers/community-graphs.js';
import type { PlantedPartition } from '../test/helpers/community-graphs.js';
import { result } from './bench-utils.js';
import type { BenchResult } from './bench-utils.js';

// The package is CommonJS with an ESM-style `export default` in its types; at run time the default import is the function.
const louvain = louvainModule as unknown as typeof louvainModule.default;

interface Prepared {
  csr: CsrMatrix;
  graph: UndirectedGraph;
  csrBuildSeconds: number;
}

function prepare(planted: PlantedPartition): Prepared {
  const started = performance.now();
  const csr = undirectedGraphCsr(planted.nodes, planted.edges);
  const csrBuildSeconds = (performance.now() - started) / 1000;
  const graph = new UndirectedGraph();
  for (let node = 0; node < planted.nodes; node++) graph.addNode(String(node));
  for (const { source, target, weight } of planted.edges) graph.addEdge(String(source), String(target), { weight });
  return { csr, graph, csrBuildSeconds };
}

function seconds<T>(run: () => T): { value: T; seconds: number } {
  const started = performance.now();
  const value = run();
  return { value, seconds: (performance.now() - started) / 1000 };
}

/** One measurement of every algorithm on a graph. */
function measure(prepared: Prepared, seed: number) {
  const { csr, graph } = prepared;
  const hierarchy = seconds(() => hierarchicalLeiden(csr, { seed }));
  const level0 = new Int32Array(csr.rows);
  let levels = 0;
  hierarchy.value.forEach((community, index) => {
    levels = Math.max(levels, community.level + 1);
    if (community.level === 0) for (const member of community.members) level0[member] = index;
  });
  const flat = seconds(() =>
    leiden(csr, { seed, randomness: hierarchicalLeidenDefaults.randomness, maxIterations: hierarchicalLeidenDefaults.maxIterations }),
  );
  const baseline = seconds(() => louvain(graph, { rng: createRandom(seed), getEdgeWeight: 'weight' }));
  const louvainMembership = new Int32Array(csr.rows);
  for (let node = 0; node < csr.rows; node++) louvainMembership[node] = baseline.value[String(node)] ?? 0;
  const leidenQ = modularity(csr, level0);
  const louvainQ = modularity(csr, louvainMembership);
  return {
    hierarchicalSeconds: hierarchy.seconds,
    flatSeconds: flat.seconds,
    louvainSeconds: baseline.seconds,
    leidenQ,
    louvainQ,
    communities: hierarchy.value.length,
    levels,
    level0Count: hierarchy.value.filter((community) => community.level === 0).length,
    louvainCount: new Set(louvainMembership).size,
  };
}

type Measurement = ReturnType<typeof measure>;

/** Medians over `runs` runs (at least 5) of hierarchical and flat Leiden and graphology Louvain. */
export async function benchCoreLeiden(runs: number): Promise<Record<string, BenchResult>> {
  const count = Math.max(5, runs);
  const small = prepare(plantedPartition({ groups: 500, size: 100, edges: 200_000, mixing: 0.2, seed: 1 }));
  const large = prepare(plantedPartition({ groups: 2000, size: 100, edges: 1_000_000, mixing: 0.2, seed: 2 }));
  const smallRuns: Measurement[] = [];
  const largeRuns: Measurement[] = [];
  for (let run = 0; run < count; run++) {
    const seed = hierarchicalLeidenDefaults.seed + run;
    smallRuns.push(measure(small, seed));
    largeRuns.push(measure(large, seed));
    // Let the event loop breathe between runs (progress output of the caller, timers).
    await new Promise((resolve) => setImmediate(resolve));
  }
  const pick = (list: Measurement[], field: (measurement: Measurement) => number): number[] => list.map(field);
  return {
    leiden_50k_s: result(pick(smallRuns, (m) => m.hierarchicalSeconds), 's'),
    leiden_1m_s: result(pick(largeRuns, (m) => m.hierarchicalSeconds), 's'),
    leiden_modularity_vs_louvain: result(pick(smallRuns, (m) => m.leidenQ / m.louvainQ), 'ratio'),
    louvain_50k_s: result(pick(smallRuns, (m) => m.louvainSeconds), 's'),
    leiden_vs_louvain_speed: result(pick(smallRuns, (m) => m.louvainSeconds / m.flatSeconds), 'ratio'),
    leiden_flat_50k_s: result(pick(smallRuns, (m) => m.flatSeconds), 's'),
    leiden_modularity_50k: result(pick(smallRuns, (m) => m.leidenQ), 'Q'),
    louvain_modularity_50k: result(pick(smallRuns, (m) => m.louvainQ), 'Q'),
    leiden_level0_communities_50k: result(pick(smallRuns, (m) => m.level0Count), 'count'),
    louvain_communities_50k: result(pick(smallRuns, (m) => m.louvainCount), 'count'),
    leiden_hierarchy_communities_50k: result(pick(smallRuns, (m) => m.communities), 'count'),
    leiden_hierarchy_levels_50k: result(pick(smallRuns, (m) => m.levels), 'count'),
    leiden_flat_1m_s: result(pick(largeRuns, (m) => m.flatSeconds), 's'),
    louvain_1m_s: result(pick(largeRuns, (m) => m.louvainSeconds), 's'),
    leiden_modularity_vs_louvain_1m: result(pick(largeRuns, (m) => m.leidenQ / m.louvainQ), 'ratio'),
    leiden_vs_louvain_speed_1m: result(pick(largeRuns, (m) => m.louvainSeconds / m.flatSeconds), 'ratio'),
    leiden_csr_build_50k_s: result([small.csrBuildSeconds], 's'),
    leiden_csr_build_1m_s: result([large.csrBuildSeconds], 's'),
  };
}
