import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { disconnectedCommunities, louvainMembership, normalizedMutualInformation, plantedPartition } from '../../test/helpers/community-graphs.js';
import { createRandom } from '../core/random.js';
import { csrFromTriplets, undirectedGraphCsr } from '../math/csr-matrix.js';
import type { CsrMatrix, IndexedEdge } from '../math/csr-matrix.js';
import { hierarchicalLeiden, hierarchicalLeidenDefaults, hierarchicalLeidenFromEdges } from './hierarchical-leiden.js';
import type { LeidenHierarchyCommunity, LeidenHierarchyStart, WeightedIdEdge } from './hierarchical-leiden.js';
import { leiden } from './leiden.js';
import { modularity } from './modularity.js';

/** The subgraph induced by `members` (sorted node indices). */
function induced(graph: CsrMatrix, members: readonly number[]): CsrMatrix {
  const local = new Map(members.map((node, index) => [node, index]));
  const edges: IndexedEdge[] = [];
  members.forEach((node, index) => {
    for (let entry = graph.rowPointers[node] as number; entry < (graph.rowPointers[node + 1] as number); entry++) {
      const target = local.get(graph.columnIndices[entry] as number);
      if (target !== undefined && index <= target) edges.push({ source: index, target, weight: graph.values[entry] as number });
    }
  });
  return undirectedGraphCsr(members.length, edges);
}

/** Checks the invariants every hierarchy must satisfy; `members` compared with `compare`. */
function assertWellFormed<Member>(communities: readonly LeidenHierarchyCommunity<Member>[], nodes: readonly Member[], maxClusterSize: number, compare: (left: Member, right: Member) => number): void {
  const seen = new Map<Member, number>();
  for (const root of communities.filter((community) => community.level === 0)) {
    assert.equal(root.parent, null);
    for (const member of root.members) seen.set(member, (seen.get(member) ?? 0) + 1);
  }
  assert.deepEqual([...seen.keys()].sort(compare), [...new Set(nodes)].sort(compare), 'level 0 covers every node');
  for (const [node, count] of seen) assert.equal(count, 1, `${String(node)} is in ${count} level-0 communities`);
  communities.forEach((community, index) => {
    assert.ok(community.members.length > 0, 'no empty community');
    assert.deepEqual(community.members, [...community.members].sort(compare), 'members are sorted');
    if (community.parent === null) {
      assert.equal(community.level, 0, 'only level 0 has no parent');
    } else {
      const parent = communities[community.parent];
      assert.ok(parent && community.parent < index, 'parents come before children');
      assert.ok(parent.children.includes(index), 'parent lists the child');
      assert.equal(community.level, parent.level + 1, 'levels increase by one from parent to child');
    }
    if (index > 0) assert.ok(community.level >= (communities[index - 1] as LeidenHierarchyCommunity<Member>).level, 'listed level by level');
    if (community.children.length > 0) {
      assert.ok(community.children.length >= 2, 'a split has at least two parts');
      assert.ok(community.members.length > maxClusterSize, 'only communities above the cap are split');
      const union = community.children.flatMap((child) => communities[child]?.members ?? []);
      assert.deepEqual(union.sort(compare), [...community.members], 'children partition their parent');
    }
  });
}

const byNumber = (left: number, right: number): number => left - right;
const byString = (left: string, right: string): number => (left < right ? -1 : left > right ? 1 : 0);
const range = (n: number): number[] => Array.from({ length: n }, (_, index) => index);

/** A planted graph plus isolated nodes and a separate 3-node path at the end. */
function plantedWithExtras(seed: number, mixing = 0.15): { graph: CsrMatrix; truth: Int32Array; nodes: number } {
  const planted = plantedPartition({ groups: 12, size: 25, edges: 1800, mixing, seed });
  const nodes = planted.nodes + 7;
  const path = planted.nodes + 4;
  const edges = [...planted.edges, { source: path, target: path + 1, weight: 1 }, { source: path + 1, target: path + 2, weight: 1 }];
  return { graph: undirectedGraphCsr(nodes, edges), truth: planted.truth, nodes };
}

