import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createRandom } from '../../core/random.js';
import { buildVectorSweepsModule } from './vector-sweeps-module.js';
import { VectorArena } from './vector-arena.js';

function filled(arena: VectorArena, seed: number): Float64Array {
  const random = createRandom(seed);
  const vector = arena.alloc();
  for (let index = 0; index < vector.length; index++) vector[index] = random() * 2 - 1;
  return vector;
}

function naiveDot(a: Float64Array, b: Float64Array): number {
  let sum = 0;
  for (let index = 0; index < a.length; index++) sum += (a[index] as number) * (b[index] as number);
  return sum;
}

function assertNear(actual: number, expected: number, context: string): void {
  assert.ok(Math.abs(actual - expected) <= 1e-12 * Math.max(1, Math.abs(expected)), `${context}: ${actual} vs ${expected}`);
}

describe('VectorArena', () => {
  test('the SIMD module validates on this engine', () => {
    assert.equal(WebAssembly.validate(buildVectorSweepsModule()), true);
  });

  // Odd and even lengths (the scalar tail), and list lengths around the group of four.
  for (const n of [1, 2, 7, 64, 1001]) {
    for (const count of [0, 1, 3, 4, 5, 9]) {
      test(`dots and combinations of ${count} vectors of length ${n} match a plain loop, in memory and out`, () => {
        const arena = new VectorArena(n, count + 2);
        const inMemory = Array.from({ length: count }, (_, index) => filled(arena, 10 + index));
        const w = filled(arena, 3);
        // The same values in ordinary arrays take the JavaScript path.
        const ordinary = inMemory.map((vector) => Float64Array.from(vector));
        const plainW = Float64Array.from(w);
        const coefficients = Float64Array.from({ length: count }, (_, index) => 0.25 * index - 0.5);

        const fast = new Float64Array(count);
        const slow = new Float64Array(count);
        arena.dots(w, inMemory, fast);
        arena.dots(plainW, ordinary, slow);
        for (let k = 0; k < count; k++) {
          const expected = naiveDot(plainW, ordinary[k] as Float64Array);
          assertNear(fast[k] as number, expected, `simd dot ${k}`);
          assertNear(slow[k] as number, expected, `js dot ${k}`);
        }

        const expected = Float64Array.from(plainW);
        for (let k = 0; k < count; k++) for (let index = 0; index < n; index++) expected[index] = (expected[index] as number) - (coefficients[k] as number) * ((ordinary[k] as Float64Array)[index] as number);
        arena.addCombination(w, inMemory, coefficients, -1, count);
        arena.addCombination(plainW, ordinary, coefficients, -1, count);
        for (let index = 0; index < n; index++) {
          // Both add the terms of an entry in list order, as the plain loop does: equal bit for bit.
          assert.equal(w[index], expected[index], `simd entry ${index}`);
          assert.equal(plainW[index], expected[index], `js entry ${index}`);
        }
      });
    }
  }

  test('a combination of the first vectors of a longer list leaves the rest out', () => {
    const arena = new VectorArena(5, 4);
    const vectors = [filled(arena, 1), filled(arena, 2), filled(arena, 3)];
    const w = arena.alloc();
    arena.addCombination(w, vectors, Float64Array.of(2, 1, 1), 1, 1);
    assert.deepEqual(Array.from(w), Array.from(vectors[0] as Float64Array, (value) => 2 * value));
  });

  test('a full arena hands out ordinary zeroed arrays, and a released slot is reused zeroed', () => {
    const arena = new VectorArena(3, 2);
    const first = filled(arena, 1);
    const second = filled(arena, 2);
    const third = arena.alloc();
    assert.notEqual(third.buffer, first.buffer);
    assert.deepEqual(Array.from(third), [0, 0, 0]);
    // Mixed lists take the JavaScript path and are still right.
    const out = new Float64Array(2);
    third.set([1, 2, 3]);
    arena.dots(third, [first, second], out);
    assertNear(out[0] as number, naiveDot(third, first), 'mixed dot');
    arena.release(first);
    const reused = arena.alloc();
    assert.equal(reused.buffer, second.buffer);
    assert.deepEqual(Array.from(reused), [0, 0, 0]);
  });
});
