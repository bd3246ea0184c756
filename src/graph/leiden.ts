import { createRandom } from '../core/random.js';
import type { Random } from '../core/random.js';
import type { CsrMatrix } from '../math/csr-matrix.js';
import { modularity } from './modularity.js';

/*
 * Leiden community detection.
 *
 * [Reference]: V. A. Traag, L. Waltman, N. J. van Eck, "From Louvain to Leiden: guaranteeing well-connected
 * communities", Scientific Reports 9, 5233 (2019), https://doi.org/10.1038/s41598-019-41695-z
 *
 * One iteration repeats three phases until every community of the current graph is a single node:
 *  1. fast local moving: nodes taken from a queue (all nodes at first, in random order) move to the
 *     neighbouring or empty community with the best gain; after a move, the neighbours outside the new
 *     community are queued again;
 *  2. refinement: inside each community, nodes start alone and merge, at random with probability
 *     ∝ exp(ΔH / θ) over non-negative gains, into well-connected sub-communities (so each is connected);
 *  3. aggregation: the refined sub-communities become the nodes of the next graph (in CSR form), whose
 *     initial partition is the non-refined one.
 * Iterations repeat, each starting from the last partition, until one changes nothing or `maxIterations`.
 *
 * Defaults: resolution γ = 1, randomness θ = 0.01 (the paper's recommendation; graspologic and Microsoft
 * GraphRAG use 0.001, see hierarchical-leiden.ts), at most 10 iterations, seed 0xDEADBEEF, modularity.
 *
 * Gains are in units of edge weight, ΔH = w(v, C) − λ·k_v·K_C with λ = γ / 2m for modularity (k = weighted
 * degree) and λ = γ for the constant Potts model (k = node count), as in leidenalg and graspologic; θ is
 * therefore relative to typical edge weights (with weights near 1, θ = 0.01 is almost greedy).
 *
 * Choices beyond the paper: negative weights are rejected (modularity's null model needs non-negative
 * degrees); zero weights count as no edge; when refinement merges nothing, the graph is aggregated on the
 * non-refined partition (as leidenalg does) so that every level shrinks; and a final linear pass splits any
 * community that is not connected, which never lowers quality and makes connectivity unconditional.
 * Determinism: all randomness (queue order, refinement order and choices) comes from one seeded generator,
 * ties go to the current community and then to the first community met in CSR order, and community ids
 * are renumbered by smallest node.
 *
 * Warm start. `initialMembership` starts the first iteration from a given partition instead of singletons, as
 * the paper's Algorithm A.1 allows (its iterations already start from the last partition) and as leidenalg's
 * `initial_membership` does; nodes without an initial community start alone. A new node is therefore placed
 * by the first visit of fast local moving, which weighs every neighbouring community by its modularity gain:
 * seeding it into the community of its strongest neighbour instead would skip that comparison and ignore
 * the community's size penalty.
 *
 * Dynamic frontier. With `affected` (the nodes whose edges changed since `initialMembership` was computed),
 * an iteration does only the work the change calls for, after S. Sahu, "A Starting Point for Dynamic
 * Community Detection with Leiden Algorithm", arXiv:2405.11658 (2024), Dynamic Frontier (DF) Leiden:
 *  - fast local moving starts with only the frontier in its queue (the affected nodes at the first level;
 *    later, the aggregates of changed communities); a move queues the mover's neighbours as usual;
 *  - a community is "changed" when it gains or loses a node; refinement resets only changed communities to
 *    singletons, an unchanged one stays whole as one refined sub-community (the report's selective
 *    refinement). Keeping a community whose members all stayed is what keeps a warm start from churning: a
 *    refinement of it would recombine its parts at random and let them drift to neighbouring communities,
 *    redoing work the earlier run did. Should a removed edge have disconnected it, the final connectivity
 *    pass splits it;
 *  - a second iteration starts from the nodes of every community changed in the first, and so on.
 * With nothing affected nothing moves and the partition comes back unchanged. Without `affected` a warm
 * start visits every node (the report's Naive-dynamic Leiden).
 *
 * Move margin. A warm start from a partition that an earlier run left a little short of a local optimum (two
 * iterations do not converge) finds many small improvements once a change puts nodes back in the queue, and
 * each moves a node between communities that did not otherwise change. `moveMargin` (with `affected`) lets a
 * node leave the community it shares with others only when the move gains more than that share of the node's
 * edge weight, ΔH_move > ΔH_stay + margin·Σ_u w(v, u); at aggregate levels every node is held to it (moving one
 * merges whole communities), while a node that starts alone, new or split off, joins freely. This trades a
 * bounded amount of quality for stability, as evolutionary clustering does (D. Chakrabarti, R. Kumar,
 * A. Tomkins, "Evolutionary clustering", KDD 2006: a snapshot cost plus a temporal cost of departing from the
 * previous clustering).
 *
 * Placement. `placeNodes` is the first visit of fast local moving for new nodes alone, with no other node moving and
 * no refinement or aggregation, followed by one move of Leiden's next level for the groups of new nodes: what an update
 * does when it keeps a partition (see hierarchical-leiden.ts, `placeOnly`).
 */

/** Defaults of {@link leiden}. */
export const leidenDefaults = {
  /** Resolution γ: higher gives more, smaller communities. */
  resolution: 1,
  /** Randomness θ of the refinement phase, in units of edge weight (paper: 0.01). */
  randomness: 0.01,
  /** Leiden iterations at most; iterating stops earlier when one changes nothing. */
  maxIterations: 10,
  /** Seed of the random generator (Microsoft GraphRAG's). */
  seed: 0xdeadbeef,
  /** Quality function. */
  quality: 'modularity',
  /** Share of its edge weight a node's move must gain in a dynamic-frontier update (0 = Leiden's moves). */
  moveMargin: 0,
} as const;

