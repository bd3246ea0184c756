import assert from 'node:assert/strict';
import { test } from 'node:test';
import { foldLabel } from './fold-label.js';

test('foldLabel compares labels across case, width and spacing', () => {
  assert.equal(foldLabel('  The  Lantern\nKeeper '), 'the lantern keeper');
  assert.equal(foldLabel('ＵＫ'), 'uk');
});
