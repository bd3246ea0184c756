import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { foldLatinLetters } from './fold-latin-letters.js';

describe('foldLatinLetters', () => {
  it('replaces Latin letters beyond Latin-1 by their base letter, keeping every offset', () => {
    const text = 'Miloš Zličić, Michał Waszyński and Nguyễn Trãi met Đorđe in Łódź.';
    const folded = foldLatinLetters(text);
    assert.equal(folded, 'Milos Zlicic, Michal Waszynski and Nguyen Trãi met Dorde in Lódz.');
    assert.equal(folded.length, text.length);
  });

  it('leaves Latin-1, other scripts and plain text as they are', () => {
    assert.equal(foldLatinLetters('Rudolph Maté in Zürich'), 'Rudolph Maté in Zürich');
    assert.equal(foldLatinLetters('Фёдор 東京'), 'Фёдор 東京');
    const plain = 'Charles Babbage';
    assert.equal(foldLatinLetters(plain), plain);
  });
});