/** Options of {@link leiden}. */
export interface LeidenOptions {
  /** Resolution γ (≥ 0). @default 1 */
  resolution?: number;
  /** Randomness θ (> 0) of the refinement, in units of edge weight. @default 0.01 */
  randomness?: number;
  /** Most Leiden iterations (≥ 1); stops earlier when an iteration leaves the partition unchanged. @default 10 */
  maxIterations?: number;
  /** Seed of the random generator; ignored when `random` is given. @default 0xDEADBEEF */
  seed?: number;
  /** Random generator to draw from instead of one made from `seed` (lets callers share one stream). */
  random?: Random;
  /**
   * `modularity` (Newman–Girvan with resolution) or `cpm` (constant Potts model, Traag et al. 2011,
   * node size 1). @default 'modularity'
   */
  quality?: 'modularity' | 'cpm';
  /**
   * Partition to start from (leidenalg's `initial_membership`): any integer label per node, equal labels
   * forming one community; a negative label starts the node alone. @default every node alone
   */
  initialMembership?: ArrayLike<number>;
  /**
   * Nodes whose edges changed since `initialMembership` was computed (non-zero = changed); only these and
   * what their moves reach are revisited (Dynamic Frontier Leiden, see above). Nodes without an initial
   * community count as changed. Needs `initialMembership`. @default every node (when warm starting)
   */
  affected?: ArrayLike<number>;
  /**
   * With `affected`: a node that shares its community with others moves only when the move gains more than
   * this share of the node's edge weight over staying (see the header). @default 0
   */
  moveMargin?: number;
}

/** Output of {@link leiden}. */
export interface LeidenResult {
  /** Community of each node, numbered 0… in order of each community's smallest node index. */
  membership: Int32Array;
  /** Number of communities. */
  count: number;
  /**
   * Modularity of the partition (see modularity.ts) at `resolution`; at resolution 1 when `quality` is
   * `cpm`, whose resolution has another scale.
   */
  modularity: number;
  /** Value of the optimised quality function: modularity as above, or CPM Σ_c (L_c − γ·n_c(n_c − 1)/2). */
  quality: number;
  /** Leiden iterations run. */
  iterations: number;
  /**
   * Extra communities created by the final connectivity pass, summed over iterations: 0 whenever the
   * refinement alone kept every community connected (a diagnostic; the output is connected either way).
   */
  connectivitySplits: number;
}

/**
 * One graph of the aggregation hierarchy; adjacency without self-loops (they never change a gain). The
 * arrays may be longer than needed: `n` and `starts` bound them.
 */
interface Level {
  n: number;
  starts: Int32Array;
  neighbors: Int32Array;
  weights: Float64Array;
  /** k_v: weighted degree (self-loops twice) for modularity, node count for CPM. */
  nodeWeights: Float64Array;
}

/** What one call optimises, with which randomness. */
interface Settings {
  random: Random;
  /** λ of the gain ΔH = w(v, C) − λ·k_v·K_C. */
  scale: number;
  randomness: number;
}

/** State of a Dynamic Frontier run, over the nodes of the current level (see the header). */
interface Frontier {
  /** Base nodes the next iteration starts from. */
  base: Uint8Array;
  /** Nodes of the current level in the frontier, and a buffer the next level's are written to. */
  nodes: Uint8Array;
  spare: Uint8Array;
  /** Communities of the current level that gained or lost a node. */
  changed: Uint8Array;
  changedSpare: Uint8Array;
  /** Share of its edge weight a move must gain beyond staying (see `moveMargin`). */
  moveMargin: number;
  /**
   * At the first level, the nodes the margin applies to: those that start with companions (a node alone, new or
   * split off, joins freely); undefined at aggregate levels, where it applies to all (moving one merges communities).
   */
  sticky: Uint8Array | undefined;
  stickyNodes: Uint8Array;
  /** First node of each unchanged community, which refinement keeps whole. */
  representative: Int32Array;
  /** Base nodes that were in a changed community at some level of the current iteration. */
  touched: Uint8Array;
}

function createFrontier(nodes: number, moveMargin: number): Frontier {
  return {
    moveMargin,
    sticky: undefined,
    stickyNodes: new Uint8Array(nodes),
    base: new Uint8Array(nodes),
    nodes: new Uint8Array(nodes),
    spare: new Uint8Array(nodes),
    changed: new Uint8Array(nodes),
    changedSpare: new Uint8Array(nodes),
    representative: new Int32Array(nodes),
    touched: new Uint8Array(nodes),
  };
}

/** Scratch arrays sized to the input graph, reused at every level and iteration (and across small calls). */
interface Workspace {
  nodeCapacity: number;
  inUse: boolean;
  /** Accumulated edge weight from the current node to each community; all zero between uses. */
  weightTo: Float64Array;
  /** Communities with a non-zero `weightTo`, in the order first met. */
  touched: Int32Array;
  queue: Int32Array;
  inQueue: Uint8Array;
  communityWeight: Float64Array;
  communitySize: Int32Array;
  emptyCommunities: Int32Array;
  refinedWeight: Float64Array;
  /** Edge weight from a refined community to the rest of its community. */
  externalWeight: Float64Array;
  singleton: Uint8Array;
  candidateWeight: Float64Array;
  candidates: Int32Array;
  renumbering: Int32Array;
  refined: Int32Array;
  levelMembership: Int32Array;
  spareMembership: Int32Array;
  levelOfNode: Int32Array;
  iterationResult: Int32Array;
  groupStarts: Int32Array;
  members: Int32Array;
  /** Node weights of the input graph. */
  baseNodeWeights: Float64Array;
  /** A cleaned copy of the input, made only when it has zero weights or self-loops. */
  base: Level | undefined;
  /** Aggregated graphs alternate between these two, each built from the other (or from the input). */
  aggregates: [Level | undefined, Level | undefined];
}

