import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { describe, test, type TestContext } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { Triple } from '../src/extract/triples/extracted-triples.js';
import { createNlpTripleExtractor } from '../src/extract/triples/nlp-triples.js';
import { normalizePhrase } from '../src/text/normalize-phrase.js';

/*
 * The LLM-free OpenIE on hand-written, Wikipedia-like sentences: one pattern per test, each checked for the
 * facts an OpenIE model would write and that HippoRAG-style retrieval needs (shared names as subjects).
 */

const extractor = createNlpTripleExtractor();

function triplesOf(text: string, title?: string): Triple[] {
  return extractor.extract(text, title).triples;
}

function assertHas(triples: readonly Triple[], expected: Triple): void {
  assert.ok(
    triples.some((triple) => triple.join('|') === expected.join('|')),
    `expected ${JSON.stringify(expected)} among\n${triples.map((triple) => JSON.stringify(triple)).join('\n')}`,
  );
}

describe('NLP triples', () => {
  test('subject – verb group – object, with the preposition in the predicate and dates as objects', () => {
    const triples = triplesOf('Marie Curie discovered polonium in 1898. The film was directed by Luis Mandoki and was not released in France.');
    assertHas(triples, ['Marie Curie', 'discovered', 'polonium']);
    assertHas(triples, ['Marie Curie', 'discovered in', '1898']);
    assertHas(triples, ['film', 'directed by', 'Luis Mandoki']);
    assertHas(triples, ['film', 'not released in', 'France']);
  });

  test('copula: "X is a Y", the determiner trimmed; the place of the complement', () => {
    const triples = triplesOf('Runmarö is an island in the Stockholm archipelago.');
    assertHas(triples, ['Runmarö', 'is', 'island']);
    assertHas(triples, ['Runmarö', 'is island in', 'Stockholm archipelago']);
  });

  test('"X of Y": Y has X, and a copula complement with "of" folds into the predicate', () => {
    const triples = triplesOf('Teutberga was a queen of Lotharingia. She was a daughter of Boso the Elder and sister of Hucbert.');
    assertHas(triples, ['Lotharingia', 'has', 'queen']);
    assertHas(triples, ['Teutberga', 'was queen of', 'Lotharingia']);
    assertHas(triples, ['Teutberga', 'was daughter of', 'Boso the Elder']);
    assertHas(triples, ['Teutberga', 'was sister of', 'Hucbert']);
  });

  test('apposition: "X, the Y of Z," makes X a Y of Z; the clause goes on with X as its subject', () => {
    const triples = triplesOf("Hucbert, the lay-abbot of St. Maurice's Abbey, founded a school in Reims.");
    assertHas(triples, ['Hucbert', 'is lay-abbot of', "St. Maurice's Abbey"]);
    assertHas(triples, ['Hucbert', 'founded', 'school']);
    assertHas(triples, ['Hucbert', 'founded in', 'Reims']);
  });

  test('"He", "his" and "the film" at the start of later sentences are the passage subject', () => {
    const lambert = triplesOf('Lambert was the second son of Adalbert II of Tuscany. He succeeded his elder brother, Guy, as duke of Lucca. His mother was Bertha.');
    assertHas(lambert, ['Lambert', 'was second son of', 'Adalbert II of Tuscany']);
    assertHas(lambert, ['Lambert', 'succeeded', 'Guy']);
    assertHas(lambert, ['Guy', 'is elder brother of', 'Lambert']);
    assertHas(lambert, ['Bertha', 'is mother of', 'Lambert']);
    assert.ok(!lambert.some(([subject]) => /^(he|his)$/i.test(subject)), 'no pronoun is left as a subject');

    const film = triplesOf('The Fly (1986 film)\nThe Fly is a 1986 American horror film directed by David Cronenberg. The film stars Jeff Goldblum. It was released by 20th Century Fox.', 'The Fly (1986 film)');
    assertHas(film, ['The Fly', 'is', '1986 American horror film']);
    assertHas(film, ['The Fly', 'directed by', 'David Cronenberg']);
    assertHas(film, ['The Fly', 'stars', 'Jeff Goldblum']);
    assertHas(film, ['The Fly', 'released by', '20th Century Fox']);
  });

  test('the document title is one name where the text writes it, and "she" refers to it', () => {
    const triples = triplesOf('Gaby: A True Story\nGaby: A True Story is a 1987 drama film. It was written by Michael Love.', 'Gaby: A True Story');
    assertHas(triples, ['Gaby: A True Story', 'is', '1987 drama film']);
    assertHas(triples, ['Gaby: A True Story', 'written by', 'Michael Love']);
  });

  test('life dates in parentheses; a lone year is only a date', () => {
    const person = triplesOf('Etan Boritzer (born 1950) is an American writer. Ermengarde of Tours (d. 20 March 851) was the daughter of Hugh of Tours.');
    assertHas(person, ['Etan Boritzer', 'born in', '1950']);
    assertHas(person, ['Etan Boritzer', 'is', 'American writer']);
    assertHas(person, ['Ermengarde of Tours', 'died on', '20 March 851']);
    assertHas(person, ['Ermengarde of Tours', 'was daughter of', 'Hugh of Tours']);
    const range = triplesOf('Alfred Smith (1850–1910) was a painter.');
    assertHas(range, ['Alfred Smith', 'born in', '1850']);
    assertHas(range, ['Alfred Smith', 'died in', '1910']);
    assertHas(triplesOf('The Kester Weir Bridge (1938) crosses the river.'), ['Kester Weir Bridge', 'dated', '1938']);
  });

  test('named entities are the proper-noun spans, name connectors included, each once', () => {
    const { entities } = extractor.extract('Bertha was the wife of Adalbert II of Tuscany. In 915 Bertha ruled Lucca and Tuscany with Adalbert II of Tuscany.');
    assert.deepEqual(entities, ['Bertha', 'Adalbert II of Tuscany', 'Lucca', 'Tuscany']);
  });

  test('is deterministic: the same texts in the same order give the same triples with a fresh extractor', () => {
    const texts = ['Lambert was the son of Adalbert. He ruled Lucca.', "Kester's Mill (1850) was built by Harold Marle's father."];
    const first = texts.map((text) => createNlpTripleExtractor().extract(text));
    const again = createNlpTripleExtractor();
    assert.deepEqual(
      texts.map((text) => again.extract(text)),
      first,
    );
  });
});

