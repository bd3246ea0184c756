import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { DenseMatrix } from '../../../math/dense-matrix.js';
import { updateChunkClustering } from './update-chunk-clustering.js';

/** Unit rows at the given angles in the plane. */
function rowsAt(angles: readonly number[]): DenseMatrix {
  const data = new Float32Array(angles.length * 2);
  angles.forEach((angle, row) => {
    data[row * 2] = Math.cos(angle);
    data[row * 2 + 1] = Math.sin(angle);
  });
  return { rows: angles.length, cols: 2, data };
}

describe('updateChunkClustering', () => {
  // Two clusters: a, b, c near angle 0 and d, e near angle π/2.
  const previous = { method: 'k-means' as const, clusters: 2, chunkIds: ['a', 'b', 'c', 'd', 'e'], assignments: [0, 0, 0, 1, 1] };

  test('staying chunks keep their cluster, removed ones leave it, new ones join the nearest centroid of the remaining members', () => {
    // "b" is gone; "x" lies near the first cluster, "y" near the second; the order of the chunks changed.
    const chunkIds = ['y', 'e', 'a', 'x', 'c', 'd'];
    const updated = updateChunkClustering(previous, chunkIds, rowsAt([1.5, 1.6, 0, 0.2, 0.1, 1.55]));
    assert.ok(updated);
    assert.deepEqual(Array.from(updated.clustering.assignments), [1, 1, 0, 0, 0, 1]);
    assert.deepEqual(Array.from(updated.changed), [1, 1]);
    assert.equal(updated.added, 2);
    assert.equal(updated.removed, 1);
    assert.equal(updated.clustering.method, 'k-means');
    assert.equal(updated.clustering.clusters, 2);
    // Distances are to the centre of the members after the change.
    const centre = [0, 0.2, 0.1].reduce((sum, angle) => [(sum[0] as number) + Math.cos(angle) / 3, (sum[1] as number) + Math.sin(angle) / 3], [0, 0]);
    assert.ok(Math.abs((updated.clustering.centreDistances[2] as number) - Math.hypot(1 - (centre[0] as number), 0 - (centre[1] as number))) < 1e-6);
  });

  test('a cluster nothing joined or left is unchanged', () => {
    const updated = updateChunkClustering(previous, ['a', 'b', 'c', 'd', 'e', 'z'], rowsAt([0, 0.1, 0.2, 1.5, 1.6, 1.4]));
    assert.deepEqual(Array.from(updated?.changed ?? []), [0, 1]);
    assert.deepEqual(Array.from(updated?.clustering.assignments ?? []), [0, 0, 0, 1, 1, 1]);
  });

  test('a cluster that lost every member takes no new chunk; nothing left to keep gives undefined', () => {
    const updated = updateChunkClustering(previous, ['a', 'b', 'c', 'w'], rowsAt([0, 0.1, 0.2, 1.55]));
    assert.deepEqual(Array.from(updated?.clustering.assignments ?? []), [0, 0, 0, 0]);
    assert.deepEqual(Array.from(updated?.changed ?? []), [1, 1]);
    assert.equal(updateChunkClustering(previous, ['v', 'w'], rowsAt([0, 1])), undefined);
  });
});