function createLevel(nodes: number, entries: number): Level {
  return { n: 0, starts: new Int32Array(nodes + 1), neighbors: new Int32Array(entries), weights: new Float64Array(entries), nodeWeights: new Float64Array(nodes) };
}

function createWorkspace(nodes: number): Workspace {
  return {
    nodeCapacity: nodes,
    inUse: false,
    weightTo: new Float64Array(nodes),
    touched: new Int32Array(nodes),
    queue: new Int32Array(nodes),
    inQueue: new Uint8Array(nodes),
    communityWeight: new Float64Array(nodes),
    communitySize: new Int32Array(nodes),
    emptyCommunities: new Int32Array(nodes),
    refinedWeight: new Float64Array(nodes),
    externalWeight: new Float64Array(nodes),
    singleton: new Uint8Array(nodes),
    candidateWeight: new Float64Array(nodes + 1),
    candidates: new Int32Array(nodes + 1),
    renumbering: new Int32Array(nodes),
    refined: new Int32Array(nodes),
    levelMembership: new Int32Array(nodes),
    spareMembership: new Int32Array(nodes),
    levelOfNode: new Int32Array(nodes),
    iterationResult: new Int32Array(nodes),
    groupStarts: new Int32Array(nodes + 1),
    members: new Int32Array(nodes),
    baseNodeWeights: new Float64Array(nodes),
    base: undefined,
    aggregates: [undefined, undefined],
  };
}

/** Buffer `slot` of the aggregated graphs, grown when it cannot hold `nodes` and `entries`. */
function aggregateBuffer(work: Workspace, slot: 0 | 1, nodes: number, entries: number): Level {
  const current = work.aggregates[slot];
  if (current && current.nodeWeights.length >= nodes && current.neighbors.length >= entries) return current;
  const level = createLevel(nodes, entries);
  work.aggregates[slot] = level;
  return level;
}

// NOTE: hierarchical clustering calls leiden thousands of times on small subgraphs, where allocating ~30
// typed arrays per call cost more than the clustering itself; one workspace for graphs up to this size is
// kept between calls (a few MB at most). Scratch only: no result depends on what a call before left in it.
const retainedNodes = 1 << 15;
const retainedEntries = 1 << 18;
let retained: Workspace | undefined;

function acquireWorkspace(nodes: number, entries: number): Workspace {
  if (nodes > retainedNodes || entries > retainedEntries || retained?.inUse) return createWorkspace(nodes);
  if (!retained || retained.nodeCapacity < nodes) {
    retained = createWorkspace(Math.min(retainedNodes, Math.max(nodes, 2 * (retained?.nodeCapacity ?? 32))));
  }
  return retained;
}

/** Fisher–Yates shuffle of 0 … n−1 into `target`. */
function randomPermutation(target: Int32Array, n: number, random: Random): void {
  for (let index = 0; index < n; index++) target[index] = index;
  for (let index = n - 1; index > 0; index--) {
    const other = Math.floor(random() * (index + 1));
    const value = target[index] as number;
    target[index] = target[other] as number;
    target[other] = value;
  }
}

/**
 * Renumbers community ids in place to 0… in order of first appearance over node indices, so two equal
 * partitions have equal arrays. Returns the number of communities.
 */
function renumber(membership: Int32Array, n: number, scratch: Int32Array): number {
  scratch.fill(-1, 0, n);
  let count = 0;
  for (let node = 0; node < n; node++) {
    const community = membership[node] as number;
    let id = scratch[community] as number;
    if (id < 0) {
      id = count++;
      scratch[community] = id;
    }
    membership[node] = id;
  }
  return count;
}

/**
 * Phase 1, the paper's FastMoveNodes: visits nodes from a queue (initially all, in random order), moves each
 * to the community with the largest gain (staying on ties; the first community met in adjacency order wins
 * among equals; an empty community has gain 0) and queues the neighbours outside the new community. With a
 * frontier the queue starts with the frontier nodes only (in the same random order), and the communities
 * a node leaves or joins are marked changed.
 */
