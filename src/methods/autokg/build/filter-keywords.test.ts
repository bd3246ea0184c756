import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { filterKeywords, keywordCompareKey, trimKeyword } from './filter-keywords.js';
import { parseKeywordReply } from './parse-keyword-reply.js';

describe('filterKeywords', () => {
  test('removes keywords containing another one, case-insensitively, keeping the shorter', () => {
    assert.deepEqual(filterKeywords(['plastic Recycling', 'recycling', 'Waste management', 'waste', 'Styrofoam']), ['recycling', 'waste', 'Styrofoam']);
  });

  test('the substring filter reaches the fixed point of the reference forward and backward passes', () => {
    assert.deepEqual(filterKeywords(['a b c', 'b c', 'c', 'd']), ['c', 'd']);
  });

  test('deduplicates by the process_strings key (case, whitespace, punctuation), first occurrence wins', () => {
    assert.deepEqual(filterKeywords(['Car-wash', 'car wash', 'CARWASH', 'Square'], { substringFilter: false }), ['Car-wash', 'Square']);
    assert.equal(keywordCompareKey(' Car-Wash! '), 'carwash');
  });

  test('trims spaces, quotes, bullets and trailing punctuation, and drops keywords over l2 words', () => {
    assert.equal(trimKeyword(' "Localization techniques". '), 'Localization techniques');
    assert.equal(trimKeyword('3. Ore beneficiation'), 'Ore beneficiation');
    assert.deepEqual(filterKeywords([' Localization techniques', 'one two three four', ''], { maxWords: 3 }), ['Localization techniques']);
  });
});

describe('parseKeywordReply', () => {
  test('reads comma lists with a trailing period, as the reference did', () => {
    assert.deepEqual(parseKeywordReply('Mineral processing, Gold plant, Ore beneficiation.'), ['Mineral processing', 'Gold plant', 'Ore beneficiation']);
  });

  test('reads numbered and bulleted lines, semicolons, a lead-in and a fence', () => {
    assert.deepEqual(parseKeywordReply('Keywords:\n1. Car wash\n2) Town square\n- Market day; Fair'), ['Car wash', 'Town square', 'Market day', 'Fair']);
    assert.deepEqual(parseKeywordReply('```\nBridge, River\n```'), ['Bridge', 'River']);
    assert.deepEqual(parseKeywordReply('Your response: Bridge, River'), ['Bridge', 'River']);
  });

  test('an empty reply is an empty list', () => {
    assert.deepEqual(parseKeywordReply('  \n '), []);
  });
});