/** The subject is the title's entity as the text writes it: "Joseph Bradley Story" for "Joe Story" counts, by its first and last word. */
function namesTitle(subject: string, title: string): boolean {
  const name = normalizePhrase(title.replace(/\s*\([^)]*\)$/, '')).split(' ');
  const words = normalizePhrase(subject).split(' ');
  const contains = (outer: string[], inner: string[]): boolean => inner.every((word) => outer.includes(word));
  return contains(words, name) || contains(name, words) || (words[words.length - 1] === name[name.length - 1] && words[0]?.[0] === name[0]?.[0]);
}

const twoWiki = fileURLToPath(new URL('../../shared/datasets/2wiki-corpus/corpus.json', import.meta.url));
const twoWikiSkip = existsSync(twoWiki) ? false : `the shared datasets are absent (${twoWiki}); set up ../shared/datasets to run this test`;

describe('NLP triples on the 2Wiki corpus', () => {
  test('extracts the 6,119 passages, most passages with facts about their title (time in the diagnostic; measured in bench)', { skip: twoWikiSkip }, (t: TestContext) => {
    const corpus = JSON.parse(readFileSync(twoWiki, 'utf8')) as Array<{ title: string; text: string }>;
    const started = performance.now();
    const fresh = createNlpTripleExtractor();
    let triples = 0;
    let aboutTitle = 0;
    let empty = 0;
    for (const passage of corpus) {
      const result = fresh.extract(`${passage.title}\n${passage.text}`, passage.title);
      triples += result.triples.length;
      if (result.triples.length === 0) empty++;
      if (result.triples.some(([subject]) => namesTitle(subject, passage.title))) aboutTitle++;
    }
    const seconds = (performance.now() - started) / 1000;
    t.diagnostic(`2Wiki: ${corpus.length} passages, ${triples} triples (${(triples / corpus.length).toFixed(1)} per passage), ${aboutTitle} passages with a fact whose subject is their title, ${empty} without triples, in ${seconds.toFixed(1)} s`);
    assert.equal(corpus.length, 6119);
    assert.ok(triples / corpus.length > 8, 'about as many facts per passage as an OpenIE model writes');
    assert.ok(aboutTitle / corpus.length > 0.9, 'passages about one entity share its phrase node');
    assert.ok(empty / corpus.length < 0.05);
  });
});