function moveNodesFast(level: Level, membership: Int32Array, work: Workspace, settings: Settings, frontier: Frontier | undefined): void {
  const { n, starts, neighbors, weights, nodeWeights } = level;
  const { weightTo, touched, queue, inQueue, communityWeight, communitySize, emptyCommunities } = work;
  const { scale } = settings;
  communityWeight.fill(0, 0, n);
  communitySize.fill(0, 0, n);
  for (let node = 0; node < n; node++) {
    const community = membership[node] as number;
    communityWeight[community] = (communityWeight[community] as number) + (nodeWeights[node] as number);
    communitySize[community] = (communitySize[community] as number) + 1;
  }
  let emptyCount = 0;
  for (let community = n - 1; community >= 0; community--) {
    if (communitySize[community] === 0) emptyCommunities[emptyCount++] = community;
  }
  randomPermutation(queue, n, settings.random);
  let pending = n;
  if (frontier) {
    const { nodes } = frontier;
    frontier.changed.fill(0, 0, n);
    inQueue.fill(0, 0, n);
    pending = 0;
    for (let index = 0; index < n; index++) {
      const node = queue[index] as number;
      if (nodes[node] === 0) continue;
      queue[pending++] = node;
      inQueue[node] = 1;
    }
  } else {
    inQueue.fill(1, 0, n);
  }
  let head = 0;
  while (pending > 0) {
    const node = queue[head] as number;
    head = head + 1 === n ? 0 : head + 1;
    pending--;
    inQueue[node] = 0;
    const own = membership[node] as number;
    const nodeWeight = nodeWeights[node] as number;
    const end = starts[node + 1] as number;
    let count = 0;
    // NOTE: weights are strictly positive (zeros are dropped on input), so weightTo === 0 means "not yet met".
    for (let edge = starts[node] as number; edge < end; edge++) {
      const community = membership[neighbors[edge] as number] as number;
      const weight = weightTo[community] as number;
      if (weight === 0) touched[count++] = community;
      weightTo[community] = weight + (weights[edge] as number);
    }
    communityWeight[own] = (communityWeight[own] as number) - nodeWeight;
    const scaledWeight = scale * nodeWeight;
    let best = own;
    let bestGain = (weightTo[own] as number) - scaledWeight * (communityWeight[own] as number);
    if (frontier && frontier.moveMargin > 0 && (frontier.sticky === undefined || frontier.sticky[node] === 1)) {
      // Staying counts as better by the margin: a move must gain more than that share of the node's edge weight.
      let strength = 0;
      for (let edge = starts[node] as number; edge < end; edge++) strength += weights[edge] as number;
      bestGain += frontier.moveMargin * strength;
    }
    for (let index = 0; index < count; index++) {
      const community = touched[index] as number;
      const gain = (weightTo[community] as number) - scaledWeight * (communityWeight[community] as number);
      if (gain > bestGain) {
        best = community;
        bestGain = gain;
      }
      weightTo[community] = 0;
    }
    weightTo[own] = 0;
    // Leaving for an empty community gains 0; a node alone already is in one.
    if (bestGain < 0 && (communitySize[own] as number) > 1) best = emptyCommunities[--emptyCount] as number;
    communityWeight[best] = (communityWeight[best] as number) + nodeWeight;
    if (best === own) continue;
    if (frontier) {
      frontier.changed[own] = 1;
      frontier.changed[best] = 1;
    }
    membership[node] = best;
    communitySize[best] = (communitySize[best] as number) + 1;
    const ownSize = (communitySize[own] as number) - 1;
    communitySize[own] = ownSize;
    if (ownSize === 0) {
      // Exactly zero, so rounding drift never makes an empty community look occupied.
      communityWeight[own] = 0;
      emptyCommunities[emptyCount++] = own;
    }
    for (let edge = starts[node] as number; edge < end; edge++) {
      const neighbor = neighbors[edge] as number;
      if (inQueue[neighbor] === 0 && membership[neighbor] !== best) {
        let tail = head + pending;
        if (tail >= n) tail -= n;
        queue[tail] = neighbor;
        pending++;
        inQueue[neighbor] = 1;
      }
    }
  }
}

/**
 * Phase 2, the paper's RefinePartition / MergeNodesSubset for all communities at once (they are
 * independent): every node starts alone; in random order, each node that is still alone and well connected
 * to its community S (w(v, S − v) ≥ λ·k_v·(K_S − k_v)) joins a well-connected sub-community C of S it has
 * edges to, or stays alone, with probability ∝ exp(ΔH / θ) over the options with ΔH ≥ 0 (staying has
 * ΔH = 0). Writes the sub-community of each node to `refined` (ids are node ids of founders). Communities
 * not marked in `changed` (when given) are kept whole: each is one sub-community, founded by its first node.
 */
function refinePartition(
  level: Level,
  membership: Int32Array,
  communities: number,
  refined: Int32Array,
  work: Workspace,
  settings: Settings,
  frontier: Frontier | undefined,
): void {
  const { n, starts, neighbors, weights, nodeWeights } = level;
  const { weightTo, touched, queue: order, communityWeight, refinedWeight, externalWeight, singleton, candidateWeight, candidates } = work;
  const { scale, randomness, random } = settings;
  communityWeight.fill(0, 0, communities);
  if (frontier) frontier.representative.fill(-1, 0, communities);
  for (let node = 0; node < n; node++) {
    const community = membership[node] as number;
    communityWeight[community] = (communityWeight[community] as number) + (nodeWeights[node] as number);
    refined[node] = node;
    refinedWeight[node] = nodeWeights[node] as number;
    singleton[node] = 1;
    if (frontier && frontier.changed[community] === 0) {
      // Kept whole: no node of it is visited below, and no other community's node can join it.
      const { representative } = frontier;
      if ((representative[community] as number) < 0) representative[community] = node;
      refined[node] = representative[community] as number;
      singleton[node] = 0;
    }
    let external = 0;
    for (let edge = starts[node] as number; edge < (starts[node + 1] as number); edge++) {
      if (membership[neighbors[edge] as number] === community) external += weights[edge] as number;
    }
    externalWeight[node] = external;
  }
  randomPermutation(order, n, random);
  for (let position = 0; position < n; position++) {
    const node = order[position] as number;
    if (singleton[node] === 0) continue;
    const community = membership[node] as number;
    const nodeWeight = nodeWeights[node] as number;
    const total = communityWeight[community] as number;
    const external = externalWeight[node] as number;
    if (external === 0 || external < scale * nodeWeight * (total - nodeWeight)) continue;
    const end = starts[node + 1] as number;
    let count = 0;
    for (let edge = starts[node] as number; edge < end; edge++) {
      const neighbor = neighbors[edge] as number;
      if (membership[neighbor] !== community) continue;
      const target = refined[neighbor] as number;
      const weight = weightTo[target] as number;
      if (weight === 0) touched[count++] = target;
      weightTo[target] = weight + (weights[edge] as number);
    }
    refinedWeight[node] = 0;
    externalWeight[node] = 0;
    candidates[0] = node;
    candidateWeight[0] = 0;
    let candidateCount = 1;
    let bestGain = 0;
    const scaledWeight = scale * nodeWeight;
    for (let index = 0; index < count; index++) {
      const target = touched[index] as number;
      const targetWeight = refinedWeight[target] as number;
      if ((externalWeight[target] as number) < scale * targetWeight * (total - targetWeight)) continue;
      const gain = (weightTo[target] as number) - scaledWeight * targetWeight;
      if (gain < 0) continue;
      candidates[candidateCount] = target;
      candidateWeight[candidateCount] = gain;
      candidateCount++;
      if (gain > bestGain) bestGain = gain;
    }
    let chosen = node;
    if (candidateCount > 1) {
      // exp((ΔH − max ΔH) / θ): the same distribution as exp(ΔH / θ), without overflow.
      let sum = 0;
      for (let index = 0; index < candidateCount; index++) {
        const probability = Math.exp(((candidateWeight[index] as number) - bestGain) / randomness);
        candidateWeight[index] = probability;
        sum += probability;
      }
      const threshold = random() * sum;
      let cumulative = 0;
      chosen = candidates[candidateCount - 1] as number;
      for (let index = 0; index < candidateCount - 1; index++) {
        cumulative += candidateWeight[index] as number;
        if (cumulative > threshold) {
          chosen = candidates[index] as number;
          break;
        }
      }
    }
    const weightToChosen = chosen === node ? 0 : (weightTo[chosen] as number);
    for (let index = 0; index < count; index++) weightTo[touched[index] as number] = 0;
    refined[node] = chosen;
    refinedWeight[chosen] = (refinedWeight[chosen] as number) + nodeWeight;
    externalWeight[chosen] = (externalWeight[chosen] as number) + external - 2 * weightToChosen;
    if (chosen !== node) singleton[chosen] = 0;
  }
}

