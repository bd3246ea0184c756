import { ascendingOrder } from '../core/ascending-order.js';
import { createRandom } from '../core/random.js';
import type { Random } from '../core/random.js';
import { csrFromTriplets } from '../math/csr-matrix.js';
import type { CsrMatrix } from '../math/csr-matrix.js';
import { leiden, placeNodes } from './leiden.js';
import { positionsOf } from '../core/positions-of.js';

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
 *
 * Updating a hierarchy after the graph changed (`start`: the earlier hierarchy and the nodes whose edges
 * changed). Every clustering above is warm-started from the earlier partition at its level and revisits only
 * what the change reaches (leiden.ts: initial membership, and Dynamic Frontier Leiden after Sahu,
 * arXiv:2405.11658):
 *  - level 0 starts from the earlier level-0 communities, with the changed nodes (new ones included) as the
 *    frontier;
 *  - a community to split starts from its members' earlier communities one level deeper (a member whose
 *    earlier community was not split that deep starts with the rest of that community). Its frontier is the
 *    members whose subgraph changed: changed nodes, members new to the hierarchy or without an earlier
 *    community at that depth, and members with a neighbour that joined or left their earlier community;
 *  - a community with an empty frontier keeps its earlier split as it was, without a clustering: the
 *    sub-communities of an unchanged community with unchanged members are the earlier ones, all the way down;
 *  - a community whose update leaves it whole (it grew past `maxClusterSize` out of one that was not split)
 *    is clustered afresh, as a fresh run would try to split it.
 * Unchanged graph and hierarchy in, the same hierarchy out. As a guard on quality, every clustering the update
 * redoes (level 0 of the whole graph, or one community's split at a deeper level) is compared with a fresh
 * clustering of the same graph and replaced by it when its quality (modularity) is lower by more than
 * `maxQualityLoss` (level 0) or `maxSplitQualityLoss` (a deeper split) of the fresh one's: a warm start with a
 * move margin can fall behind on a graph with weak structure that changed much, and then churn is the price of
 * quality. A fresh clustering of the whole graph costs as much as the update itself, so a caller that knows the
 * quality of a fresh level 0 from an earlier check (`start.qualityReference`, kept between refreshes of the corpus
 * statistics) has the fresh one computed only on a breach: when the updated level 0 falls below that reference by
 * more than `maxQualityLoss` of it, and for a deeper split when most of its members are on its frontier (a split
 * that changed little starts from a partition the earlier check passed).
 *
 * Between refreshes a caller may keep the partition itself as a frozen statistic (`start.placeOnly`): no clustering is
 * redone, and new nodes are placed into the earlier communities, level by level, by Leiden's move gain. Its drift is
 * bounded by the caller's refresh, which updates as above.
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
  /** Move margin of an update's clusterings (leiden.ts); 0 moves a node for any gain. */
  moveMargin: 0,
  /** Quality an update's level 0 may lose against a fresh clustering before the fresh one is used instead. */
  maxQualityLoss: 0.005,
  /** Quality an update's split of one community may lose against a fresh split of it. */
  maxSplitQualityLoss: 0.05,
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
  /**
   * When updating (`start`): a node that shares its community with others moves only for a gain above this
   * share of its edge weight (see leiden.ts). @default 0
   */
  moveMargin?: number;
  /**
   * When updating: every clustering the update redoes is also done afresh (with a generator of its own from
   * `seed`; for level 0 exactly as a fresh run would), and the fresh partition replaces the updated one when the
   * updated one's quality is lower by more than this share of the fresh one's. @default 0.005
   */
  maxQualityLoss?: number;
  /**
   * The same check for the split of one community at a deeper level, against a fresh clustering of its subgraph: looser,
   * since two fresh clusterings of a small subgraph differ by more than 0.5 % with the seed alone. @default 0.05
   */
  maxSplitQualityLoss?: number;
  /**
   * Told the quality of every fresh clustering of the whole graph at level 0: a first run's, or the one an update's
   * level 0 was checked against. What a caller keeps as the next update's `qualityReference`.
   */
  onFreshLevel0?: (quality: number) => void;
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

/**
 * An earlier hierarchy to update (see the header). Members that are not nodes of the graph are ignored; a node
 * in none of the communities is new.
 */
export interface LeidenHierarchyStart<Member = number> {
  /** The earlier communities (level 0 the coarsest; each level a partition of the nodes that reach it). */
  communities: ReadonlyArray<{ level: number; members: Iterable<Member> }>;
  /** Nodes whose edges changed since the earlier hierarchy was computed. @default every node */
  changed?: ReadonlySet<Member>;
  /**
   * The modularity of a fresh level 0 found by an earlier check (see the header): when given, fresh clusterings are
   * computed only where the update breaches it. @default none: every redone clustering is checked
   */
  qualityReference?: number;
  /**
   * Told the quality of the updated level 0 and of the fresh one it was checked against (undefined when no fresh
   * one was needed: the update kept to `qualityReference`), and which was kept.
   */
  onLevel0Check?: (check: { updated: number; fresh: number | undefined; keptFresh: boolean }) => void;
  /**
   * Place the new nodes instead of clustering again (see `placeNodes` in leiden.ts): every node keeps its earlier community
   * at every level, and a node new to the hierarchy joins, level by level, the community among the members being split
   * that its move gains most quality in, or stays alone. Only a community that grew past the cap out of one that was not
   * split is clustered, as in an update. No clustering is checked against a fresh one (`onLevel0Check` is not called).
   * What an update between refreshes of the corpus statistics does: the partition is one of the statistics it keeps.
   * @default false
   */
  placeOnly?: boolean;
}

/** Share of a split's members on its frontier above which, with a quality reference, the split is still checked. */
const splitCheckShare = 0.5;

/** Whether more than `share` of the nodes are marked. */
function markedShareAbove(marks: Uint8Array, share: number): boolean {
  let marked = 0;
  for (const mark of marks) marked += mark;
  return marked > share * marks.length;
}

/**
 * For each level, the earlier community (its index in `communities`) of every node at that level, −1 where the
 * node had none (`exact`), and the same with the node's deepest earlier community filled in below its leaf
 * (`filled`).
 */
function earlierLevels(communities: LeidenHierarchyStart['communities'], n: number): { exact: Int32Array[]; filled: Int32Array[] } {
  let depth = 0;
  for (const community of communities) depth = Math.max(depth, community.level + 1);
  const exact = Array.from({ length: depth }, () => new Int32Array(n).fill(-1));
  communities.forEach((community, index) => {
    const level = exact[community.level];
    if (!level) return;
    for (const member of community.members) if (Number.isInteger(member) && member >= 0 && member < n) level[member] = index;
  });
  const filled: Int32Array[] = [];
  exact.forEach((level, depthIndex) => {
    const copy = Int32Array.from(level);
    const above = filled[depthIndex - 1];
    if (above) for (let node = 0; node < n; node++) if ((copy[node] as number) < 0) copy[node] = above[node] as number;
    filled.push(copy);
  });
  return { exact, filled };
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
 * @param start an earlier hierarchy of this graph before it changed, to update rather than recompute (see the header).
 */
export function hierarchicalLeiden(graph: CsrMatrix, options: HierarchicalLeidenOptions = {}, start?: LeidenHierarchyStart): LeidenHierarchyCommunity[] {
  const maxClusterSize = options.maxClusterSize ?? hierarchicalLeidenDefaults.maxClusterSize;
  const maxLevels = options.maxLevels ?? hierarchicalLeidenDefaults.maxLevels;
  if (!(maxClusterSize >= 1)) throw new RangeError(`hierarchicalLeiden: maxClusterSize must be ≥ 1, got ${maxClusterSize}`);
  if (!(maxLevels >= 1)) throw new RangeError(`hierarchicalLeiden: maxLevels must be ≥ 1, got ${maxLevels}`);
  const maxQualityLoss = options.maxQualityLoss ?? hierarchicalLeidenDefaults.maxQualityLoss;
  if (!(maxQualityLoss >= 0)) throw new RangeError(`hierarchicalLeiden: maxQualityLoss must be ≥ 0, got ${maxQualityLoss}`);
  const maxSplitQualityLoss = options.maxSplitQualityLoss ?? hierarchicalLeidenDefaults.maxSplitQualityLoss;
  if (!(maxSplitQualityLoss >= 0)) throw new RangeError(`hierarchicalLeiden: maxSplitQualityLoss must be ≥ 0, got ${maxSplitQualityLoss}`);
  const leidenOptions = {
    resolution: options.resolution ?? hierarchicalLeidenDefaults.resolution,
    randomness: options.randomness ?? hierarchicalLeidenDefaults.randomness,
    maxIterations: options.maxIterations ?? hierarchicalLeidenDefaults.maxIterations,
    quality: options.quality ?? hierarchicalLeidenDefaults.quality,
    moveMargin: options.moveMargin ?? hierarchicalLeidenDefaults.moveMargin,
    random: options.random ?? createRandom(options.seed ?? hierarchicalLeidenDefaults.seed),
  };
  const n = graph.rows;
  if (n === 0) return [];
  const local = new Int32Array(n).fill(-1);
  const buffers: SubgraphBuffers = { pointers: new Int32Array(0), columns: new Int32Array(0), values: new Float64Array(0) };
  const all = new Int32Array(n);
  for (let node = 0; node < n; node++) all[node] = node;

  const update = start ? createUpdate(graph, start, local) : undefined;
  const subgraphOf = (members: Int32Array): CsrMatrix => (members.length === n ? graph : inducedSubgraph(graph, members, local, buffers));

  const communities: LeidenHierarchyCommunity[] = [];
  let frontier: Array<{ members: Int32Array; parent: number | null }> = [{ members: all, parent: null }];
  for (let level = 0; level < maxLevels && frontier.length > 0; level++) {
    const next: typeof frontier = [];
    for (const { members, parent } of frontier) {
      let clustered: { membership: Int32Array; count: number };
      const warm = update?.startOf(members, level);
      if (warm && start?.placeOnly === true) {
        if (!warm.placed.includes(1)) clustered = { membership: warm.initial, count: warm.count };
        else if (warm.splitBefore) clustered = placeNodes(subgraphOf(members), warm.initial, warm.placed, leidenOptions);
        // New members in a community that was not split this deep (it grew past the cap): split it as a fresh run would.
        else clustered = leiden(subgraphOf(members), leidenOptions);
      } else if (warm && !warm.affected.includes(1)) {
        clustered = { membership: warm.initial, count: warm.count };
      } else {
        const subgraph = subgraphOf(members);
        let result = leiden(subgraph, warm ? { ...leidenOptions, initialMembership: warm.initial, affected: warm.affected } : leidenOptions);
        if (!warm && parent === null) options.onFreshLevel0?.(result.quality);
        // A community that grew past the cap from an earlier one that was not split: split it as a fresh run would.
        if (warm && parent !== null && result.count < 2) result = leiden(subgraph, leidenOptions);
        clustered = result;
        // Every updated clustering, of the whole graph or of one community's subgraph, is held to a fresh one's quality:
        // a warm start that fell behind at a deeper level would lower that level's modularity just the same.
        if (warm && Number.isFinite(maxQualityLoss)) {
          const allowed = parent === null ? maxQualityLoss : maxSplitQualityLoss;
          const reference = start?.qualityReference;
          const check =
            reference === undefined ||
            (parent === null ? result.quality < reference - allowed * Math.abs(reference) : markedShareAbove(warm.affected, splitCheckShare));
          if (check) {
            const fresh = leiden(subgraph, { ...leidenOptions, random: createRandom(options.seed ?? hierarchicalLeidenDefaults.seed) });
            if (parent === null) options.onFreshLevel0?.(fresh.quality);
            const keptFresh = result.quality < fresh.quality - allowed * Math.abs(fresh.quality);
            if (keptFresh) clustered = fresh;
            if (parent === null) start?.onLevel0Check?.({ updated: result.quality, fresh: fresh.quality, keptFresh });
          } else if (parent === null) {
            start?.onLevel0Check?.({ updated: result.quality, fresh: undefined, keptFresh: false });
          }
        }
      }
      const { membership, count } = clustered;
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

/** Where each clustering of an update starts: the earlier partition of its members and its frontier. */
interface HierarchyUpdate {
  /**
   * The initial partition of `members` at `level` (canonically numbered, `count` communities) and its frontier (not
   * walked when placing, which reads none); `placed`
   * marks the members new to the hierarchy (each alone in the initial partition), and `splitBefore` says whether any
   * member had an earlier community at this level (else the members were one community that was not split this deep).
   */
  startOf(members: Int32Array, level: number): { initial: Int32Array; count: number; affected: Uint8Array; placed: Uint8Array; splitBefore: boolean };
}

function createUpdate(graph: CsrMatrix, start: LeidenHierarchyStart, stamp: Int32Array): HierarchyUpdate {
  const n = graph.rows;
  const { exact, filled } = earlierLevels(start.communities, n);
  const changed = new Uint8Array(n);
  if (start.changed === undefined) changed.fill(1);
  else for (const node of start.changed) if (Number.isInteger(node) && node >= 0 && node < n) changed[node] = 1;
  const none = new Int32Array(n).fill(-1);
  const exactAt = (level: number): Int32Array => exact[level] ?? none;
  const filledAt = (level: number): Int32Array => filled[Math.min(level, filled.length - 1)] ?? none;
  // A node in no earlier community is new: changed.
  const top = exactAt(0);
  for (let node = 0; node < n; node++) if ((top[node] as number) < 0) changed[node] = 1;
  const { rowPointers, columnIndices } = graph;
  // Placing reads no frontier: the walk over each member's neighbours that finds it is left out.
  const withFrontier = start.placeOnly !== true;
  return {
    startOf(members, level) {
      const here = filledAt(level);
      const exactHere = exactAt(level);
      const above = level > 0 ? filledAt(level - 1) : undefined;
      const size = members.length;
      const initial = new Int32Array(size);
      const affected = new Uint8Array(size);
      const placed = new Uint8Array(size);
      let splitBefore = false;
      const labels = new Map<number, number>();
      let count = 0;
      // `stamp` is the −1-filled scratch of inducedSubgraph: marks the members while this runs.
      if (withFrontier) {
        members.forEach((node) => {
          stamp[node] = 1;
        });
      }
      for (let index = 0; index < size; index++) {
        const node = members[index] as number;
        const earlier = here[node] as number;
        let label = earlier < 0 ? undefined : labels.get(earlier);
        if (label === undefined) {
          label = count++;
          if (earlier >= 0) labels.set(earlier, label);
        }
        initial[index] = label;
        if (earlier < 0) placed[index] = 1;
        if ((exactHere[node] as number) >= 0) splitBefore = true;
        let moved = changed[node] === 1 || (exactHere[node] as number) < 0;
        if (!moved && above && withFrontier) {
          // The subgraph of this node changed if a neighbour joined or left its earlier community.
          const own = above[node] as number;
          for (let entry = rowPointers[node] as number; entry < (rowPointers[node + 1] as number) && !moved; entry++) {
            const neighbor = columnIndices[entry] as number;
            if (neighbor !== node && (stamp[neighbor] === 1) !== (above[neighbor] === own)) moved = true;
          }
        }
        affected[index] = moved ? 1 : 0;
      }
      if (withFrontier) {
        members.forEach((node) => {
          stamp[node] = -1;
        });
      }
      return { initial, count, affected, placed, splitBefore };
    },
  };
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
  start?: LeidenHierarchyStart<string>,
): LeidenHierarchyCommunity<string>[] {
  const unique = [...new Set(nodes)];
  const indexOf = positionsOf(unique);
  const ends = new Int32Array(edges.length * 2);
  const weights = new Float64Array(edges.length);
  edges.forEach((edge, index) => {
    ends[index * 2] = indexOf.get(edge.source) ?? -1;
    ends[index * 2 + 1] = indexOf.get(edge.target) ?? -1;
    weights[index] = edge.weight;
  });
  return hierarchicalLeidenFromNodeEdges(unique, ends, weights, options, start);
}

/**
 * {@link hierarchicalLeidenFromEdges} with each edge given by the positions of its ends in `nodes` (ids, each once):
 * edge i joins `ends[2i]` and `ends[2i + 1]` (−1: not a node, ignored) with weight `weights[i]`. The same hierarchy as
 * the id edges give, without a map lookup per end (the communities step has the positions already).
 */
export function hierarchicalLeidenFromNodeEdges(
  nodes: readonly string[],
  ends: Int32Array,
  weights: ArrayLike<number>,
  options: HierarchicalLeidenOptions = {},
  start?: LeidenHierarchyStart<string>,
): LeidenHierarchyCommunity<string>[] {
  const { ids, graph } = clusteringGraph(nodes, ends, weights);
  const indexOf = positionsOf(ids);
  let indexStart: LeidenHierarchyStart | undefined;
  if (start) {
    // Only the members are ids; every other setting of the start passes as it is.
    const { communities, changed, ...settings } = start;
    indexStart = {
      ...settings,
      communities: communities.map((community) => ({ level: community.level, members: Array.from(community.members, (member) => indexOf.get(member) ?? -1) })),
      ...(changed === undefined ? {} : { changed: new Set([...changed].flatMap((id) => indexOf.get(id) ?? [])) }),
    };
  }
  const hierarchy = hierarchicalLeiden(graph, options, indexStart);
  return hierarchy.map((community) => ({ ...community, members: community.members.map((index) => ids[index] as string) }));
}

/**
 * The graph {@link hierarchicalLeidenFromNodeEdges} clusters: `nodes` (distinct ids) in sorted id order (`ids`; node r is
 * at position `order[r]` of `nodes`, and the node at position p is `rank[p]`), and the edges as a symmetric matrix over those positions — parallel edges
 * (either direction) add up, self-loops and edges with an end at −1 are left out, and when any weight is ≤ 0 (PMI
 * weights can be) all are shifted into a positive range preserving their order (by the smallest, plus 1 % of their span).
 */
export function clusteringGraph(nodes: readonly string[], ends: Int32Array, weights: ArrayLike<number>): { ids: string[]; order: Int32Array; rank: Int32Array; graph: CsrMatrix } {
  // Indices in sorted id order, so "sorted indices" and "smallest member first" mean the same for ids.
  const { order, rank } = ascendingOrder(nodes);
  const ids = Array.from(order, (position) => nodes[position] as string);
  // Typed arrays of the largest size, not growing lists: 200,000 entries on 2Wiki, rebuilt on every update.
  const rowIndices = new Int32Array(weights.length * 2);
  const columnIndices = new Int32Array(weights.length * 2);
  const values = new Float64Array(weights.length * 2);
  let entries = 0;
  let minimum = Number.POSITIVE_INFINITY;
  let maximum = Number.NEGATIVE_INFINITY;
  for (let edge = 0; edge < weights.length; edge++) {
    const sourceAt = ends[edge * 2] as number;
    const targetAt = ends[edge * 2 + 1] as number;
    if (sourceAt < 0 || targetAt < 0 || sourceAt === targetAt) continue;
    const source = rank[sourceAt] as number;
    const target = rank[targetAt] as number;
    const weight = weights[edge] as number;
    // Both directions of the edge, as undirectedGraphCsr lists them.
    rowIndices[entries] = source;
    columnIndices[entries] = target;
    values[entries++] = weight;
    rowIndices[entries] = target;
    columnIndices[entries] = source;
    values[entries++] = weight;
    minimum = Math.min(minimum, weight);
    maximum = Math.max(maximum, weight);
  }
  if (minimum <= 0) {
    const floor = maximum > minimum ? (maximum - minimum) * 0.01 : 1;
    for (let entry = 0; entry < entries; entry++) values[entry] = (values[entry] as number) - minimum + floor;
  }
  return { ids, order, rank, graph: csrFromTriplets(ids.length, ids.length, rowIndices.subarray(0, entries), columnIndices.subarray(0, entries), values.subarray(0, entries)) };
}
