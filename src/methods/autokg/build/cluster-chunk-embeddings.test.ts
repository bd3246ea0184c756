import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createRandom } from '../../../core/random.js';
import type { DenseMatrix } from '../../../math/dense-matrix.js';
import { exactKnnGraphSync } from '../../../math/exact-knn-graph.js';
import { clusterChunkEmbeddings } from './cluster-chunk-embeddings.js';
import { selectClusterChunks } from './select-cluster-chunks.js';

function threeBlobs(): DenseMatrix {
  const random = createRandom(3);
  const centres = [[1, 0, 0], [0, 1, 0], [0, 0, 1]];
  const data = new Float32Array(90 * 3);
  for (let row = 0; row < 90; row++) {
    const centre = centres[Math.floor(row / 30)] as number[];
    let norm = 0;
    for (let col = 0; col < 3; col++) {
      const value = (centre[col] as number) + 0.3 * (random() - 0.5);
      data[row * 3 + col] = value;
      norm += value * value;
    }
    for (let col = 0; col < 3; col++) data[row * 3 + col] = (data[row * 3 + col] as number) / Math.sqrt(norm);
  }
  return { rows: 90, cols: 3, data };
}

describe('clusterChunkEmbeddings', () => {
  const vectors = threeBlobs();
  const graph = exactKnnGraphSync(vectors, 29);

  test('k-means and NJW spectral clustering both recover well-separated groups, deterministically', async () => {
    for (const method of ['k-means', 'spectral'] as const) {
      // Three disconnected blobs: their indicator eigenvectors separate them; the reference's 5 extra
      // eigenvectors would describe shapes inside the blobs, which this toy does not test.
      const clustering = await clusterChunkEmbeddings(method, vectors, graph, { clusters: 3, extraEigenvectors: 0 });
      for (let group = 0; group < 3; group++) {
        const labels = new Set(Array.from(clustering.assignments.subarray(group * 30, group * 30 + 30)));
        assert.equal(labels.size, 1, `${method}: group ${group} split`);
      }
      assert.deepEqual((await clusterChunkEmbeddings(method, vectors, graph, { clusters: 3, extraEigenvectors: 0 })).assignments, clustering.assignments);
      assert.ok(clustering.centreDistances.every((distance) => distance >= 0 && Number.isFinite(distance)));
    }
  });

  test('selection: c nearest the centre first, then c random others of the cluster (paper), or nearest only (code)', async () => {
    const clustering = await clusterChunkEmbeddings('k-means', vectors, undefined, { clusters: 3 });
    const paper = selectClusterChunks(clustering, { perCluster: 5, random: createRandom(1) });
    const code = selectClusterChunks(clustering, { perCluster: 5, sampling: 'nearest', random: createRandom(1) });
    for (const [cluster, chosen] of paper.entries()) {
      assert.equal(chosen.length, 10);
      assert.equal(new Set(chosen).size, 10);
      assert.deepEqual([...chosen.subarray(0, 5)], [...(code[cluster] as Int32Array)]);
      for (const chunk of chosen) assert.equal(clustering.assignments[chunk], cluster);
      const nearest = Math.max(...[...chosen.subarray(0, 5)].map((chunk) => clustering.centreDistances[chunk] as number));
      for (const chunk of chosen.subarray(5)) assert.ok((clustering.centreDistances[chunk] as number) >= nearest);
    }
  });
});