/** Phase 3: writes into `out` the graph whose nodes are the groups of `groupOf` (0 … groups−1), edge weights summed. */
function aggregate(level: Level, groupOf: Int32Array, groups: number, out: Level, work: Workspace): Level {
  const { n, starts, neighbors, weights, nodeWeights } = level;
  const { weightTo, touched, groupStarts, members } = work;
  groupStarts.fill(0, 0, groups + 1);
  for (let node = 0; node < n; node++) {
    const group = (groupOf[node] as number) + 1;
    groupStarts[group] = (groupStarts[group] as number) + 1;
  }
  for (let group = 0; group < groups; group++) groupStarts[group + 1] = (groupStarts[group + 1] as number) + (groupStarts[group] as number);
  // Counting sort by group, using each group's start as its cursor, then shifting the starts back.
  for (let node = 0; node < n; node++) {
    const group = groupOf[node] as number;
    const position = groupStarts[group] as number;
    members[position] = node;
    groupStarts[group] = position + 1;
  }
  for (let group = groups; group > 0; group--) groupStarts[group] = groupStarts[group - 1] as number;
  groupStarts[0] = 0;
  const { starts: outStarts, neighbors: outNeighbors, weights: outWeights, nodeWeights: outNodeWeights } = out;
  outStarts[0] = 0;
  let written = 0;
  for (let group = 0; group < groups; group++) {
    let count = 0;
    let nodeWeight = 0;
    for (let position = groupStarts[group] as number; position < (groupStarts[group + 1] as number); position++) {
      const node = members[position] as number;
      nodeWeight += nodeWeights[node] as number;
      for (let edge = starts[node] as number; edge < (starts[node + 1] as number); edge++) {
        const target = groupOf[neighbors[edge] as number] as number;
        if (target === group) continue;
        const weight = weightTo[target] as number;
        if (weight === 0) touched[count++] = target;
        weightTo[target] = weight + (weights[edge] as number);
      }
    }
    for (let index = 0; index < count; index++) {
      const target = touched[index] as number;
      outNeighbors[written] = target;
      outWeights[written] = weightTo[target] as number;
      weightTo[target] = 0;
      written++;
    }
    outStarts[group + 1] = written;
    outNodeWeights[group] = nodeWeight;
  }
  out.n = groups;
  return out;
}

/**
 * One Leiden iteration (the paper's Algorithm A.1) on `base` from the partition `initial`; writes the new
 * partition, canonically numbered, to `result`. With a frontier, starts from `frontier.base` and records in
 * `frontier.touched` the base nodes of every community it changed.
 */
