import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { exactKnnGraphSync } from '../../../math/exact-knn-graph.js';
import { buildPassageGraph, passageEdgeBit, type PassageGraph } from './passage-graph.js';

/** `target: kind+kind` for every link of `passage`, for readable assertions. */
function linksOf(graph: PassageGraph, passage: number): Record<number, string> {
  const links: Record<number, string> = {};
  for (let entry = graph.rowPointers[passage] as number; entry < (graph.rowPointers[passage + 1] as number); entry++) {
    const kinds = graph.kinds[entry] as number;
    links[graph.neighbours[entry] as number] = (Object.entries(passageEdgeBit) as Array<[string, number]>)
      .filter(([, bit]) => (kinds & bit) !== 0)
      .map(([kind]) => kind)
      .join('+');
  }
  return links;
}

const limits = { maxPassagesPerTerm: 3, maxGroupClique: 4 };

describe('buildPassageGraph', () => {
  test('kNN: each passage links to exactly its k nearest (directed), never itself', () => {
    // Five unit vectors on a circle at 0°, 10°, 20°, 90°, 180°.
    const angles = [0, 10, 20, 90, 180].map((degrees) => (degrees * Math.PI) / 180);
    const data = Float32Array.from(angles.flatMap((angle) => [Math.cos(angle), Math.sin(angle)]));
    const knn = exactKnnGraphSync({ rows: 5, cols: 2, data }, 2);
    const graph = buildPassageGraph({ passages: 5, knn }, limits);
    assert.deepEqual(linksOf(graph, 0), { 1: 'knn', 2: 'knn' });
    assert.deepEqual(linksOf(graph, 3), { 1: 'knn', 2: 'knn' });
    // 180° is nearest to 90°, then 20°; nothing points back to it, since kNN links are directed.
    assert.deepEqual(linksOf(graph, 4), { 2: 'knn', 3: 'knn' });
    for (let passage = 0; passage < 5; passage++) {
      assert.equal((graph.rowPointers[passage + 1] as number) - (graph.rowPointers[passage] as number), 2);
      assert.equal(linksOf(graph, passage)[passage], undefined);
    }
  });

  test('shared entity: passages mentioning one entity form a clique; an entity in more than the cap links none', () => {
    const graph = buildPassageGraph(
      {
        passages: 7,
        entityPassages: [
          [0, 1, 1, 2], // 3 distinct passages: at the cap, a clique (the duplicate mention counts once)
          [3, 4, 5, 6], // 4 passages: a hub above the cap, skipped
          [2, 3], // a pair
          [6], // alone: no link
        ],
      },
      limits,
    );
    assert.deepEqual(linksOf(graph, 0), { 1: 'entity', 2: 'entity' });
    assert.deepEqual(linksOf(graph, 2), { 0: 'entity', 1: 'entity', 3: 'entity' });
    assert.deepEqual(linksOf(graph, 4), {});
    assert.deepEqual(linksOf(graph, 6), {});
    // Two entities shared by the same pair are one link counting 2.
    const twice = buildPassageGraph({ passages: 2, entityPassages: [[0, 1], [1, 0]], keywordPassages: [[0, 1]] }, limits);
    assert.deepEqual(linksOf(twice, 0), { 1: 'entity+keyword' });
    assert.deepEqual(Array.from(twice.shared), [3, 3]);
  });

  test('structural: a small group is a clique; a long one links neighbours within maxGroupClique / 2 in reading order', () => {
    const graph = buildPassageGraph({ passages: 9, groups: [[2, 0, 1], [3, 4, 5, 6, 7, 8]] }, limits);
    assert.deepEqual(linksOf(graph, 0), { 1: 'structural', 2: 'structural' });
    // Group of 6 > 4: reach 2 in the given order 3, 4, 5, 6, 7, 8.
    assert.deepEqual(linksOf(graph, 3), { 4: 'structural', 5: 'structural' });
    assert.deepEqual(linksOf(graph, 5), { 3: 'structural', 4: 'structural', 6: 'structural', 7: 'structural' });
    assert.deepEqual(linksOf(graph, 8), { 6: 'structural', 7: 'structural' });
  });

  test('kinds merge into one entry per pair, rows ascending; only term kinds count as shared', () => {
    const knn = { n: 3, k: 1, indices: Int32Array.from([1, 0, -1]), similarities: Float32Array.from([0.9, 0.9, Number.NEGATIVE_INFINITY]) };
    const graph = buildPassageGraph({ passages: 3, knn, entityPassages: [[0, 1, 2]], groups: [[0, 1]] }, limits);
    assert.deepEqual(linksOf(graph, 0), { 1: 'knn+entity+structural', 2: 'entity' });
    assert.deepEqual(linksOf(graph, 2), { 0: 'entity', 1: 'entity' });
    assert.deepEqual(Array.from(graph.neighbours.subarray(graph.rowPointers[0], graph.rowPointers[1])), [1, 2]);
    assert.deepEqual(Array.from(graph.shared.subarray(graph.rowPointers[0], graph.rowPointers[1])), [1, 1]);
    assert.throws(() => buildPassageGraph({ passages: 2, entityPassages: [[0, 5]] }, limits), RangeError);
  });
});
