import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { roundToTotal } from './round-to-total.js';

/** Sum in units of the last decimal, so that float addition does not blur the check. */
const tenths = (values: readonly number[]): number => values.reduce((sum, value) => sum + Math.round(value * 10), 0);

describe('roundToTotal', () => {
  it('gives the missing tenth to the largest remainder where rounding each alone sums to 99.9', () => {
    const thirds = [100 / 3, 100 / 3, 100 / 3];
    assert.equal(tenths(thirds.map((value) => Number(value.toFixed(1)))), 999, 'rounding alone loses a tenth');
    assert.deepEqual(roundToTotal(thirds, 100, 1), [33.4, 33.3, 33.3]);
  });

  it('takes the excess tenth where rounding each alone sums to 100.1', () => {
    const values = [16.66666, 16.66666, 66.66668];
    assert.equal(tenths(values.map((value) => Number(value.toFixed(1)))), 1001, 'rounding alone gains a tenth');
    const rounded = roundToTotal(values, 100, 1);
    assert.equal(tenths(rounded), 1000);
    assert.deepEqual(rounded, [16.7, 16.6, 66.7]);
  });

  it('keeps exact values, works for whole numbers, and tolerates floating-point excess', () => {
    assert.deepEqual(roundToTotal([50, 25, 25], 100, 1), [50, 25, 25]);
    assert.deepEqual(roundToTotal([100 / 3, 100 / 3, 100 / 3], 100, 0), [34, 33, 33]);
    assert.deepEqual(roundToTotal([0.1 + 0.2, 99.7 + 1e-9], 100, 1), [0.3, 99.7]);
  });
});