describe('hierarchicalLeiden', () => {
  test('hierarchies are well formed for several caps and seeds', () => {
    for (const seed of [1, 2, 3]) {
      const { graph, nodes } = plantedWithExtras(seed, 0.3);
      for (const maxClusterSize of [4, 10, 40]) {
        assertWellFormed(hierarchicalLeiden(graph, { maxClusterSize, seed }), range(nodes), maxClusterSize, byNumber);
      }
    }
  });

  test('every community at every level is connected', () => {
    for (const seed of [4, 5, 6]) {
      const { graph } = plantedWithExtras(seed, 0.4);
      for (const community of hierarchicalLeiden(graph, { maxClusterSize: 5, seed })) {
        const sub = induced(graph, community.members);
        assert.deepEqual(disconnectedCommunities(sub, new Int32Array(sub.rows)), [], `level ${community.level}, ${community.members.length} members`);
      }
    }
  });

  test('leaves respect the cap unless Leiden cannot split them', () => {
    for (const seed of [1, 2, 3]) {
      const { graph } = plantedWithExtras(seed);
      const maxClusterSize = 10;
      const communities = hierarchicalLeiden(graph, { maxClusterSize, seed });
      const leaves = communities.filter((community) => community.children.length === 0);
      for (const leaf of leaves) {
        if (leaf.members.length <= maxClusterSize) continue;
        // An oversized leaf: clustering its induced subgraph alone, with any seed, gives one community.
        for (const retry of [seed, 99]) assert.equal(leiden(induced(graph, leaf.members), { seed: retry, randomness: hierarchicalLeidenDefaults.randomness }).count, 1);
      }
      // Planted groups of 25 are splittable: no oversized leaf is left.
      assert.equal(leaves.filter((leaf) => leaf.members.length > maxClusterSize).length, 0);
    }
  });

  test('level 0 recovers the planted groups and has Louvain-level modularity; level 1 only refines them', () => {
    for (const seed of [1, 2, 3]) {
      const { graph, truth, nodes } = plantedWithExtras(seed);
      const communities = hierarchicalLeiden(graph, { seed });
      const level0 = new Int32Array(nodes);
      communities.forEach((community, index) => {
        if (community.level === 0) for (const member of community.members) level0[member] = index;
      });
      assert.ok(normalizedMutualInformation(level0.subarray(0, truth.length), truth) >= 0.9);
      const edges: IndexedEdge[] = [];
      for (let node = 0; node < nodes; node++) {
        for (let entry = graph.rowPointers[node] as number; entry < (graph.rowPointers[node + 1] as number); entry++) {
          const target = graph.columnIndices[entry] as number;
          if (node < target) edges.push({ source: node, target, weight: graph.values[entry] as number });
        }
      }
      assert.ok(modularity(graph, level0) >= modularity(graph, louvainMembership(nodes, edges, seed)) - 1e-3);
      for (const community of communities.filter((candidate) => candidate.level === 1)) {
        assert.equal(new Set(community.members.map((member) => truth[member])).size, 1, 'a level-1 community lies inside one planted group');
      }
    }
  });

  test('isolated nodes and a separate component get their own level-0 communities', () => {
    const { graph, nodes } = plantedWithExtras(11);
    const roots = hierarchicalLeiden(graph, { seed: 11 }).filter((community) => community.level === 0).map((community) => community.members.join(','));
    const base = nodes - 7;
    for (let index = 0; index < 4; index++) assert.ok(roots.includes(String(base + index)), `${base + index} alone`);
    assert.ok(roots.includes(`${base + 4},${base + 5},${base + 6}`), 'the path is one community');
  });

  test('deterministic for a seed, and the same with an injected generator', () => {
    const { graph } = plantedWithExtras(7, 0.35);
    const options = { maxClusterSize: 8, seed: 17 };
    const first = hierarchicalLeiden(graph, options);
    assert.deepEqual(hierarchicalLeiden(graph, options), first);
    assert.deepEqual(hierarchicalLeiden(graph, { maxClusterSize: 8, random: createRandom(17) }), first);
  });

  test('maxLevels bounds the depth', () => {
    const { graph } = plantedWithExtras(3);
    const flat = hierarchicalLeiden(graph, { maxClusterSize: 4, maxLevels: 1, seed: 3 });
    assert.ok(flat.every((community) => community.level === 0 && community.children.length === 0));
    const two = hierarchicalLeiden(graph, { maxClusterSize: 2, maxLevels: 2, seed: 3 });
    assert.ok(two.every((community) => community.level <= 1));
    assert.ok(two.some((community) => community.level === 1));
    assert.throws(() => hierarchicalLeiden(graph, { maxLevels: 0 }), RangeError);
    assert.throws(() => hierarchicalLeiden(graph, { maxClusterSize: 0 }), RangeError);
  });

  test('a clique above the cap cannot be split and stays one leaf; an empty graph has no communities', () => {
    const edges: IndexedEdge[] = [];
    for (let i = 0; i < 12; i++) for (let j = i + 1; j < 12; j++) edges.push({ source: i, target: j, weight: 1 });
    assert.deepEqual(hierarchicalLeiden(undirectedGraphCsr(12, edges), { maxClusterSize: 5 }), [{ level: 0, parent: null, children: [], members: range(12) }]);
    assert.deepEqual(hierarchicalLeiden(csrFromTriplets(0, 0, [], [], [])), []);
  });
});

