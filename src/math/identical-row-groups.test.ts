import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createRandom } from '../core/random.js';
import { identicalRowGroups } from './identical-row-groups.js';

test('identicalRowGroups groups rows with equal bytes, numbered by first row, members ascending', () => {
  const random = createRandom(3);
  const rows = 500;
  const dimensions = 6;
  const matrix = new Float32Array(rows * dimensions);
  for (let row = 0; row < rows; row++) {
    // Half the rows copy an earlier one; values from a small set, so that distinct rows share many words.
    const source = row > 0 && random() < 0.5 ? Math.floor(random() * row) : -1;
    for (let dim = 0; dim < dimensions; dim++) matrix[row * dimensions + dim] = source >= 0 ? matrix[source * dimensions + dim]! : Math.floor(random() * 3) / 2;
  }
  const groups = identicalRowGroups(matrix, rows, dimensions);
  const key = (row: number): string => Array.from(matrix.subarray(row * dimensions, (row + 1) * dimensions)).join(',');
  const firstOfKey = new Map<string, number>();
  for (let row = 0; row < rows; row++) if (!firstOfKey.has(key(row))) firstOfKey.set(key(row), row);
  assert.equal(groups.count, firstOfKey.size);
  assert.deepEqual(Array.from(groups.representatives), [...firstOfKey.values()]);
  for (let group = 0; group < groups.count; group++) {
    const members = Array.from(groups.members.subarray(groups.starts[group], groups.starts[group + 1]));
    assert.deepEqual(
      members,
      Array.from({ length: rows }, (_, row) => row).filter((row) => key(row) === key(groups.representatives[group]!)),
    );
    for (const row of members) assert.equal(groups.groupOf[row], group);
  }
});

test('identicalRowGroups keeps rows apart whose hashes collide, and tells 0 from −0', () => {
  // Over one word w the hash is (offset ^ w) · prime mod 2³², and its key the low 30 bits, which depend only on
  // the low 30 bits of w: 0, 2, −0 and −2 (bit patterns 0x00000000, 0x40000000, 0x80000000, 0xC0000000) share a key.
  const matrix = Float32Array.from([0, 2, -0, -2, 0, 2, -0, -2]);
  const groups = identicalRowGroups(matrix, 8, 1);
  assert.equal(groups.count, 4);
  assert.deepEqual(Array.from(groups.groupOf), [0, 1, 2, 3, 0, 1, 2, 3]);
  assert.deepEqual(Array.from(groups.members), [0, 4, 1, 5, 2, 6, 3, 7]);
});
