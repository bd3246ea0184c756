import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { jaroWinkler } from './jaro-winkler.js';
import { nameSimilarity, prepareName } from './name-similarity.js';
import { normalizeEntityName } from './normalize-entity-name.js';

describe('normalizeEntityName', () => {
  const cases: Array<[string, string]> = [
    ['  Sherlock   HOLMES. ', 'sherlock holmes'],
    ['"The Beatles"', 'beatles'],
    ['“Holmes”', 'holmes'],
    ['ｓｈｅｒｌｏｃｋ', 'sherlock'],
    ['Jean-Luc Picard', 'jean luc picard'],
    ['Procter & Gamble', 'procter and gamble'],
    ['U.S.A.', 'usa'],
    ['J.R.R. Tolkien', 'jrr tolkien'],
    ['Dr. John H. Watson', 'john h watson'],
    ['Prof. Dr. Ada Lovelace', 'ada lovelace'],
    ['The The', 'the'],
  ];
  for (const [input, expected] of cases) {
    it(`${JSON.stringify(input)} → ${JSON.stringify(expected)}`, () => assert.equal(normalizeEntityName(input), expected));
  }

  it('keeps an honorific before a bare surname, where it may be what tells two people apart', () => {
    assert.equal(normalizeEntityName('Mr. Holmes'), 'mr holmes');
    assert.equal(normalizeEntityName('Mrs. Hudson'), 'mrs hudson');
    assert.notEqual(normalizeEntityName('Mr. Smith'), normalizeEntityName('Mrs. Smith'));
    assert.equal(normalizeEntityName('Mr. and Mrs. Smith'), 'mr and mrs smith');
  });

  it('keeps "Mrs" before a full name: "Mrs Leonard Cotterill" is his wife', () => {
    assert.equal(normalizeEntityName('Mrs Leonard Cotterill'), 'mrs leonard cotterill');
    assert.notEqual(normalizeEntityName('Mrs Leonard Cotterill'), normalizeEntityName('Leonard Cotterill'));
    assert.equal(normalizeEntityName('Dr. Ada Lovelace'), 'ada lovelace');
  });

  it('keeps symbols that are part of names and what changes the referent', () => {
    assert.equal(normalizeEntityName('C++'), 'c++');
    assert.equal(normalizeEntityName('C#'), 'c#');
    assert.equal(normalizeEntityName('AT&T'), 'at&t');
    assert.equal(normalizeEntityName("McDonald's"), "mcdonald's");
    assert.equal(normalizeEntityName('Apple Inc.'), 'apple inc');
    assert.equal(normalizeEntityName('John Smith Jr.'), 'john smith jr');
    assert.equal(normalizeEntityName('General Motors'), 'general motors');
  });

  it('returns an empty key for a name without usable characters', () => {
    assert.equal(normalizeEntityName('...'), '');
    assert.equal(normalizeEntityName('  '), '');
  });
});

describe('nameSimilarity', () => {
  const similarity = (a: string, b: string): number => nameSimilarity(prepareName(a), prepareName(b));

  it('scores contained, misspelt, initialled and acronym names', () => {
    assert.equal(similarity('Holmes', 'Sherlock Holmes'), 1);
    assert.equal(similarity('Mr. Holmes', 'Holmes'), 1);
    assert.equal(similarity('Mc Donald', 'McDonald'), 1);
    assert.ok(Math.abs(similarity('J. Watson', 'John Watson') - 0.9) < 1e-9);
    assert.ok(similarity('Sherlok Holmes', 'Sherlock Holmes') > 0.95);
    assert.equal(similarity('FBI', 'Federal Bureau of Investigation'), 0.9);
  });

  it('keeps different people and unrelated words apart', () => {
    assert.equal(similarity('Mycroft Holmes', 'Sherlock Holmes'), 0.5);
    assert.equal(similarity('Sherlock', 'Sherwood'), 0);
    assert.equal(similarity('Bank of England', 'Museum of London'), 0);
    assert.equal(similarity('J', 'John'), 0, 'an initial alone is no evidence');
  });

  it('is symmetric', () => {
    for (const [a, b] of [['J. Watson', 'John Watson'], ['Holmes', 'Sherlock Holmes'], ['FBI', 'Federal Bureau of Investigation']] as const) {
      assert.equal(similarity(a, b), similarity(b, a));
    }
  });

  it('computes Jaro–Winkler as published', () => {
    assert.ok(Math.abs(jaroWinkler('martha', 'marhta') - 0.9611) < 1e-4);
    assert.ok(Math.abs(jaroWinkler('dwayne', 'duane') - 0.84) < 1e-4);
    assert.equal(jaroWinkler('abc', 'abc'), 1);
    assert.equal(jaroWinkler('abc', ''), 0);
  });
});
