import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, test } from 'node:test';
import { finishTask } from '../../core/cooperative-task.js';
import { createNounPhraseExtractor, extractNounPhrases, extractNounPhrasesTask } from './noun-phrase-extractor.js';

// One extractor for the file: it keeps one wink-nlp instance, as a caller of several texts does.
const extractor = createNounPhraseExtractor();
const keys = (text: string): string[] => extractor.extract(text).mentions.map((mention) => mention.key);

describe('noun phrases of a corpus', () => {
  const texts = [
    'Mara Ellison crossed the Weir Bridge at dawn.',
    'The Kestermouth Brass Band played at the Harvest Festival.',
    'Captain Jonas Reed sailed from Porthkerris to the quay.',
  ];

  test('are those of each text alone when the corpus is one batch', () => {
    const extractions = finishTask(extractNounPhrasesTask(texts));
    assert.deepEqual(
      extractions.map((extraction) => extraction.mentions.map((mention) => mention.key)),
      texts.map(keys),
    );
  });

  test('are found in every batch when each batch has a fresh wink-nlp instance', () => {
    // One text per batch: three instances after the one the file's extractor made. The model's own metaCER handed every
    // instance after the first an encoded-twice pattern model, and none of them found a name.
    const extractions = finishTask(extractNounPhrasesTask(texts, undefined, 1));
    assert.deepEqual(
      extractions.map((extraction) => extraction.mentions.map((mention) => mention.key)),
      [
        ['mara ellison', 'weir bridge'],
        ['kestermouth brass band', 'harvest festival'],
        ['jonas reed', 'porthkerris'],
      ],
    );
  });

  test('report each text as it is done, and pause between texts', () => {
    const done: number[] = [];
    const task = extractNounPhrasesTask(texts, (count) => done.push(count), 60);
    let pauses = 0;
    for (let step = task.next(); step.done !== true; step = task.next()) pauses++;
    assert.deepEqual(done, [1, 2, 3]);
    assert.ok(pauses >= texts.length * 2, `a pause after every parse (${pauses})`);
  });
});

describe('text inside long runs without whitespace', () => {
  test('yields no candidates: base64, paths and glued lists are not names', () => {
    const base64 = Array.from({ length: 8 }, (_, line) => randomBytes(75 + line).toString('base64')).join('\n');
    assert.deepEqual(keys(base64), []);
    assert.deepEqual(keys('the minutes are in /usr/local/share/Kestermouth/Harbour/Weir-Bridge/records/minutes.txt today'), []);
  });

  test('leaves names in ordinary text, hyphenated ones included', () => {
    assert.deepEqual([...new Set(keys('Stratford-upon-Avon met Hewlett-Packard in Kestermouth.'))], ['stratford-upon-avon', 'hewlett-packard', 'kestermouth']);
  });
});

