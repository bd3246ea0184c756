import assert from 'node:assert/strict';
import { test } from 'node:test';
import { breakLongRuns } from './break-long-runs.js';

test('breakLongRuns leaves ordinary text alone and puts a space in every 256 characters of a longer run', () => {
  const ordinary = 'See https://example.org/a/rather/long/path?with=query&and=more for the Kester Weir Bridge (1947).';
  assert.equal(breakLongRuns(ordinary), ordinary);
  const run = '*'.repeat(600);
  const broken = breakLongRuns(`a ${run} b`);
  assert.equal(broken.length, run.length + 4);
  assert.deepEqual([...broken.matchAll(/ /g)].map((match) => match.index), [1, 258, 514, 602]);
  assert.equal(broken.replace(/ /g, '*'), `a*${run}*b`);
});

test('breakLongRuns never splits a surrogate pair', () => {
  const emoji = '🚀'.repeat(300);
  const broken = breakLongRuns(emoji);
  assert.equal(broken.length, emoji.length);
  assert.ok(!/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(broken), 'a lone surrogate');
  assert.ok(broken.includes(' '));
});
