import { createRandom } from '../core/random.js';
import type { Random } from '../core/random.js';
import { undirectedGraphCsr } from '../math/csr-matrix.js';
import type { CsrMatrix, IndexedEdge } from '../math/csr-matrix.js';
import { leiden } from './leiden.js';

/*
 * Hierarchical Leiden with the shape of graspologic's `hierarchical_leiden` as Microsoft GraphRAG calls it
 * (microsoft/graphrag `index/operations/cluster_graph.py`): cluster the whole graph with Leiden (Traag, Waltman & van Eck, "From
 * Louvain to Leiden: guaranteeing well-connected communities", Scientific Reports 9, 5233, 2019), then
 * re-cluster the induced subgraph of every community larger than `maxClusterSize` into the next level,
 * until communities are small enough or cannot be split. Level 0 is the coarsest.
 *
 * Defaults follow GraphRAG: maxClusterSize 10, resolution 1, randomness 0.001, seed 0xDEADBEEF, modularity,
 * no depth limit; but 2 Leiden iterations per clustering where GraphRAG runs 1: one ends below graphology
 * Louvain's modularity on the planted-partition benchmark, two end above it (docs/BENCHMARKS.md). Unlike GraphRAG, every connected component is clustered, not only the largest,
 * so every node gets a community.
 *
 * Each subgraph is clustered on its own (its modularity uses its own total weight, as in graspologic), and
 * all clusterings draw from one random stream in a fixed order (level by level, largest community first),
 * so the hierarchy is deterministic for a seed.
 */

/** Defaults of {@link hierarchicalLeiden}. */
export const hierarchicalLeidenDefaults = {
  /** Communities with more members are split into a deeper level (GraphRAG: 10). */
  maxClusterSize: 10,
  /** Resolution γ of every clustering. */
  resolution: 1,
  /** Randomness θ of the refinement, in units of edge weight (GraphRAG: 0.001). */
  randomness: 0.001,
  /** Leiden iterations per clustering at most. */
  maxIterations: 2,
  /** Seed of the one random stream all clusterings draw from (GraphRAG: 0xDEADBEEF). */
  seed: 0xdeadbeef,
  /** Deepest level created; unbounded as in graspologic (every split has at least two parts, so depth < node count). */
  maxLevels: Number.POSITIVE_INFINITY,
  /** Quality function. */
  quality: 'modularity',
} as const;

/** Options of {@link hierarchicalLeiden} and {@link hierarchicalLeidenFromEdges}. */
export interface HierarchicalLeidenOptions {
  /** Communities with more members are split into a deeper level. @default 10 */
  maxClusterSize?: number;
  /** Resolution γ. @default 1 */
  resolution?: number;
  /** Randomness θ of the refinement, in units of edge weight. @default 0.001 */
  randomness?: number;
  /** Leiden iterations per clustering at most. @default 2 */
  maxIterations?: number;
  /** Seed of the random generator; ignored when `random` is given. @default 0xDEADBEEF */
  seed?: number;
  /** Random generator to draw from instead of one made from `seed`. */
  random?: Random;
  /** Deepest level created (1 = only level 0). @default Infinity */
  maxLevels?: number;
  /** Quality function of every clustering. @default 'modularity' */
  quality?: 'modularity' | 'cpm';
}

/** One community of the hierarchy; `parent` and `children` index into the returned array. */
export interface LeidenHierarchyCommunity<Member = number> {
  /** 0 is the coarsest level; a child's level is its parent's plus one. */
  level: number;
  parent: number | null;
  /** Sub-communities, which partition `members`; empty for a leaf. */
  children: number[];
  /** Members, sorted ascending. */
  members: Member[];
}

/** Groups of a partition as sorted member lists: largest first, ties by smallest member. */
function groupsOf(members: Int32Array, membership: Int32Array, count: number): Int32Array[] {
  const sizes = new Int32Array(count);
  for (const community of membership) sizes[community] = (sizes[community] as number) + 1;
  const groups = Array.from(sizes, (size) => new Int32Array(size));
  const fill = new Int32Array(count);
  // Members are ascending, so each group comes out ascending.
  membership.forEach((community, local) => {
    const position = fill[community] as number;
    (groups[community] as Int32Array)[position] = members[local] as number;
    fill[community] = position + 1;
  });
  return groups.sort((left, right) => right.length - left.length || (left[0] as number) - (right[0] as number));
}

/** Buffers the induced subgraphs are written to; each is read only by the one clustering that follows. */
interface SubgraphBuffers {
  pointers: Int32Array;
  columns: Int32Array;
  values: Float64Array;
}

/**
 * The subgraph induced by sorted `members`, in their order, as views of `buffers` (grown when needed);
 * `local` is a −1-filled scratch map, restored after use.
 */
function inducedSubgraph(graph: CsrMatrix, members: Int32Array, local: Int32Array, buffers: SubgraphBuffers): CsrMatrix {
  const { rowPointers, columnIndices, values } = graph;
  members.forEach((node, index) => {
    local[node] = index;
  });
  const size = members.length;
  if (buffers.pointers.length < size + 1) buffers.pointers = new Int32Array(Math.max(size + 1, 2 * buffers.pointers.length));
  const pointers = buffers.pointers;
  pointers[0] = 0;
  let entries = 0;
  for (let index = 0; index < size; index++) {
    const node = members[index] as number;
    for (let entry = rowPointers[node] as number; entry < (rowPointers[node + 1] as number); entry++) {
      if ((local[columnIndices[entry] as number] as number) >= 0) entries++;
    }
    pointers[index + 1] = entries;
  }
  if (buffers.columns.length < entries) {
    const capacity = Math.max(entries, 2 * buffers.columns.length);
    buffers.columns = new Int32Array(capacity);
    buffers.values = new Float64Array(capacity);
  }
  const { columns, values: subValues } = buffers;
  let written = 0;
  for (let index = 0; index < size; index++) {
    const node = members[index] as number;
    for (let entry = rowPointers[node] as number; entry < (rowPointers[node + 1] as number); entry++) {
      const target = local[columnIndices[entry] as number] as number;
      if (target < 0) continue;
      // Members are ascending, so local columns stay ascending within a row.
      columns[written] = target;
      subValues[written] = values[entry] as number;
      written++;
    }
  }
  for (const node of members) local[node] = -1;
  return { rows: size, cols: size, rowPointers: pointers.subarray(0, size + 1), columnIndices: columns.subarray(0, entries), values: subValues.subarray(0, entries) };
}

