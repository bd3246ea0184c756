import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createRandom } from '../core/random.js';
import { coordinatePostingsAfterDeletion, coordinatePostingsHoldAny, encodeCoordinatePostings } from './postings-codec.js';

test('a posting list after a deletion is the encoding of its kept rows, renumbered; unchanged or emptied lists say so; a scan finds the deleted rows it holds', () => {
  const random = createRandom(3801);
  for (let trial = 0; trial < 200; trial++) {
    const size = 1 + Math.floor(random() * 400);
    const deleted = new Uint8Array(size).map(() => (random() < 0.05 ? 1 : 0));
    if (trial % 4 === 0) deleted.fill(0, 0, Math.floor(size * 0.9));
    const positions = new Int32Array(size);
    let next = 0;
    let firstChanged = -1;
    for (let row = 0; row < size; row++) {
      if (deleted[row] === 1) {
        positions[row] = -1;
        if (firstChanged < 0) firstChanged = row;
      } else positions[row] = next++;
    }
    if (firstChanged < 0) firstChanged = size;
    // A list of some rows, split at a random row into a stored list and (sometimes) a tail.
    const rows = [...Array(size).keys()].filter(() => random() < 0.3 + (trial % 3) * 0.3);
    if (rows.length === 0) continue;
    const values = Float32Array.from(rows, () => random() - 0.5);
    const split = trial % 2 === 0 ? rows.length : Math.floor(random() * (rows.length + 1));
    const blobs = [encodeCoordinatePostings(Int32Array.from(rows.slice(0, split)), values.slice(0, split))];
    if (split < rows.length) blobs.push(encodeCoordinatePostings(Int32Array.from(rows.slice(split)), values.slice(split)));
    assert.equal(coordinatePostingsHoldAny(blobs[0] as Buffer, deleted), rows.slice(0, split).some((row) => deleted[row] === 1));
    const keptEntries = rows.flatMap((row, entry) => (deleted[row] === 1 ? [] : [entry]));
    const expected =
      keptEntries.length === 0
        ? null
        : encodeCoordinatePostings(Int32Array.from(keptEntries, (entry) => positions[rows[entry] as number] as number), Float32Array.from(keptEntries, (entry) => values[entry] as number));
    const actual = coordinatePostingsAfterDeletion(blobs, positions, firstChanged);
    if (blobs.length === 1 && (rows.at(-1) as number) < firstChanged) assert.equal(actual, undefined);
    else assert.deepEqual(actual === null ? null : actual?.toString('hex'), expected === null ? null : expected.toString('hex'), `trial ${trial}`);
  }
});