describe('names beyond the part-of-speech patterns (issue 40)', () => {
  const mention = (text: string, key: string) => extractor.extract(text).mentions.find((found) => found.key === key);
  /** The surfaces of the proper names found in `text`, in text order. */
  const surfaces = (text: string): string[] => extractor.extract(text).mentions.filter((found) => found.kind === 'proper').map((found) => found.surface);

  test('a title-case name holding words that are no proper nouns is one name, marked joined', () => {
    assert.equal(mention('Life Is What You Make It is a 2017 documentary film.', 'life is what you make it')?.joined, true);
    assert.ok(mention('He was King Constantine I until 1917.', 'constantine i'));
  });

  test('names joined by a preposition in prose stay apart, and a sentence-initial function word is no part of a name', () => {
    assert.equal(mention('Mara Ellison met Jonas Reed in Kestermouth.', 'jonas reed in kestermouth'), undefined);
    assert.equal(mention('In Kester Weir Bridge news, nothing.', 'in kester weir bridge'), undefined);
  });

  test('names joined by a preposition are one name as the subject their sentence defines', () => {
    assert.equal(mention('Thunder on the Hill is a 1951 American film noir directed by Douglas Sirk.', 'thunder on the hill')?.surface, 'Thunder on the Hill');
    assert.ok(mention('The Exploits of the Emden is a 1928 silent Australian film.', 'exploits of the emden'));
    assert.equal(mention('Mara Ellison met Jonas Reed in Kestermouth (a port) in May.', 'jonas reed in kestermouth'), undefined);
  });

  test('a name written with Latin letters beyond Latin-1 is one name, cut from the original text', () => {
    assert.equal(mention('Miloš Zličić( born 29 December 1999) is a Serbian football forward.', 'miloš zličić')?.surface, 'Miloš Zličić');
    assert.equal(mention('Michał Waszyński was a film director in Poland.', 'michał waszyński')?.surface, 'Michał Waszyński');
    assert.ok(mention('Bolesław IV of Legnica( ca. 1349 – 1394) was a Duke of Legnica.', 'bolesław iv of legnica'));
  });

  test('a name with its style after a comma is one name besides its parts', () => {
    const found = mention('William Alington, 3rd Baron Alington was an English peer.', 'william alington 3rd baron alington');
    assert.equal(found?.surface, 'William Alington, 3rd Baron Alington');
    assert.ok(mention('William Alington, 3rd Baron Alington was an English peer.', 'william alington'));
  });

  test('a hyphenated name is one mention: no title-case part of it ("Kim Jong") and no second copy of it', () => {
    assert.deepEqual(surfaces('Who is the wife of Kim Jong-chul?'), ['Kim Jong-chul']);
    assert.deepEqual(surfaces('Kim Jong-il was born in 1941.'), ['Kim Jong-il']);
    assert.deepEqual(surfaces('Who founded Hohenlohe-Langenburg?'), ['Hohenlohe-Langenburg']);
  });

  test('a part of a hyphenated name glued on its own is no name beside it ("Jean-Pierre" of "Jean-Pierre Rampal")', () => {
    assert.deepEqual(surfaces('Jean-Pierre Rampal was a French flautist.'), ['Jean-Pierre Rampal']);
    assert.deepEqual(surfaces('She joined Hewlett-Packard Enterprise in 2015.'), ['Hewlett-Packard Enterprise']);
    // Only the part goes: another name of the sentence stays.
    assert.deepEqual(surfaces('He met Jean-Pierre Rampal in Paris.'), ['Jean-Pierre Rampal', 'Paris']);
  });

  test('a roman numeral ending a sentence leaves its full stop out of the name', () => {
    assert.equal(mention('The first machine sold was the UNIVAC I.', 'univac i')?.surface, 'UNIVAC I');
  });
});

describe('a noun-phrase extractor of single texts', () => {
  const texts = ['Mara Ellison crossed the Weir Bridge at dawn.', 'The Kestermouth Brass Band played at the Harvest Festival.', 'Captain Jonas Reed sailed from Porthkerris.'];
  const keysOf = (found: ReturnType<typeof extractNounPhrases>): string[] => found.mentions.map((mention) => mention.key);

  test('replaces its wink-nlp instance after maxCharacters, so a long-lived one holds a bounded lexicon', () => {
    const small = createNounPhraseExtractor({ maxCharacters: 60 });
    const other = createNounPhraseExtractor();
    assert.equal(small.instances, 0, 'no instance before the first text');
    const found = texts.map((text) => keysOf(small.extract(text)));
    assert.equal(small.instances, 3, 'each text is over half the limit: a fresh instance for each');
    assert.deepEqual(
      texts.map((text) => keysOf(other.extract(text))),
      found,
      'an instance that read the texts before finds what fresh ones do',
    );
    assert.equal(other.instances, 1, 'an extractor within its limit keeps its instance');
    assert.equal(small.instances, 3, 'two extractors share no instance');
  });

  test('extractNounPhrases is one text read by an extractor of its own', () => {
    assert.deepEqual(keysOf(extractNounPhrases(texts[2] as string)), ['jonas reed', 'porthkerris']);
  });
});
