import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { emIn, exactMatch, f1Score, normalizeAnswer } from './answer-metrics.js';

describe('normalizeAnswer', () => {
  it('lower-cases, drops punctuation and articles, collapses whitespace', () => {
    assert.equal(normalizeAnswer('  The  Eiffel-Tower, in Paris! '), 'eiffeltower in paris');
    assert.equal(normalizeAnswer('A cat and an owl'), 'cat and owl');
    assert.equal(normalizeAnswer('Theatre anthem'), 'theatre anthem', 'articles only as whole words');
  });

  it('drops Unicode punctuation like ASCII punctuation', () => {
    assert.equal(normalizeAnswer('“Don’t Stop” — 1977…'), normalizeAnswer('"Don\'t Stop" - 1977...'));
    assert.equal(normalizeAnswer('«Ça va»'), 'ça va');
    assert.equal(normalizeAnswer('¿Qué?'), 'qué');
  });

  it('keeps diacritics but unifies composed and decomposed forms', () => {
    assert.equal(normalizeAnswer('Jose\u0301'), normalizeAnswer('Jos\u00e9'));
    assert.notEqual(normalizeAnswer('José'), normalizeAnswer('Jose'));
    assert.equal(normalizeAnswer('ALÛ'), 'alû');
  });

  it('keeps non-ASCII symbols', () => {
    assert.equal(normalizeAnswer('25 °C'), '25 °c');
  });
});

describe('exactMatch', () => {
  it('compares normalized text, taking the best alias', () => {
    assert.equal(exactMatch('the Stanley Hall.', ['G. Stanley Hall', 'Stanley Hall']), 1);
    assert.equal(exactMatch('Stanley', ['G. Stanley Hall', 'Stanley Hall']), 0);
    assert.equal(exactMatch('“Yes”', ['yes']), 1);
  });

  it('is null without gold answers, ignoring blank ones', () => {
    assert.equal(exactMatch('x', []), null);
    assert.equal(exactMatch('x', ['  ']), null);
  });

  it('matches an answer that normalizes to nothing only with an equally empty prediction', () => {
    assert.equal(exactMatch('the', ['The']), 1);
    assert.equal(exactMatch('cat', ['The']), 0);
  });
});

describe('f1Score', () => {
  it('is the token-overlap F1 of SQuAD', () => {
    // prediction tokens: stanley hall was psychologist (4); gold: g stanley hall (3); common 2.
    // precision 2/4, recall 2/3, F1 = 2·(1/2)(2/3)/(1/2 + 2/3) = 4/7.
    assert.ok(Math.abs((f1Score('Stanley Hall was a psychologist', ['G. Stanley Hall']) ?? 0) - 4 / 7) < 1e-12);
    assert.equal(f1Score('Paris', ['London']), 0);
  });

  it('counts repeated tokens as a multiset', () => {
    // prediction: new new york (3); gold: new york (2); common 2 → precision 2/3, recall 1, F1 = 0.8.
    assert.ok(Math.abs((f1Score('new new york', ['New York']) ?? 0) - 0.8) < 1e-12);
  });

  it('takes the maximum over aliases', () => {
    assert.equal(f1Score('Stanley Hall', ['Granville Stanley Hall', 'Stanley Hall']), 1);
  });

  it('handles empty normalized text and missing golds', () => {
    assert.equal(f1Score('', ['Paris']), 0);
    assert.equal(f1Score('a', ['the']), 1);
    assert.equal(f1Score('Paris', []), null);
  });
});

describe('emIn', () => {
  it('with wholeWords a gold answer counts only as whole words of the prediction', () => {
    assert.equal(emIn('Jingdezhen is in northeastern Jiangxi.', ['no']), 1, "Tree-of-Traversals' substring test");
    assert.equal(emIn('Jingdezhen is in northeastern Jiangxi.', ['no'], { wholeWords: true }), 0);
    assert.equal(emIn('No, they are in different states.', ['no'], { wholeWords: true }), 1);
    assert.equal(emIn('It was founded by the Sangre de Cristo mission.', ['Sangre de Cristo'], { wholeWords: true }), 1);
  });
  it('is 1 when a normalized alias is contained in the normalized prediction', () => {
    assert.equal(emIn('I think it was G. Stanley Hall, in 1892.', ['G. Stanley Hall']), 1);
    assert.equal(emIn('It was Stanley Hall.', ['G. Stanley Hall', 'Stanley Hall']), 1, 'one alias is enough');
    assert.equal(emIn('It was Hall.', ['G. Stanley Hall', 'Stanley Hall']), 0);
    assert.equal(emIn('The answer is “The Beatles”.', ['the beatles']), 1);
  });

  it('gives partial credit on multi-answer questions, counting distinct answers', () => {
    const golds = ['France', 'Spain', 'Andorra', 'france'];
    assert.equal(emIn('France and Spain', golds, { multiAnswer: true }), 2 / 3);
    assert.equal(emIn('France, Spain, Andorra', golds, { multiAnswer: true }), 1);
    assert.equal(emIn('Portugal', golds, { multiAnswer: true }), 0);
  });

  it('accepts aliases for each answer of a multi-answer question', () => {
    const golds = [['United States', 'USA'], ['United Kingdom', 'UK']];
    assert.equal(emIn('The USA and France', golds, { multiAnswer: true }), 0.5);
  });

  it('is null without gold answers and does not let an empty answer match everything', () => {
    assert.equal(emIn('anything', []), null);
    assert.equal(emIn('anything', [], { multiAnswer: true }), null);
    assert.equal(emIn('anything', ['The']), 0);
  });
});