/**
 * Clusters a weighted undirected graph into a hierarchy of connected communities. Every node is in exactly
 * one level-0 community; the children of a community partition it; a community is split (into at least two
 * parts) only when it has more than `maxClusterSize` members. Isolated nodes and small components become
 * their own communities. Communities are listed level by level, parents before children; within one
 * parent, largest first, ties by smallest member. Deterministic for a seed.
 *
 * @param graph symmetric adjacency matrix with non-negative weights (see {@link leiden}); members are node indices.
 */
export function hierarchicalLeiden(graph: CsrMatrix, options: HierarchicalLeidenOptions = {}): LeidenHierarchyCommunity[] {
  const maxClusterSize = options.maxClusterSize ?? hierarchicalLeidenDefaults.maxClusterSize;
  const maxLevels = options.maxLevels ?? hierarchicalLeidenDefaults.maxLevels;
  if (!(maxClusterSize >= 1)) throw new RangeError(`hierarchicalLeiden: maxClusterSize must be ≥ 1, got ${maxClusterSize}`);
  if (!(maxLevels >= 1)) throw new RangeError(`hierarchicalLeiden: maxLevels must be ≥ 1, got ${maxLevels}`);
  const leidenOptions = {
    resolution: options.resolution ?? hierarchicalLeidenDefaults.resolution,
    randomness: options.randomness ?? hierarchicalLeidenDefaults.randomness,
    maxIterations: options.maxIterations ?? hierarchicalLeidenDefaults.maxIterations,
    quality: options.quality ?? hierarchicalLeidenDefaults.quality,
    random: options.random ?? createRandom(options.seed ?? hierarchicalLeidenDefaults.seed),
  };
  const n = graph.rows;
  if (n === 0) return [];
  const local = new Int32Array(n).fill(-1);
  const buffers: SubgraphBuffers = { pointers: new Int32Array(0), columns: new Int32Array(0), values: new Float64Array(0) };
  const all = new Int32Array(n);
  for (let node = 0; node < n; node++) all[node] = node;

  const communities: LeidenHierarchyCommunity[] = [];
  let frontier: Array<{ members: Int32Array; parent: number | null }> = [{ members: all, parent: null }];
  for (let level = 0; level < maxLevels && frontier.length > 0; level++) {
    const next: typeof frontier = [];
    for (const { members, parent } of frontier) {
      const subgraph = members.length === n ? graph : inducedSubgraph(graph, members, local, buffers);
      const { membership, count } = leiden(subgraph, leidenOptions);
      if (parent !== null && count < 2) continue;
      for (const group of groupsOf(members, membership, count)) {
        const index = communities.length;
        communities.push({ level, parent, children: [], members: Array.from(group) });
        if (parent !== null) communities[parent]?.children.push(index);
        if (group.length > maxClusterSize) next.push({ members: group, parent: index });
      }
    }
    frontier = next;
  }
  return communities;
}

/** An undirected weighted edge between node ids. */
export interface WeightedIdEdge {
  source: string;
  target: string;
  weight: number;
}

/**
 * {@link hierarchicalLeiden} over string node ids and `{source, target, weight}` edges (what the
 * communities step has): duplicate nodes count once, parallel
 * edges (either direction) add up, self-loops and edges to unknown nodes are ignored, and when any weight is
 * ≤ 0 (PMI weights can be) all weights are shifted into a positive range preserving their order. Members
 * are ids, sorted; the result does not depend on the order of `nodes`.
 */
export function hierarchicalLeidenFromEdges(
  nodes: readonly string[],
  edges: readonly WeightedIdEdge[],
  options: HierarchicalLeidenOptions = {},
): LeidenHierarchyCommunity<string>[] {
  // Indices in sorted id order, so "sorted indices" and "smallest member first" mean the same for ids.
  const ids = [...new Set(nodes)].sort();
  const indexOf = new Map(ids.map((id, index) => [id, index]));
  const kept: IndexedEdge[] = [];
  let minimum = Number.POSITIVE_INFINITY;
  let maximum = Number.NEGATIVE_INFINITY;
  for (const edge of edges) {
    const source = indexOf.get(edge.source);
    const target = indexOf.get(edge.target);
    if (source === undefined || target === undefined || source === target) continue;
    kept.push({ source, target, weight: edge.weight });
    minimum = Math.min(minimum, edge.weight);
    maximum = Math.max(maximum, edge.weight);
  }
  if (minimum <= 0) {
    const floor = maximum > minimum ? (maximum - minimum) * 0.01 : 1;
    for (const edge of kept) edge.weight = edge.weight - minimum + floor;
  }
  const hierarchy = hierarchicalLeiden(undirectedGraphCsr(ids.length, kept), options);
  return hierarchy.map((community) => ({ ...community, members: community.members.map((index) => ids[index] as string) }));
}