function leidenIteration(base: Level, initial: Int32Array, result: Int32Array, work: Workspace, settings: Settings, frontier: Frontier | undefined): void {
  const total = base.n;
  const { levelOfNode, refined } = work;
  let membership = work.levelMembership;
  let spare = work.spareMembership;
  for (let node = 0; node < total; node++) {
    membership[node] = initial[node] as number;
    levelOfNode[node] = node;
  }
  if (frontier) {
    frontier.nodes.set(frontier.base.subarray(0, total));
    frontier.touched.fill(0, 0, total);
    const size = work.communitySize;
    size.fill(0, 0, total);
    for (let node = 0; node < total; node++) size[initial[node] as number] = (size[initial[node] as number] as number) + 1;
    for (let node = 0; node < total; node++) frontier.stickyNodes[node] = (size[initial[node] as number] as number) > 1 ? 1 : 0;
    frontier.sticky = frontier.stickyNodes;
  }
  let level = base;
  let buffer: 0 | 1 = 0;
  for (;;) {
    moveNodesFast(level, membership, work, settings, frontier);
    const communities = renumber(membership, level.n, work.renumbering);
    if (frontier) {
      // Carry the changed marks over to the renumbered communities.
      const { renumbering } = work;
      const changed = frontier.changedSpare;
      changed.fill(0, 0, communities);
      for (let old = 0; old < level.n; old++) {
        const id = renumbering[old] as number;
        if (id >= 0 && frontier.changed[old] === 1) changed[id] = 1;
      }
      frontier.changedSpare = frontier.changed;
      frontier.changed = changed;
      for (let node = 0; node < total; node++) {
        if (changed[membership[levelOfNode[node] as number] as number] === 1) frontier.touched[node] = 1;
      }
    }
    if (communities === level.n) break;
    refinePartition(level, membership, communities, refined, work, settings, frontier);
    let groupOf = refined;
    let groups = renumber(refined, level.n, work.renumbering);
    // NOTE: when refinement merges nothing, aggregating on it would loop on the same graph; aggregate on the
    // partition itself instead (as leidenalg does). Connectivity is then restored by splitComponents.
    if (groups === level.n) {
      groupOf = membership;
      groups = communities;
    }
    for (let node = 0; node < level.n; node++) spare[groupOf[node] as number] = membership[node] as number;
    if (frontier) {
      // The next level's frontier: the aggregates of changed communities.
      const next = frontier.spare;
      next.fill(0, 0, groups);
      for (let node = 0; node < level.n; node++) if (frontier.changed[membership[node] as number] === 1) next[groupOf[node] as number] = 1;
      frontier.spare = frontier.nodes;
      frontier.nodes = next;
      frontier.sticky = undefined;
    }
    for (let node = 0; node < total; node++) levelOfNode[node] = groupOf[levelOfNode[node] as number] as number;
    level = aggregate(level, groupOf, groups, aggregateBuffer(work, buffer, groups, level.starts[level.n] as number), work);
    buffer = buffer === 0 ? 1 : 0;
    const swap = membership;
    membership = spare;
    spare = swap;
  }
  for (let node = 0; node < total; node++) result[node] = membership[levelOfNode[node] as number] as number;
}

/**
 * Splits every community into its connected components (a depth-first search within communities) and
 * renumbers. The pure algorithm already returns connected communities; this covers the fallback
 * aggregation above. A split never lowers modularity or CPM quality (it drops the penalty between parts
 * and loses no edge). Returns how many communities were added.
 */
function splitComponents(base: Level, membership: Int32Array, work: Workspace): number {
  const { n, starts, neighbors } = base;
  const component = work.renumbering;
  component.fill(-1, 0, n);
  const stack = work.touched;
  let communities = 0;
  let components = 0;
  for (let root = 0; root < n; root++) {
    if ((component[root] as number) >= 0) continue;
    const community = membership[root] as number;
    if (community >= communities) communities = community + 1;
    const id = components++;
    component[root] = id;
    let size = 1;
    stack[0] = root;
    while (size > 0) {
      const node = stack[--size] as number;
      for (let edge = starts[node] as number; edge < (starts[node + 1] as number); edge++) {
        const neighbor = neighbors[edge] as number;
        if (component[neighbor] === -1 && membership[neighbor] === community) {
          component[neighbor] = id;
          stack[size++] = neighbor;
        }
      }
    }
  }
  // Components are numbered in order of their smallest node, which is the canonical numbering already.
  for (let node = 0; node < n; node++) membership[node] = component[node] as number;
  return components - communities;
}

/**
 * Validates the input and returns it as the first level: the input's own arrays when every weight is
 * positive and no self-loop is stored (the common case, no copy), otherwise a copy without them.
 */
function baseLevel(graph: CsrMatrix, cpm: boolean, work: Workspace): Level {
  const { rows: n, rowPointers, columnIndices, values } = graph;
  const nodeWeights = work.baseNodeWeights;
  let clean = true;
  for (let node = 0; node < n; node++) {
    let degree = 0;
    for (let entry = rowPointers[node] as number; entry < (rowPointers[node + 1] as number); entry++) {
      const weight = values[entry] as number;
      if (!(weight >= 0) || weight === Number.POSITIVE_INFINITY) {
        throw new RangeError(`leiden: edge weights must be finite and non-negative, got ${weight} at (${node}, ${columnIndices[entry]})`);
      }
      if (columnIndices[entry] === node) {
        degree += 2 * weight;
        clean = false;
      } else {
        degree += weight;
        if (weight === 0) clean = false;
      }
    }
    nodeWeights[node] = cpm ? 1 : degree;
  }
  if (clean) return { n, starts: rowPointers, neighbors: columnIndices, weights: values, nodeWeights };
  if (!work.base || work.base.neighbors.length < columnIndices.length || work.base.starts.length < n + 1) {
    work.base = createLevel(n, columnIndices.length);
  }
  const { starts, neighbors, weights } = work.base;
  starts[0] = 0;
  let written = 0;
  for (let node = 0; node < n; node++) {
    for (let entry = rowPointers[node] as number; entry < (rowPointers[node + 1] as number); entry++) {
      const weight = values[entry] as number;
      const neighbor = columnIndices[entry] as number;
      if (weight === 0 || neighbor === node) continue;
      neighbors[written] = neighbor;
      weights[written] = weight;
      written++;
    }
    starts[node + 1] = written;
  }
  return { n, starts, neighbors, weights, nodeWeights };
}

