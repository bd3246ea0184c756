import { UndirectedGraph } from 'graphology';
import forceAtlas2Export from 'graphology-layout-forceatlas2';
import { createRandom } from '../core/random.js';

/*
 * A 2-D drawing of a graph by ForceAtlas2, from a seeded placement that puts the nodes of one group together.
 *
 * [Reference]: M. Jacomy, T. Venturini, S. Heymann, M. Bastian, "ForceAtlas2, a continuous graph layout algorithm
 * for handy network visualization designed for the Gephi software", PLoS ONE 9(6): e98679, 2014
 * (doi:10.1371/journal.pone.0098679). The iterations are graphology-layout-forceatlas2's, with the settings its
 * `inferSettings` gives for the graph's order (strong gravity, scaling 10, slow-down 1 + ln n).
 *
 * ForceAtlas2 converges to a local optimum of its energy, so the start decides which one: nodes of one group
 * (a community) start on a small circle around their group's centre, and the centres lie on one large circle,
 * which keeps communities apart in the result and makes the same input give the same drawing. Nodes are
 * jittered by a seeded generator so that no two start at the same point (where repulsion has no direction).
 */

// The package is CommonJS and its types declare an ES default export: under NodeNext the default import is
// `module.exports` itself, which is the function the types call `default`.
const forceAtlas2 = forceAtlas2Export as unknown as typeof forceAtlas2Export.default;

/** A graph to draw: node ids, optionally a group per node, and weighted edges between the nodes. */
export interface LayoutGraph {
  readonly nodes: readonly string[];
  /** The group of each node (its coarsest community), by index of `nodes`; nodes without one form a group of their own. */
  readonly groups?: ReadonlyArray<string | undefined>;
  /** Edges whose ends are not both in `nodes`, and self-loops, are ignored; parallel edges add their weights. */
  readonly edges: ReadonlyArray<{ readonly source: string; readonly target: string; readonly weight: number }>;
}

/** A position per node, in the order of {@link LayoutGraph.nodes}. */
export type LayoutPositions = Array<{ x: number; y: number }>;

/** Defaults of {@link forceAtlas2Layout}. */
export const forceAtlas2LayoutDefaults = {
  /**
   * Node-iterations to spend: a graph of n nodes gets budget / n iterations, within `minIterations` and
   * `maxIterations`. One iteration costs about O(n log n) with Barnes–Hut, so the budget keeps the largest slice
   * (2,000 nodes, 50 iterations) to about half a second of CPU, and a small one (≤ 666 nodes) gets the full 150.
   * On the 2Wiki index's top 2,000 entities the drawing has settled by then: the mean edge length relative to the
   * mean distance of random pairs is 0.426 after 25 iterations, 0.436 after 50 and 0.438 after 300.
   */
  nodeIterationBudget: 100_000,
  minIterations: 50,
  maxIterations: 150,
  /** Above this many nodes the repulsion is approximated by a Barnes–Hut quadtree. */
  barnesHutAbove: 500,
  /** Barnes–Hut accuracy θ: Gephi's default of 1.2 (graphology's 0.5 costs twice the time for no visible gain). */
  barnesHutTheta: 1.2,
  /** Seed of the start jitter. */
  seed: 1,
} as const;

/** Options of {@link forceAtlas2Layout}; omitted ones take {@link forceAtlas2LayoutDefaults}. */
export interface ForceAtlas2LayoutOptions {
  /** Exactly this many iterations, instead of the budget's share. */
  iterations?: number;
  barnesHutAbove?: number;
  barnesHutTheta?: number;
  seed?: number;
}