describe('hierarchicalLeidenFromEdges', () => {
  const triangles = [['a', 'b'], ['b', 'c'], ['a', 'c'], ['d', 'e'], ['e', 'f'], ['d', 'f'], ['c', 'd']].map(([source, target]) => ({ source: source as string, target: target as string, weight: 1 }));

  test('two triangles joined by a bridge: two communities, largest first, ties by first member; fits the Louvain type', () => {
    const communities: LeidenHierarchyCommunity<string>[] = hierarchicalLeidenFromEdges(['f', 'e', 'd', 'c', 'b', 'a', 'g'], triangles, { maxClusterSize: 10 });
    assert.deepEqual(communities, [
      { level: 0, parent: null, children: [], members: ['a', 'b', 'c'] },
      { level: 0, parent: null, children: [], members: ['d', 'e', 'f'] },
      { level: 0, parent: null, children: [], members: ['g'] },
    ]);
  });

  test('the order of nodes does not matter; duplicate nodes count once', () => {
    const forward = hierarchicalLeidenFromEdges(['a', 'b', 'c', 'd', 'e', 'f', 'g'], triangles);
    assert.deepEqual(hierarchicalLeidenFromEdges(['g', 'c', 'a', 'f', 'b', 'e', 'd', 'a', 'g'], triangles), forward);
  });

  test('self-loops and edges to unknown nodes are ignored; parallel edges add up', () => {
    const communities = hierarchicalLeidenFromEdges(
      ['a', 'b', 'c'],
      [
        { source: 'a', target: 'b', weight: 1 },
        { source: 'a', target: 'a', weight: 5 },
        { source: 'c', target: 'zz', weight: 5 },
        { source: 'yy', target: 'c', weight: 5 },
      ],
    );
    assert.deepEqual(communities, [
      { level: 0, parent: null, children: [], members: ['a', 'b'] },
      { level: 0, parent: null, children: [], members: ['c'] },
    ]);
    // Parallel edges in either direction behave exactly as one edge of their summed weight.
    const path = ['a', 'b', 'c', 'd', 'e', 'f'];
    const chain = (weights: number[]): WeightedIdEdge[] => weights.map((weight, index) => ({ source: path[index] as string, target: path[index + 1] as string, weight }));
    const summed = hierarchicalLeidenFromEdges(path, chain([3, 1, 3, 1, 3]), { maxClusterSize: 2 });
    const split = hierarchicalLeidenFromEdges(path, [...chain([1, 1, 2, 1, 3]), { source: 'b', target: 'a', weight: 2 }, { source: 'd', target: 'c', weight: 1 }], { maxClusterSize: 2 });
    assert.deepEqual(split, summed);
    assert.deepEqual(summed.map((community) => community.members), [['a', 'b'], ['c', 'd'], ['e', 'f']]);
  });

  test('negative (PMI) weights are shifted: no throw, well formed, planted groups still recovered', () => {
    for (const seed of [1, 2]) {
      const planted = plantedPartition({ groups: 6, size: 15, edges: 500, mixing: 0.1, seed, weight: (inside, random) => (inside ? 0.2 + random() : -0.5 * random()) });
      const ids = range(planted.nodes).map((node) => `n${String(node).padStart(3, '0')}`);
      const edges: WeightedIdEdge[] = planted.edges.map(({ source, target, weight }) => ({ source: ids[source] as string, target: ids[target] as string, weight }));
      assert.ok(edges.some((edge) => edge.weight < 0));
      const communities = hierarchicalLeidenFromEdges(ids, edges, { maxClusterSize: 10, seed });
      assertWellFormed(communities, ids, 10, byString);
      const level0 = new Int32Array(planted.nodes);
      communities.forEach((community, index) => {
        if (community.level === 0) for (const member of community.members) level0[Number(member.slice(1))] = index;
      });
      assert.ok(normalizedMutualInformation(level0, planted.truth) >= 0.9);
    }
  });

  test('all-negative and all-equal weights still cover every node', () => {
    const ids = range(20).map((node) => `x${String(node).padStart(2, '0')}`);
    const random = createRandom(9);
    const edges: WeightedIdEdge[] = [];
    for (let i = 0; i < 20; i++) for (let j = i + 1; j < 20; j++) if (random() < 0.3) edges.push({ source: ids[i] as string, target: ids[j] as string, weight: -1 - random() });
    assertWellFormed(hierarchicalLeidenFromEdges(ids, edges, { maxClusterSize: 5, seed: 9 }), ids, 5, byString);
    const equal = edges.map((edge) => ({ ...edge, weight: -3 }));
    assertWellFormed(hierarchicalLeidenFromEdges(ids, equal, { maxClusterSize: 5, seed: 9 }), ids, 5, byString);
  });

  test('empty input', () => {
    assert.deepEqual(hierarchicalLeidenFromEdges([], []), []);
  });
});

