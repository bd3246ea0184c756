import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { extractNounPhrases } from './noun-phrase-extractor.js';
import { titleMentions, withTitleMentions } from './title-mentions.js';

describe('titleMentions', () => {
  test('reads a title the tagger cuts apart as one name, wherever the text writes it, without its bracket or article', () => {
    const text = "Man's Favorite Sport? is a 1964 American comedy film directed by Howard Hawks. Hawks said Man's Favorite Sport? was his last comedy.";
    const extraction = extractNounPhrases(text);
    assert.ok(!extraction.mentions.some((mention) => mention.key === 'man favorite sport'), 'the tagger alone does not find it');
    const found = titleMentions(text, extraction, "Man's Favorite Sport? (film)");
    assert.deepEqual(
      found.map((mention) => [mention.key, text.slice(mention.start, mention.end), mention.kind, mention.sentence]),
      [
        ['man favorite sport', "Man's Favorite Sport?", 'proper', 0],
        ['man favorite sport', "Man's Favorite Sport?", 'proper', 2],
      ],
    );
    const merged = withTitleMentions({ ...extraction, titleMentions: found });
    assert.deepEqual(
      merged.mentions.map((mention) => mention.start),
      merged.mentions.map((mention) => mention.start).sort((a, b) => a - b),
      'in text order',
    );
    const theFly = 'The Fly is a 1986 film.';
    assert.deepEqual(titleMentions(theFly, extractNounPhrases(theFly), 'The Fly').map((mention) => mention.surface), [], 'the extractor already has "Fly"');
  });

  test('takes no title in lower case, no part of a word, and no other case', () => {
    const text = 'The Parisian press wrote about paris and about PARIS.';
    const extraction = extractNounPhrases(text);
    assert.deepEqual(titleMentions(text, extraction, 'Paris'), []);
    assert.deepEqual(titleMentions(text, extraction, 'about'), []);
    assert.deepEqual(titleMentions(text, extraction, undefined), []);
  });

  test('an extraction stored before titles were read reads as the extractor left it', () => {
    const extraction = extractNounPhrases('Ada Lovelace wrote notes.');
    assert.deepEqual(withTitleMentions(extraction).mentions, extraction.mentions);
  });
});
