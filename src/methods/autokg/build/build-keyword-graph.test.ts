import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createRandom } from '../../../core/random.js';
import type { DenseMatrix } from '../../../math/dense-matrix.js';
import { exactKnnGraphSync } from '../../../math/exact-knn-graph.js';
import { buildKeywordGraph, sharedChunkEdges, type KeywordMembers } from './build-keyword-graph.js';

/** `perCluster` unit vectors scattered around each of the given directions. */
function blobs(centres: number[][], perCluster: number, spread: number, seed = 7): DenseMatrix {
  const random = createRandom(seed);
  const cols = (centres[0] as number[]).length;
  const data = new Float32Array(centres.length * perCluster * cols);
  centres.forEach((centre, cluster) => {
    for (let member = 0; member < perCluster; member++) {
      const row = (cluster * perCluster + member) * cols;
      let norm = 0;
      for (let col = 0; col < cols; col++) {
        const value = (centre[col] as number) + spread * (random() - 0.5);
        data[row + col] = value;
        norm += value * value;
      }
      for (let col = 0; col < cols; col++) data[row + col] = (data[row + col] as number) / Math.sqrt(norm);
    }
  });
  return { rows: centres.length * perCluster, cols, data };
}

const members = (chunks: number[]): KeywordMembers => ({ chunks: Int32Array.from(chunks), scores: new Float64Array(chunks.length).fill(1), capped: false });

describe('buildKeywordGraph', () => {
  const chunks = blobs([[1, 0, 0, 0], [0, 1, 0, 0]], 40, 0.4);
  const graph = exactKnnGraphSync(chunks, 29);
  const keywords: DenseMatrix = { rows: 2, cols: 4, data: Float32Array.from([1, 0, 0, 0, 0, 1, 0, 0]) };

  test('Laplace membership on a two-cluster graph: each keyword takes chunks of its own cluster only', async () => {
    for (const kernel of ['gaussian', 'angular'] as const) {
      const result = await buildKeywordGraph(graph, chunks, keywords, { kernel, cap: 1 });
      const [first, second] = result.members as [KeywordMembers, KeywordMembers];
      assert.ok(first.chunks.length >= 30 && [...first.chunks].every((chunk) => chunk < 40), `${kernel}: first keyword ${first.chunks.length}`);
      assert.ok(second.chunks.length >= 30 && [...second.chunks].every((chunk) => chunk >= 40), `${kernel}: second keyword`);
      assert.ok([...first.scores].every((score) => score >= 0.5));
      assert.equal(result.edges.length, 0);
    }
  });

  test('the 20 % cap keeps the ⌊0.2·N⌋ chunks with the highest u', async () => {
    const uncapped = await buildKeywordGraph(graph, chunks, keywords, { cap: 1 });
    const capped = await buildKeywordGraph(graph, chunks, keywords, { cap: 0.2 });
    const first = capped.members[0] as KeywordMembers;
    assert.equal(first.chunks.length, 16);
    assert.equal(capped.cappedKeywords, 2);
    const all = uncapped.members[0] as KeywordMembers;
    const sorted = [...all.scores].sort((a, b) => b - a);
    assert.ok(Math.min(...first.scores) >= (sorted[15] as number) - 1e-12);
  });

  test('W = PᵀP − diag: weights count shared chunks, no self-loops', () => {
    const edges = sharedChunkEdges(6, [members([0, 1, 2]), members([1, 2, 3]), members([3]), members([5])]);
    assert.deepEqual(edges, [
      { a: 0, b: 1, weight: 2 },
      { a: 1, b: 2, weight: 1 },
    ]);
  });

  test('kept keywords: unchanged positives keep their members and take in a new chunk among them; changed ones are solved', async () => {
    const first = await buildKeywordGraph(graph, chunks, keywords, { cap: 1 });
    // A new chunk in the first cluster, as the last row: the positives stay the same (it is no nearer the keyword).
    const added: DenseMatrix = { rows: 81, cols: 4, data: new Float32Array(81 * 4) };
    added.data.set(chunks.data);
    added.data.set(chunks.data.subarray(5 * 4, 6 * 4).map((value, col) => value * 0.999 + (col === 1 ? 0.02 : 0)), 80 * 4);
    const norm = Math.hypot(...added.data.subarray(320, 324));
    for (let col = 320; col < 324; col++) added.data[col] = (added.data[col] as number) / norm;
    const addedGraph = exactKnnGraphSync(added, 29);
    const newChunks = new Uint8Array(81);
    newChunks[80] = 1;
    const kept = first.members.map((member, keyword) => ({ seeds: first.seeds[keyword] as (typeof first.seeds)[number], members: member }));
    // One of the second keyword's positives is gone (−1): its seeds are chosen from all chunks and it is solved again.
    const second = kept[1] as (typeof kept)[number];
    const changed = { ...second, seeds: { positives: Int32Array.from(second.seeds.positives, (chunk, index) => (index === 0 ? -1 : chunk)), negatives: second.seeds.negatives } };
    const result = await buildKeywordGraph(addedGraph, added, keywords, { cap: 1, kept: [kept[0], changed], newChunks });
    assert.equal(result.solved, 1);
    assert.deepEqual(result.seeds[0], first.seeds[0], 'the first keyword chose its seeds among its old ones and the new chunk');
    assert.equal(result.reseeded, 1);
    const [keptFirst, solvedSecond] = result.members as [KeywordMembers, KeywordMembers];
    assert.deepEqual(Array.from(keptFirst.chunks), [...Array.from((first.members[0] as KeywordMembers).chunks), 80]);
    assert.ok((keptFirst.scores[keptFirst.scores.length - 1] as number) >= 0.5);
    assert.ok(solvedSecond.chunks.length >= 30 && [...solvedSecond.chunks].every((chunk) => chunk >= 40 && chunk < 80));
  });

  test('no keywords: no members and no edges', async () => {
    const result = await buildKeywordGraph(graph, chunks, { rows: 0, cols: 4, data: new Float32Array(0) });
    assert.deepEqual(result.members, []);
    assert.deepEqual(result.edges, []);
  });
});
