import assert from 'node:assert/strict';
import { test } from 'node:test';
import { jaroWinkler } from './jaro-winkler.js';

/** Jaro–Winkler of a run of `length` equal letters followed by one differing letter on each side: all but one match. */
function runScore(length: number): number {
  const jaro = (2 * (length / (length + 1)) + 1) / 3;
  return jaro + 0.4 * (1 - jaro);
}

test('jaroWinkler gives the published scores (Winkler 1990)', () => {
  assert.equal(jaroWinkler('MARTHA', 'MARHTA').toFixed(3), '0.961');
  assert.equal(jaroWinkler('DWAYNE', 'DUANE').toFixed(3), '0.840');
  assert.equal(jaroWinkler('DIXON', 'DICKSONX').toFixed(3), '0.813');
});

test('jaroWinkler is the same for strings longer than its shared flags, and after them', () => {
  for (const length of [255, 256, 300, 5000]) {
    const score = jaroWinkler(`${'a'.repeat(length)}x`, `${'a'.repeat(length)}y`);
    assert.ok(Math.abs(score - runScore(length)) < 1e-12, `${length + 1} characters: ${score}`);
  }
  assert.equal(jaroWinkler('MARTHA', 'MARHTA').toFixed(3), '0.961');
});