/** The edges of a symmetric CSR matrix, each once. */
function edgeList(graph: CsrMatrix): IndexedEdge[] {
  const edges: IndexedEdge[] = [];
  for (let node = 0; node < graph.rows; node++) {
    for (let entry = graph.rowPointers[node] as number; entry < (graph.rowPointers[node + 1] as number); entry++) {
      const target = graph.columnIndices[entry] as number;
      if (node < target) edges.push({ source: node, target, weight: graph.values[entry] as number });
    }
  }
  return edges;
}

/** Each community as "level:members", for comparing hierarchies as sets. */
const keysOf = (communities: readonly LeidenHierarchyCommunity[]): Set<string> => new Set(communities.map((community) => `${community.level}:${community.members.join(',')}`));

/** The level-0 partition as a membership array. */
function level0Of(communities: readonly LeidenHierarchyCommunity[], nodes: number): Int32Array {
  const membership = new Int32Array(nodes);
  communities.forEach((community, index) => {
    if (community.level === 0) for (const member of community.members) membership[member] = index;
  });
  return membership;
}

describe('hierarchicalLeiden updates', () => {
  test('an unchanged graph with nothing changed gives back the earlier hierarchy, whatever the seed', () => {
    for (const seed of [1, 2]) {
      const { graph } = plantedWithExtras(seed, 0.3);
      const earlier = hierarchicalLeiden(graph, { maxClusterSize: 6, seed });
      assert.deepEqual(hierarchicalLeiden(graph, { maxClusterSize: 6, seed: seed + 10, moveMargin: 0.2 }, { communities: earlier, changed: new Set() }), earlier);
    }
  });

  test('a new disconnected component gets communities of its own and every earlier community stays, sub-communities included', () => {
    const { graph, nodes } = plantedWithExtras(5, 0.3);
    const earlier = hierarchicalLeiden(graph, { maxClusterSize: 6, seed: 5 });
    const added = [nodes, nodes + 1, nodes + 2, nodes + 3];
    const edges = [...edgeList(graph), ...added.slice(1).map((node) => ({ source: added[0] as number, target: node, weight: 1 }))];
    const updated = hierarchicalLeiden(undirectedGraphCsr(nodes + 4, edges), { maxClusterSize: 6, seed: 5, moveMargin: 0.2 }, { communities: earlier, changed: new Set(added) });
    assertWellFormed(updated, range(nodes + 4), 6, byNumber);
    const after = keysOf(updated);
    for (const key of keysOf(earlier)) assert.ok(after.has(key), `${key} kept`);
    assert.ok(after.has(`0:${added.join(',')}`), 'the star is one new community');
    assert.equal(updated.length, earlier.length + 1);
  });

  test('a change inside one community leaves the others and their whole subtrees as they were', () => {
    const { graph, nodes } = plantedWithExtras(8, 0.2);
    const earlier = hierarchicalLeiden(graph, { maxClusterSize: 6, seed: 8 });
    const target = earlier.find((community) => community.level === 0 && community.members.length > 12) as LeidenHierarchyCommunity;
    // Three new edges between members of one level-0 community.
    const [a, b, c, d] = target.members as [number, number, number, number];
    const edges = [...edgeList(graph), { source: a, target: d, weight: 1 }, { source: b, target: d, weight: 1 }, { source: a, target: c, weight: 2 }];
    const updated = hierarchicalLeiden(undirectedGraphCsr(nodes, edges), { maxClusterSize: 6, seed: 8, moveMargin: 0.2 }, { communities: earlier, changed: new Set([a, b, c, d]) });
    assertWellFormed(updated, range(nodes), 6, byNumber);
    const inside = new Set(target.members);
    const after = keysOf(updated);
    for (const community of earlier) {
      if (community.members.some((member) => inside.has(member))) continue;
      assert.ok(after.has(`${community.level}:${community.members.join(',')}`), `level ${community.level} community of ${community.members[0]} kept`);
    }
  });

  test('level 0 of an update stays within 1 % of a fresh clustering’s modularity, guard or not', () => {
    for (const seed of [1, 2, 3]) {
      const planted = plantedPartition({ groups: 12, size: 25, edges: 1800, mixing: 0.35, seed });
      const before = undirectedGraphCsr(planted.nodes, planted.edges);
      const earlier = hierarchicalLeiden(before, { seed });
      const random = createRandom(seed);
      const changed = new Set<number>();
      const edges = [...planted.edges];
      for (let index = 0; index < 40; index++) {
        const source = Math.floor(random() * planted.nodes);
        const target = Math.floor(random() * planted.nodes);
        if (source === target) continue;
        edges.push({ source, target, weight: 1 });
        changed.add(source).add(target);
      }
      const after = undirectedGraphCsr(planted.nodes, edges);
      const fresh = modularity(after, level0Of(hierarchicalLeiden(after, { seed }), planted.nodes));
      for (const maxQualityLoss of [0.005, Number.POSITIVE_INFINITY]) {
        const updated = hierarchicalLeiden(after, { seed, moveMargin: 0.2, maxQualityLoss }, { communities: earlier, changed });
        assertWellFormed(updated, range(planted.nodes), 10, byNumber);
        const q = modularity(after, level0Of(updated, planted.nodes));
        assert.ok(q >= fresh * 0.99, `seed ${seed}, guard ${maxQualityLoss}: Q ${q} vs fresh ${fresh}`);
      }
    }
  });

  test('when the update falls behind a fresh clustering by more than maxQualityLoss, level 0 is the fresh one', () => {
    const { graph, nodes } = plantedWithExtras(4, 0.25);
    // A poor earlier partition: nodes dealt round-robin into 12 groups, unrelated to the planted ones.
    const poor = Array.from({ length: 12 }, (_, group) => ({ level: 0, members: range(nodes).filter((node) => node % 12 === group) }));
    const checks: Array<{ updated: number; fresh: number | undefined; keptFresh: boolean }> = [];
    const updated = hierarchicalLeiden(graph, { seed: 4, moveMargin: 0.2 }, { communities: poor, changed: new Set([0]), onLevel0Check: (check) => checks.push(check) });
    assert.equal(checks.length, 1);
    assert.ok(checks[0]?.keptFresh, `updated ${checks[0]?.updated} vs fresh ${checks[0]?.fresh}`);
    const fresh = hierarchicalLeiden(graph, { seed: 4 });
    assert.deepEqual(
      updated.filter((community) => community.level === 0).map((community) => community.members),
      fresh.filter((community) => community.level === 0).map((community) => community.members),
    );
    assertWellFormed(updated, range(nodes), 10, byNumber);
  });

  test('with a quality reference, level 0 is checked against a fresh clustering only when the update falls below it', () => {
    const { graph, nodes } = plantedWithExtras(4, 0.25);
    const earlier = hierarchicalLeiden(graph, { seed: 4 });
    const freshQualities: number[] = [];
    hierarchicalLeiden(graph, { seed: 4, onFreshLevel0: (quality) => freshQualities.push(quality) });
    assert.equal(freshQualities.length, 1, 'a first run reports its level 0');
    const reference = freshQualities[0] as number;
    const run = (communities: LeidenHierarchyStart['communities'], qualityReference: number) => {
      const checks: Array<{ updated: number; fresh: number | undefined; keptFresh: boolean }> = [];
      const fresh: number[] = [];
      const updated = hierarchicalLeiden(graph, { seed: 4, moveMargin: 0.2, onFreshLevel0: (quality) => fresh.push(quality) }, { communities, changed: new Set([0, 1]), qualityReference, onLevel0Check: (check) => checks.push(check) });
      return { updated, checks, fresh };
    };
    // The earlier hierarchy of the same graph keeps to the reference: no fresh clustering.
    const kept = run(earlier, reference);
    assert.equal(kept.checks.length, 1);
    assert.equal(kept.checks[0]?.fresh, undefined);
    assert.deepEqual(kept.fresh, []);
    assertWellFormed(kept.updated, range(nodes), 10, byNumber);
    // Below a reference (here one no partition reaches), level 0 is checked against a fresh clustering again.
    const breached = run(earlier, 1);
    assert.equal(breached.checks.length, 1);
    assert.equal(breached.fresh.length, 1);
    assert.equal(breached.checks[0]?.fresh, breached.fresh[0]);
    assertWellFormed(breached.updated, range(nodes), 10, byNumber);
  });

  test('by ids: earlier members that are gone are ignored and new nodes are placed', () => {
    const nodes = ['a', 'b', 'c', 'd', 'e', 'f'];
    const edges: WeightedIdEdge[] = [
      { source: 'a', target: 'b', weight: 1 },
      { source: 'b', target: 'c', weight: 1 },
      { source: 'a', target: 'c', weight: 1 },
      { source: 'd', target: 'e', weight: 1 },
      { source: 'e', target: 'f', weight: 1 },
      { source: 'd', target: 'f', weight: 1 },
      { source: 'c', target: 'd', weight: 0.1 },
    ];
    const earlier = hierarchicalLeidenFromEdges(nodes, edges);
    const next = [...nodes.filter((node) => node !== 'f'), 'g'];
    const nextEdges = [...edges.filter((edge) => edge.source !== 'f' && edge.target !== 'f'), { source: 'g', target: 'd', weight: 1 }, { source: 'g', target: 'e', weight: 1 }];
    const updated = hierarchicalLeidenFromEdges(next, nextEdges, {}, { communities: earlier, changed: new Set(['d', 'e', 'g']) });
    assert.deepEqual(updated.map((community) => community.members), [['a', 'b', 'c'], ['d', 'e', 'g']]);
  });
});

