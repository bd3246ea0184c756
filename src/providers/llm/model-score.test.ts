import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { z } from 'zod';
import { modelScore } from './model-score.js';

describe('modelScore', () => {
  it('is sent to the model as a number from 0 to the scale', () => {
    const schema = z.toJSONSchema(z.object({ score: modelScore(100, 'How good, 0 to 100') }), { unrepresentable: 'any' }) as { properties: Record<string, unknown> };
    assert.deepEqual(schema.properties['score'], { type: 'number', minimum: 0, maximum: 100, description: 'How good, 0 to 100' });
  });

  it('accepts what models send for a score: numbers, numeric strings, fractions of a scale, percentages, 0–1 confidences', () => {
    const score = modelScore();
    const accepted: Array<[unknown, number]> = [
      [85, 85],
      [0, 0],
      [1, 1],
      [100, 100],
      ['85', 85],
      [' 85.5 ', 85.5],
      ['"85"', 85],
      ['85/100', 85],
      ['8 / 10', 80],
      ['4 out of 5', 80],
      ['85%', 85],
      [0.85, 85],
      ['0.85', 85],
      [150, 100],
      [-3, 0],
      ['-3', 0],
    ];
    for (const [input, expected] of accepted) assert.equal(score.parse(input), expected, JSON.stringify(input));
    assert.equal(modelScore(5).parse('3/5'), 3, 'another scale');
  });

  it('refuses what is no score, so that the repair turn asks again', () => {
    const score = modelScore();
    for (const input of ['high', '', '85/0', 'about 85', null, undefined, {}, [85], Number.NaN, true]) {
      assert.equal(score.safeParse(input).success, false, JSON.stringify(input) ?? String(input));
    }
  });
});
