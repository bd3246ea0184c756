import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { countTerms } from '../../../text/term-count-matrix.js';
import { decodePassageGraphIndex, encodePassageGraphIndex } from './passage-graph-codec.js';
import { buildPassageGraph } from './passage-graph.js';
import { packTypedArrays, unpackTypedArrays } from '../../../graph/typed-array-bundle.js';

describe('typed-array bundles', () => {
  test('round-trip arrays of every type and the JSON, also from an unaligned copy', () => {
    const arrays = {
      a: Int32Array.from([1, -2, 3]),
      b: Uint8Array.from([7]),
      c: Uint16Array.from([65535, 2]),
      d: Float32Array.from([0.5, -1.25]),
      e: Float64Array.from([Math.PI]),
    };
    const packed = packTypedArrays({ json: { name: 'x', list: [1, 2] }, arrays });
    const shifted = new Uint8Array(packed.length + 3).subarray(3);
    shifted.set(packed);
    for (const bytes of [packed, shifted]) {
      const unpacked = unpackTypedArrays(bytes);
      assert.deepEqual(unpacked.json, { name: 'x', list: [1, 2] });
      for (const [name, array] of Object.entries(arrays)) assert.deepEqual(unpacked.arrays[name], array);
    }
    assert.throws(() => unpackTypedArrays(packed.subarray(0, packed.length - 4)), RangeError);
  });
});

describe('passage graph index codec', () => {
  test('round-trips the graph, the term counts, the chunk ids and the concepts; rejects other bytes', () => {
    const graph = buildPassageGraph({ passages: 3, entityPassages: [[0, 2]], groups: [[0, 1]] }, { maxPassagesPerTerm: 20, maxGroupClique: 32 });
    const terms = countTerms(['alpha beta', 'beta', 'gamma alpha']);
    const index = { chunkIds: ['c0', 'c1', 'c2'], graph, terms, kinds: ['entity', 'structural'] as const };
    const decoded = decodePassageGraphIndex(encodePassageGraphIndex(index));
    assert.deepEqual(decoded, index);
    const concepts = { version: 'noun-phrases:4', vocabulary: ['film director', 'rock band'], rowPointers: Int32Array.from([0, 1, 1, 3]), ids: Int32Array.from([0, 0, 1]) };
    assert.deepEqual(decodePassageGraphIndex(encodePassageGraphIndex({ ...index, concepts })), { ...index, concepts }, 'with the concepts of each passage');
    assert.throws(() => decodePassageGraphIndex(packTypedArrays({ json: { format: 'other' }, arrays: {} })), RangeError);
  });
});