/** CPM quality Σ_c (L_c − γ·n_c(n_c − 1)/2), self-loops counted once in L_c. */
function cpmQuality(graph: CsrMatrix, membership: Int32Array, count: number, resolution: number): number {
  let internal = 0;
  for (let node = 0; node < graph.rows; node++) {
    for (let entry = graph.rowPointers[node] as number; entry < (graph.rowPointers[node + 1] as number); entry++) {
      const neighbor = graph.columnIndices[entry] as number;
      if (membership[neighbor] !== membership[node]) continue;
      internal += neighbor === node ? 2 * (graph.values[entry] as number) : (graph.values[entry] as number);
    }
  }
  const sizes = new Float64Array(count);
  for (let node = 0; node < graph.rows; node++) sizes[membership[node] as number] = (sizes[membership[node] as number] as number) + 1;
  let penalty = 0;
  for (const size of sizes) penalty += (size * (size - 1)) / 2;
  return internal / 2 - resolution * penalty;
}

/**
 * Partitions a weighted undirected graph into communities with the Leiden algorithm. Every community is
 * connected; disconnected parts of the graph are never merged; isolated nodes (and nodes whose edges all
 * weigh 0) stay alone; a graph without positive weight gives one community per node.
 *
 * With `initialMembership` the search starts from that partition, and with `affected` too it revisits only
 * what the change reaches (see the header); the result is still connected and canonically numbered.
 *
 * @param graph symmetric adjacency matrix (e.g. from `undirectedGraphCsr`); a diagonal entry is a self-loop
 *   of that weight (counted twice in the degree, as in NetworkX). Symmetry is assumed, not checked.
 * @throws RangeError on a non-square matrix, a negative or non-finite weight, or options out of range.
 */
export function leiden(graph: CsrMatrix, options: LeidenOptions = {}): LeidenResult {
  const resolution = options.resolution ?? leidenDefaults.resolution;
  const randomness = options.randomness ?? leidenDefaults.randomness;
  const maxIterations = options.maxIterations ?? leidenDefaults.maxIterations;
  const moveMargin = options.moveMargin ?? leidenDefaults.moveMargin;
  const cpm = (options.quality ?? leidenDefaults.quality) === 'cpm';
  if (!(resolution >= 0) || !Number.isFinite(resolution)) throw new RangeError(`leiden: resolution must be finite and ≥ 0, got ${resolution}`);
  if (!(randomness > 0) || !Number.isFinite(randomness)) throw new RangeError(`leiden: randomness must be finite and > 0, got ${randomness}`);
  if (!(moveMargin >= 0) || !Number.isFinite(moveMargin)) throw new RangeError(`leiden: moveMargin must be finite and ≥ 0, got ${moveMargin}`);
  if (!Number.isInteger(maxIterations) || maxIterations < 1) throw new RangeError(`leiden: maxIterations must be an integer ≥ 1, got ${maxIterations}`);
  if (graph.rows !== graph.cols) throw new RangeError(`leiden: the adjacency matrix must be square, got ${graph.rows}×${graph.cols}`);
  const n = graph.rows;
  const membership = new Int32Array(n);
  const { initialMembership, affected } = options;
  if (affected !== undefined && initialMembership === undefined) throw new RangeError('leiden: affected needs initialMembership');
  let frontier: Frontier | undefined;
  if (initialMembership === undefined) {
    for (let node = 0; node < n; node++) membership[node] = node;
  } else {
    if (initialMembership.length !== n) throw new RangeError(`leiden: initialMembership has ${initialMembership.length} entries for ${n} nodes`);
    if (affected !== undefined && affected.length !== n) throw new RangeError(`leiden: affected has ${affected.length} entries for ${n} nodes`);
    if (affected !== undefined) frontier = createFrontier(n, moveMargin);
    // Canonical numbering (by first node), so an unchanged partition compares equal to its result.
    const ids = new Map<number, number>();
    let count = 0;
    for (let node = 0; node < n; node++) {
      const label = initialMembership[node] as number;
      if (!Number.isInteger(label)) throw new RangeError(`leiden: initialMembership[${node}] is ${label}, not an integer`);
      let id = label < 0 ? undefined : ids.get(label);
      if (id === undefined) {
        id = count++;
        if (label >= 0) ids.set(label, id);
      }
      membership[node] = id;
      if (frontier) frontier.base[node] = label < 0 || (affected?.[node] ?? 0) !== 0 ? 1 : 0;
    }
  }
  const work = acquireWorkspace(n, graph.columnIndices.length);
  work.inUse = true;
  let iterations = 0;
  let connectivitySplits = 0;
  let completed = false;
  try {
    const base = baseLevel(graph, cpm, work);
    let totalWeight = 0;
    for (let node = 0; node < n; node++) totalWeight += base.nodeWeights[node] as number;
    const settings: Settings = {
      random: options.random ?? createRandom(options.seed ?? leidenDefaults.seed),
      scale: cpm ? resolution : totalWeight > 0 ? resolution / totalWeight : 0,
      randomness,
    };
    const next = work.iterationResult;
    while ((base.starts[n] as number) > 0 && iterations < maxIterations) {
      iterations++;
      leidenIteration(base, membership, next, work, settings, frontier);
      if (frontier) frontier.base.set(frontier.touched.subarray(0, n));
      connectivitySplits += splitComponents(base, next, work);
      let unchanged = true;
      for (let node = 0; node < n; node++) {
        if (next[node] !== membership[node]) {
          unchanged = false;
          membership[node] = next[node] as number;
        }
      }
      if (unchanged) break;
    }
    // A warm start on a graph without edges runs no iteration; its initial communities must still be connected.
    if (initialMembership !== undefined && iterations === 0) connectivitySplits += splitComponents(base, membership, work);
    completed = true;
  } finally {
    work.inUse = false;
    // A throw can leave `weightTo` dirty; never reuse such a workspace.
    if (!completed && work === retained) retained = undefined;
  }
  let count = 0;
  for (let node = 0; node < n; node++) count = Math.max(count, (membership[node] as number) + 1);
  const modularityValue = modularity(graph, membership, cpm ? 1 : resolution);
  return {
    membership,
    count,
    modularity: modularityValue,
    quality: cpm ? cpmQuality(graph, membership, count, resolution) : modularityValue,
    iterations,
    connectivitySplits,
  };
}