/** The seeded start: groups (largest first, then by id) around one circle, each group's nodes on a circle of its own. */
function initialPlacement(graph: LayoutGraph, seed: number): LayoutPositions {
  const random = createRandom(seed);
  const members = new Map<string, number[]>();
  graph.nodes.forEach((_, index) => {
    // A node without a group is alone in it; the prefix keeps such keys apart from community ids.
    const group = graph.groups?.[index] ?? `\u0000${index}`;
    const list = members.get(group);
    if (list) list.push(index);
    else members.set(group, [index]);
  });
  const groups = [...members].sort((a, b) => b[1].length - a[1].length || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  // A group of k nodes gets a disc of radius √k (unit spacing); the discs side by side span the large circle.
  const radii = groups.map(([, list]) => Math.sqrt(list.length));
  const circumference = radii.reduce((sum, radius) => sum + 2 * radius, 0);
  const ringRadius = groups.length === 1 ? 0 : circumference / (2 * Math.PI);
  const positions: LayoutPositions = graph.nodes.map(() => ({ x: 0, y: 0 }));
  let travelled = 0;
  groups.forEach(([, list], groupIndex) => {
    const radius = radii[groupIndex] ?? 1;
    const angle = (2 * Math.PI * (travelled + radius)) / Math.max(circumference, Number.EPSILON);
    travelled += 2 * radius;
    const centreX = ringRadius * Math.cos(angle);
    const centreY = ringRadius * Math.sin(angle);
    list.forEach((node, rank) => {
      const around = (2 * Math.PI * rank) / list.length + (random() - 0.5) * 0.1;
      const distance = list.length === 1 ? 0 : radius * (0.9 + 0.1 * random());
      positions[node] = { x: centreX + distance * Math.cos(around) + (random() - 0.5) * 0.01, y: centreY + distance * Math.sin(around) + (random() - 0.5) * 0.01 };
    });
  });
  return positions;
}

/**
 * Positions for every node of `graph` by ForceAtlas2 (see the reference above), deterministic for the same graph,
 * groups and options. Isolated nodes are drawn too (gravity holds them near the centre); every coordinate is finite.
 */
export function forceAtlas2Layout(graph: LayoutGraph, options: ForceAtlas2LayoutOptions = {}): LayoutPositions {
  const defaults = forceAtlas2LayoutDefaults;
  const iterations =
    options.iterations ?? Math.min(defaults.maxIterations, Math.max(defaults.minIterations, Math.round(defaults.nodeIterationBudget / Math.max(graph.nodes.length, 1))));
  const barnesHutAbove = options.barnesHutAbove ?? defaults.barnesHutAbove;
  const start = initialPlacement(graph, options.seed ?? defaults.seed);
  if (graph.nodes.length < 2 || iterations <= 0) return start;
  const drawn = new UndirectedGraph<{ x: number; y: number }, { weight: number }>({ allowSelfLoops: false });
  graph.nodes.forEach((node, index) => {
    if (!drawn.hasNode(node)) drawn.addNode(node, start[index] ?? { x: 0, y: 0 });
  });
  for (const edge of graph.edges) {
    if (edge.source === edge.target || !drawn.hasNode(edge.source) || !drawn.hasNode(edge.target)) continue;
    const weight = Number.isFinite(edge.weight) && edge.weight > 0 ? edge.weight : 1;
    if (drawn.hasEdge(edge.source, edge.target)) drawn.updateEdgeAttribute(edge.source, edge.target, 'weight', (sum) => (sum ?? 0) + weight);
    else drawn.addEdge(edge.source, edge.target, { weight });
  }
  const settings = { ...forceAtlas2.inferSettings(drawn.order), barnesHutOptimize: drawn.order > barnesHutAbove, barnesHutTheta: options.barnesHutTheta ?? defaults.barnesHutTheta };
  const computed = forceAtlas2(drawn, { iterations, settings, getEdgeWeight: 'weight' });
  return graph.nodes.map((node, index) => {
    const position = computed[node];
    // A non-finite point would break every viewer: the start is the better answer should the iterations ever diverge.
    return position !== undefined && Number.isFinite(position.x) && Number.isFinite(position.y) ? { x: position.x, y: position.y } : (start[index] ?? { x: 0, y: 0 });
  });
}
