import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatWikidataTime } from './format-wikidata-time.js';

// Expected strings computed by hand from the reference's strftime patterns (wikidata/expand_edges.py).

test('day precision keeps the zero-padded day like strftime %d', () => {
  assert.equal(formatWikidataTime('1954-03-02T00:00:00Z', 11), 'March 02, 1954');
  assert.equal(formatWikidataTime('2001-12-25T00:00:00Z', 11), 'December 25, 2001');
  assert.equal(formatWikidataTime('+1954-03-02T00:00:00Z', 11), 'March 02, 1954');
});

test('month, year and decade precision', () => {
  assert.equal(formatWikidataTime('1948-06-01T00:00:00Z', 10), 'June 1948');
  assert.equal(formatWikidataTime('1911-01-01T00:00:00Z', 9), '1911');
  assert.equal(formatWikidataTime('1890-01-01T00:00:00Z', 8), '1890s');
});

test('century precision uses (year - 1) / 100 + 1 and English ordinals', () => {
  assert.equal(formatWikidataTime('0001-01-01T00:00:00Z', 7), '1st century');
  assert.equal(formatWikidataTime('0100-01-01T00:00:00Z', 7), '1st century');
  assert.equal(formatWikidataTime('0101-01-01T00:00:00Z', 7), '2nd century');
  assert.equal(formatWikidataTime('0250-01-01T00:00:00Z', 7), '3rd century');
  assert.equal(formatWikidataTime('1050-01-01T00:00:00Z', 7), '11th century');
  assert.equal(formatWikidataTime('1150-01-01T00:00:00Z', 7), '12th century');
  assert.equal(formatWikidataTime('1201-01-01T00:00:00Z', 7), '13th century');
  assert.equal(formatWikidataTime('1850-01-01T00:00:00Z', 7), '19th century');
  assert.equal(formatWikidataTime('2000-01-01T00:00:00Z', 7), '20th century');
  assert.equal(formatWikidataTime('2001-01-01T00:00:00Z', 7), '21st century');
  assert.equal(formatWikidataTime('2150-01-01T00:00:00Z', 7), '22nd century');
});

test('negative years are BCE at every precision', () => {
  assert.equal(formatWikidataTime('-0300-01-01T00:00:00Z', 7), '3rd century BCE');
  assert.equal(formatWikidataTime('-0044-03-15T00:00:00Z', 11), 'March 15, 44 BCE');
  assert.equal(formatWikidataTime('-0044-03-01T00:00:00Z', 10), 'March 44 BCE');
  assert.equal(formatWikidataTime('-0300-01-01T00:00:00Z', 9), '300 BCE');
  assert.equal(formatWikidataTime('-0490-01-01T00:00:00Z', 8), '490s BCE');
});

test('other precisions and unparseable values are returned as written', () => {
  assert.equal(formatWikidataTime('1954-03-02T00:00:00Z', 12), '1954-03-02T00:00:00Z');
  assert.equal(formatWikidataTime('-2000-01-01T00:00:00Z', 6), '-2000-01-01T00:00:00Z');
  assert.equal(formatWikidataTime('1954-00-00T00:00:00Z', 9), '1954-00-00T00:00:00Z');
  assert.equal(formatWikidataTime('1953-02-29T00:00:00Z', 11), '1953-02-29T00:00:00Z');
  assert.equal(formatWikidataTime('1952-02-29T00:00:00Z', 11), 'February 29, 1952');
  assert.equal(formatWikidataTime('-13798000000-01-01T00:00:00Z', 3), '-13798000000-01-01T00:00:00Z');
  assert.equal(formatWikidataTime('not a date', 11), 'not a date');
});