/**
 * A partition with new nodes placed, without clustering again: each node marked in `placed` (alone in `initial`), in
 * node order, joins the community its move gains most quality in — Leiden's gain ΔH = w(v, C) − λ·k_v·K_C, with the
 * node weights and λ of {@link leiden} — or stays alone when no move gains; every other node keeps its community. Once,
 * in order, as fast local moving visits a node: a new node whose only neighbours are new ones placed after it is joined
 * by them. Then each community of new nodes alone joins, whole, the community with earlier members that the merge gains
 * most in (w(L, C) − λ·K_L·K_C), as Leiden's next level would move it: new nodes tied to each other more than to any
 * one earlier community gather first, and no single move takes the group where it belongs together. Ties go to the
 * smaller label; the result is canonically numbered.
 *
 * @param initial a partition of the graph's nodes by labels 0 … n − 1, in which every placed node is alone.
 * @throws RangeError on a non-square matrix, arrays of the wrong length, or weights {@link leiden} rejects.
 */
export function placeNodes(
  graph: CsrMatrix,
  initial: Int32Array,
  placed: Uint8Array,
  options: Pick<LeidenOptions, 'resolution' | 'quality'> = {},
): { membership: Int32Array; count: number } {
  const resolution = options.resolution ?? leidenDefaults.resolution;
  const cpm = (options.quality ?? leidenDefaults.quality) === 'cpm';
  const n = graph.rows;
  if (graph.rows !== graph.cols) throw new RangeError(`placeNodes: the adjacency matrix must be square, got ${graph.rows}×${graph.cols}`);
  if (initial.length !== n || placed.length !== n) throw new RangeError(`placeNodes: initial has ${initial.length} and placed ${placed.length} entries for ${n} nodes`);
  const membership = Int32Array.from(initial);
  let labels = 0;
  for (const label of membership) labels = Math.max(labels, label + 1);
  const work = acquireWorkspace(Math.max(n, labels), graph.columnIndices.length);
  work.inUse = true;
  let completed = false;
  try {
    const { starts, neighbors, weights, nodeWeights } = baseLevel(graph, cpm, work);
    let total = 0;
    for (let node = 0; node < n; node++) total += nodeWeights[node] as number;
    const scale = cpm ? resolution : total > 0 ? resolution / total : 0;
    const { weightTo, touched, communityWeight } = work;
    communityWeight.fill(0, 0, labels);
    for (let node = 0; node < n; node++) communityWeight[membership[node] as number] = (communityWeight[membership[node] as number] as number) + (nodeWeights[node] as number);
    let touchedCount = 0;
    /** Adds the weight of each edge of `node` to the community at its other end, unless that one is `excluded`. */
    const addEdges = (node: number, excluded?: Uint8Array): void => {
      for (let entry = starts[node] as number; entry < (starts[node + 1] as number); entry++) {
        const community = membership[neighbors[entry] as number] as number;
        if (excluded?.[community] === 1) continue;
        if (weightTo[community] === 0) touched[touchedCount++] = community;
        weightTo[community] = (weightTo[community] as number) + (weights[entry] as number);
      }
    };
    /** The touched community that gains most for a part of weight `weight`, or `current` unless one beats `currentGain`; clears the sums. */
    const bestMove = (weight: number, current: number, currentGain: number): number => {
      let best = current;
      let bestGain = currentGain;
      for (let index = 0; index < touchedCount; index++) {
        const community = touched[index] as number;
        if (community === current) continue;
        const gain = (weightTo[community] as number) - scale * weight * (communityWeight[community] as number);
        if (gain > bestGain || (gain === bestGain && best !== current && community < best)) {
          best = community;
          bestGain = gain;
        }
      }
      for (let index = 0; index < touchedCount; index++) weightTo[touched[index] as number] = 0;
      touchedCount = 0;
      return best;
    };
    for (let node = 0; node < n; node++) {
      if (placed[node] !== 1) continue;
      const own = membership[node] as number;
      const weight = nodeWeights[node] as number;
      addEdges(node);
      communityWeight[own] = (communityWeight[own] as number) - weight;
      const best = bestMove(weight, own, (weightTo[own] as number) - scale * weight * (communityWeight[own] as number));
      membership[node] = best;
      communityWeight[best] = (communityWeight[best] as number) + weight;
    }
    const onlyNew = new Uint8Array(labels).fill(1);
    for (let node = 0; node < n; node++) if (placed[node] !== 1) onlyNew[membership[node] as number] = 0;
    const groups = new Map<number, number[]>();
    for (let node = 0; node < n; node++) {
      const label = membership[node] as number;
      if (onlyNew[label] !== 1) continue;
      const group = groups.get(label);
      if (group) group.push(node);
      else groups.set(label, [node]);
    }
    for (const [label, group] of groups) {
      // Only into a community with earlier members: the new nodes have met each other in the moves above.
      for (const node of group) addEdges(node, onlyNew);
      const weight = communityWeight[label] as number;
      const best = bestMove(weight, label, 0);
      if (best === label) continue;
      for (const node of group) membership[node] = best;
      communityWeight[best] = (communityWeight[best] as number) + weight;
      communityWeight[label] = 0;
    }
    const count = renumber(membership, n, work.renumbering);
    completed = true;
    return { membership, count };
  } finally {
    work.inUse = false;
    // A throw can leave `weightTo` dirty; never reuse such a workspace.
    if (!completed && work === retained) retained = undefined;
  }
}
