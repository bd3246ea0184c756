import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { extractNounPhrases } from './noun-phrase-extractor.js';
import { titleAlias, titleMentions, withTitleMentions } from './title-mentions.js';

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

  test('reads a title written with spaces around its hyphens, apostrophes and ampersands as detokenized texts write it', () => {
    const text = 'Anna of Brunswick- Grubenhagen- Einbeck was a daughter of Duke Eric I. Harry& Son is a film.';
    const extraction = extractNounPhrases(text);
    assert.deepEqual(
      titleMentions(text, extraction, 'Anna of Brunswick-Grubenhagen-Einbeck').map((mention) => [text.slice(mention.start, mention.end), mention.surface]),
      [['Anna of Brunswick- Grubenhagen- Einbeck', 'Anna of Brunswick-Grubenhagen-Einbeck']],
    );
    assert.deepEqual(titleMentions(text, extraction, 'Harry & Son').map((mention) => text.slice(mention.start, mention.end)), ['Harry& Son']);
  });

  test('an extraction stored before titles were read reads as the extractor left it', () => {
    const extraction = extractNounPhrases('Ada Lovelace wrote notes.');
    assert.deepEqual(withTitleMentions(extraction).mentions, extraction.mentions);
  });
});

describe('titleAlias', () => {
  const aliasOf = (title: string, text: string, opensDocument = true): string | undefined => {
    const extraction = extractNounPhrases(text);
    const alias = titleAlias(text, extraction, title, opensDocument);
    return alias && `${alias.surface} → ${text.slice(alias.start, alias.end)} (${alias.key})`;
  };

  test('makes a title its text never writes another name of the name the text opens with and defines', () => {
    const davis = 'Samuel George Davis MM (1871 – 1938) was a British soldier. Davis served in South Africa.';
    assert.equal(aliasOf('Sam Davis (soldier)', davis), 'Sam Davis → Samuel George Davis MM (samuel george davis mm)');
    assert.equal(
      aliasOf('Frederick I, Holy Roman Emperor', 'Frederick Barbarossa (December 1122 – 10 June 1190), also known as Frederick I, was the Holy Roman Emperor from 1155.'),
      'Frederick I, Holy Roman Emperor → Frederick Barbarossa (frederick barbarossa)',
    );
    assert.equal(aliasOf('Tunstall, Virginia', 'Tunstall is an unincorporated community in New Kent County, Virginia.'), 'Tunstall, Virginia → Tunstall (tunstall)');
    assert.equal(aliasOf('Sam Davis', davis, false), undefined, 'only the chunk that opens its document');
  });

  test('takes no title the text writes, no topic, no name the opening name does not share, and no part of a one-word name', () => {
    assert.equal(aliasOf('Tunstall', 'Tunstall is an unincorporated community.'), undefined, 'written: a title mention, not an alias');
    assert.equal(aliasOf('Python tips', 'Python is a programming language. Python has many libraries.'), undefined, 'a topic, not a name');
    assert.equal(aliasOf('Death of Garry Hoy', 'Garry Hoy was a lawyer who fell from a window in Toronto.'), undefined, 'about something else of the name');
    assert.equal(aliasOf('Christian August of Holstein', 'Christian was a prince who ruled Holstein.'), undefined, 'a first name is shared by every text');
    assert.equal(aliasOf('Meeting Notes', 'Alice Smith presented the budget. Bob Jones was late.'), undefined, 'no word in common');
    assert.equal(aliasOf('John Kelly', 'John or Jack Kelly may refer to several people.'), undefined, 'no defining sentence');
  });

  test('joins the graph\'s mentions only where aliases are on and the title is not kept apart', () => {
    const text = 'Samuel George Davis MM (1871 – 1938) was a British soldier.';
    const extraction = extractNounPhrases(text);
    const alias = titleAlias(text, extraction, 'Sam Davis', true);
    assert.ok(alias);
    const stored = { ...extraction, titleMentions: [], titleAlias: alias };
    const surfaces = (rules: Parameters<typeof withTitleMentions>[1]): string[] => withTitleMentions(stored, rules).mentions.map((mention) => mention.surface);
    assert.ok(surfaces({ titleAliases: true, keepApart: new Set() }).includes('Sam Davis'));
    assert.ok(!surfaces({ titleAliases: false, keepApart: new Set() }).includes('Sam Davis'));
    assert.ok(!surfaces({ titleAliases: true, keepApart: new Set(['sam davis']) }).includes('Sam Davis'));
  });
});