/** Each node's community at `level` as the sorted members of it, for comparing where nodes are. */
function communityAt<Member>(communities: readonly LeidenHierarchyCommunity<Member>[], level: number): Map<Member, string> {
  const at = new Map<Member, string>();
  for (const community of communities) if (community.level === level) for (const member of community.members) at.set(member, community.members.join(','));
  return at;
}

describe('hierarchicalLeiden updates that only place new nodes (placeOnly, between refreshes)', () => {
  const options = { maxClusterSize: 6, seed: 9 };

  test('without new nodes the earlier hierarchy comes back, however the edges changed', () => {
    const { graph, nodes } = plantedWithExtras(9, 0.3);
    const earlier = hierarchicalLeiden(graph, options);
    // Edges that a reclustering would act on: every planted node joined to the next one.
    const edges = [...edgeList(graph), ...range(nodes - 8).map((node) => ({ source: node, target: node + 1, weight: 3 }))];
    const placed = hierarchicalLeiden(undirectedGraphCsr(nodes, edges), options, { communities: earlier, changed: new Set(range(nodes)), placeOnly: true });
    assert.deepEqual(placed, earlier);
    assert.notDeepEqual(hierarchicalLeiden(undirectedGraphCsr(nodes, edges), options, { communities: earlier, changed: new Set(range(nodes)) }), earlier, 'a reclustering moves nodes here');
  });

  test('a new node joins its neighbours’ community at every level, and no earlier node moves', () => {
    const { graph, nodes } = plantedWithExtras(9, 0.2);
    const earlier = hierarchicalLeiden(graph, options);
    const leaf = earlier.find((community) => community.children.length === 0 && community.level > 0 && community.members.length >= 3) as LeidenHierarchyCommunity;
    const [a, b, c] = leaf.members as [number, number, number];
    const added = nodes;
    const edges = [...edgeList(graph), { source: added, target: a, weight: 1 }, { source: added, target: b, weight: 1 }, { source: added, target: c, weight: 1 }];
    const placed = hierarchicalLeiden(undirectedGraphCsr(nodes + 1, edges), options, { communities: earlier, changed: new Set([added, a, b, c]), placeOnly: true });
    assertWellFormed(placed, range(nodes + 1), 6, byNumber);
    for (let level = 0; level <= leaf.level; level++) {
      const before = communityAt(earlier, level);
      const after = communityAt(placed, level);
      // The new node sits with a at every level down to the leaf; every other node is where it was, joined by it or not.
      assert.equal(after.get(added), after.get(a), `level ${level}: with its neighbours`);
      for (const [node, members] of before) {
        const expected = node === a || members.split(',').includes(String(a)) ? `${members},${added}` : members;
        assert.deepEqual(after.get(node)?.split(',').map(Number).sort(byNumber), expected.split(',').map(Number).sort(byNumber), `level ${level}: node ${node}`);
      }
    }
  });

  test('new nodes linked only to each other form a community of their own', () => {
    const { graph, nodes } = plantedWithExtras(9, 0.3);
    const earlier = hierarchicalLeiden(graph, options);
    const added = [nodes, nodes + 1, nodes + 2, nodes + 3];
    // The first node's only neighbours come after it: they join it.
    const edges = [...edgeList(graph), ...added.slice(1).map((node) => ({ source: added[0] as number, target: node, weight: 1 }))];
    const placed = hierarchicalLeiden(undirectedGraphCsr(nodes + 4, edges), options, { communities: earlier, changed: new Set(added), placeOnly: true });
    assertWellFormed(placed, range(nodes + 4), 6, byNumber);
    assert.deepEqual(keysOf(placed), new Set([...keysOf(earlier), `0:${added.join(',')}`]));
  });

  test('with CPM quality a new node joins where it gains (ties against the community size), or stays alone', () => {
    const clique = (offset: number) => range(4).flatMap((i) => range(4).filter((j) => j > i).map((j) => ({ source: offset + i, target: offset + j, weight: 1 })));
    const edges = [...clique(0), ...clique(4), { source: 3, target: 4, weight: 1 }];
    const cpm = { ...options, quality: 'cpm' as const, resolution: 0.5 };
    const earlier = hierarchicalLeiden(undirectedGraphCsr(10, edges), cpm);
    assert.deepEqual(earlier.map((community) => community.members), [[0, 1, 2, 3], [4, 5, 6, 7], [8], [9]]);
    // Node 10 has three ties into the first clique (gain 3 − 0.5·4) and one into the second (1 − 0.5·4 < 0); node 11 one
    // tie into the second clique only, which gains less than staying alone.
    const grown = [...edges, ...[0, 1, 2, 4].map((target) => ({ source: 10, target, weight: 1 })), { source: 11, target: 5, weight: 1 }];
    const placed = hierarchicalLeiden(undirectedGraphCsr(12, grown), cpm, { communities: earlier, changed: new Set([0, 1, 2, 4, 5, 10, 11]), placeOnly: true });
    assert.deepEqual(placed.map((community) => community.members), [[0, 1, 2, 3, 10], [4, 5, 6, 7], [8], [9], [11]]);
  });

  test('new nodes tied to each other join an earlier community together; one grown past the cap is split, as a fresh run would', () => {
    // Two 5-cliques joined by one edge: two level-0 communities under the cap of 6, neither split.
    const clique = (offset: number) => range(5).flatMap((i) => range(5).filter((j) => j > i).map((j) => ({ source: offset + i, target: offset + j, weight: 1 })));
    const edges = [...clique(0), ...clique(5), { source: 4, target: 5, weight: 1 }];
    const earlier = hierarchicalLeiden(undirectedGraphCsr(10, edges), options);
    assert.deepEqual(earlier.map((community) => community.members.length), [5, 5]);
    // A triangle of new nodes, each tied to nodes 0 and 1. One at a time each gains most with the others; together they
    // gain most in the first community (as a fresh clustering finds), which then holds 8.
    const triangle = [10, 11, 12];
    const grown = [...edges, ...triangle.flatMap((node, index) => [{ source: node, target: triangle[(index + 1) % 3] as number, weight: 1 }, { source: node, target: 0, weight: 1 }, { source: node, target: 1, weight: 1 }])];
    const graph = undirectedGraphCsr(13, grown);
    const placed = hierarchicalLeiden(graph, options, { communities: earlier, changed: new Set([0, 1, ...triangle]), placeOnly: true });
    assertWellFormed(placed, range(13), 6, byNumber);
    const first = placed.find((community) => community.level === 0 && community.members.includes(0)) as LeidenHierarchyCommunity;
    assert.deepEqual(first.members, [0, 1, 2, 3, 4, ...triangle]);
    assert.ok(first.children.length >= 2, 'it is split');
    const holding = first.children.filter((child) => placed[child]?.members.some((member) => triangle.includes(member)));
    assert.equal(holding.length, 1, 'the triangle stays together');
    assert.deepEqual(placed.find((community) => community.members.includes(5))?.members, [5, 6, 7, 8, 9]);
  });
});
