import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createRandom } from '../core/random.js';
import { plainSentence } from './plain-sentence.js';

describe('plainSentence', () => {
  test('leaves headings, list and quote markers, emphasis and link targets out, and collapses whitespace', () => {
    assert.equal(plainSentence('# The Analytical Engine\nHe then conceived **a machine**.'), 'He then conceived a machine.');
    assert.equal(plainSentence('- an item with `code` and [a link](http://x.y)'), 'an item with code and a link');
    assert.equal(plainSentence('> 1. quoted, numbered'), 'quoted, numbered');
    assert.equal(plainSentence('  A  sentence\twith   spaces. '), 'A sentence with spaces.');
    assert.equal(plainSentence('2.5 million people live there.'), '2.5 million people live there.');
    assert.equal(plainSentence('10) tenth'), 'tenth');
    assert.equal(plainSentence('+ plus'), 'plus');
    assert.equal(plainSentence('==='), '');
    assert.equal(plainSentence(' \t '), '');
  });

  test('a sentence without markdown or line breaks reads as the same sentence with a line break after it', () => {
    // A trailing line break takes the full path (the line it opens is empty and dropped), so this checks the short
    // path for prose against it, over strings made of what that path must treat as the full one does.
    const random = createRandom(38);
    const alphabet = ['a', 'B', 'é', ' ', ' ', '\t', '\u00a0', '\u2028', '-', '+', '1', '2', '.', ')', '=', '!', '(', ']'];
    for (let trial = 0; trial < 5000; trial++) {
      const length = Math.floor(random() * 12);
      let raw = '';
      for (let index = 0; index < length; index++) raw += alphabet[Math.floor(random() * alphabet.length)];
      assert.equal(plainSentence(raw), plainSentence(`${raw}\n`), JSON.stringify(raw));
    }
  });
});
