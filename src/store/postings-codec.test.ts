import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createRandom } from '../core/random.js';
import { coordinatePostingsAfterDeletion, coordinatePostingsHoldAny, encodeCoordinatePostings, scatterCoordinatePostings } from './postings-codec.js';

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

test('with stale rows, a list and its tail after a deletion are merged by position: stale rows keep their tail entries only, deleted rows none', () => {
  const random = createRandom(3802);
  for (let trial = 0; trial < 200; trial++) {
    const stored = 1 + Math.floor(random() * 300);
    const appended = Math.floor(random() * 20);
    const size = stored + appended;
    const deleted = new Uint8Array(size).map(() => (random() < 0.05 ? 1 : 0));
    const stale = new Uint8Array(size).map((_, row) => (row < stored && random() < 0.08 ? 1 : 0));
    const positions = new Int32Array(size);
    const storedPositions = new Int32Array(size);
    let next = 0;
    let firstChanged = size;
    for (let row = 0; row < size; row++) {
      positions[row] = deleted[row] === 1 ? -1 : next++;
      storedPositions[row] = stale[row] === 1 ? -1 : (positions[row] as number);
      if (deleted[row] === 1 || stale[row] === 1) firstChanged = Math.min(firstChanged, row);
    }
    // The stored list holds old entries of some stored rows; the tail the current entries of some stale rows and new rows.
    const listRows = [...Array(stored).keys()].filter(() => random() < 0.4);
    const tailRows = [...Array(size).keys()].filter((row) => (row >= stored || stale[row] === 1) && random() < 0.6);
    if (listRows.length === 0 || tailRows.length === 0) continue;
    const listValues = Float32Array.from(listRows, () => random() - 0.5);
    const tailValues = Float32Array.from(tailRows, () => random() - 0.5);
    const blobs = [encodeCoordinatePostings(Int32Array.from(listRows), listValues), encodeCoordinatePostings(Int32Array.from(tailRows), tailValues)];
    const kept = [
      ...listRows.flatMap((row, entry) => (stale[row] === 1 || deleted[row] === 1 ? [] : [[positions[row] as number, listValues[entry] as number] as const])),
      ...tailRows.flatMap((row, entry) => (deleted[row] === 1 ? [] : [[positions[row] as number, tailValues[entry] as number] as const])),
    ].sort((left, right) => left[0] - right[0]);
    const expected = kept.length === 0 ? null : encodeCoordinatePostings(Int32Array.from(kept, ([row]) => row), Float32Array.from(kept, ([, value]) => value));
    const actual = coordinatePostingsAfterDeletion(blobs, storedPositions, firstChanged, positions);
    assert.deepEqual(actual === null ? null : actual?.toString('hex'), expected === null ? null : expected.toString('hex'), `trial ${trial}`);
  }
});

test('a list scattered into a dense matrix puts each value at its row\'s slot and coordinate, skipping flagged rows and rows without a slot, from any byte offset', () => {
  const blob = encodeCoordinatePostings(Int32Array.from([0, 2, 3, 300]), Float32Array.from([0.5, -1.25, 2, 7]));
  // Row 3 has no slot, row 2 is skipped; rows 0 and 300 land in matrix rows 1 and 0.
  const slot = new Int32Array(301).fill(-1);
  slot[0] = 1;
  slot[2] = 2;
  slot[300] = 0;
  const skip = new Uint8Array(3);
  skip[2] = 1;
  for (const offset of [0, 1, 3]) {
    // The same bytes at an offset whose values are not 4-aligned.
    const bytes = new Uint8Array(offset + blob.length);
    bytes.set(blob, offset);
    const matrix = new Float32Array(3 * 4);
    scatterCoordinatePostings(bytes.subarray(offset), 2, { matrix, dimensions: 4, slot, skip });
    assert.deepEqual(Array.from(matrix), [0, 0, 7, 0, 0, 0, 0.5, 0, 0, 0, 0, 0], `offset ${offset}`);
  }
});
