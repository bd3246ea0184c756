import assert from 'node:assert/strict';
import { test } from 'node:test';
import { growthExponent, parseScaleBackends, parseScaleSizes } from '../bench/scale.js';

test('scale benchmark options: sizes, backends, and the growth exponent fit', () => {
  assert.deepEqual(parseScaleSizes(undefined), [1, 4, 16]);
  assert.deepEqual(parseScaleSizes('4,1,4'), [1, 4]);
  assert.throws(() => parseScaleSizes('1,x'), /--sizes takes positive integers/);
  assert.deepEqual(parseScaleBackends(undefined).map((backend) => backend.name), ['sqlite', 'postgres']);
  assert.deepEqual(parseScaleBackends('postgres, sqlite').map((backend) => backend.name), ['sqlite', 'postgres']);
  assert.deepEqual(parseScaleBackends('postgres').map((backend) => backend.name), ['postgres']);
  assert.throws(() => parseScaleBackends('mysql'), /--backends takes sqlite, postgres/);
  assert.equal(Math.round(growthExponent([{ x: 1, y: 3 }, { x: 4, y: 3 * 4 ** 1.2 }, { x: 16, y: 3 * 16 ** 1.2 }]) * 1000) / 1000, 1.2);
});
