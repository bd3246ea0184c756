import { createRandom } from '../src/core/random.js';
import type { Passage } from './scale-corpus.js';

/*
 * Questions about the 2Wiki corpus in 2WikiMultihopQA's own templates (its questions are made from Wikidata by
 * templates: compositional "Where was the director of film X born?", comparison "Which film came out first, X or
 * Y?", …), filled with titles of the corpus' film and person passages. The shared data has the corpus but not its
 * questions; a latency benchmark that must never ask a question twice in one process needs more of them than the
 * eight written by hand (`twoWikiQuestions`), and they must fit the corpus, so that every method finds seeds in it.
 */

/** A film passage: "X is a 1969 Yugoslav feature film directed by …" (not "… is an Argentine film director"). */
const filmPattern = /^[^.]*\b(is|was) an? [^.]*\bfilm\b(?!\s*(director|producer|maker|editor|critic|actor|actress|composer|score|studio|company|festival|series))/;
/** A person passage: "Rabah Khaloufi( 17 January 1943 – 19 May 2014) was …", "Owen Story( born 3 August 1984 …". */
const personPattern = /^[^.]{0,80}\(\s*(born|died|c\.|\d{1,2} \w+ \d{3,4}|\d{3,4})/;

const filmTemplates: ReadonlyArray<(film: string) => string> = [
  (film) => `Who is the director of film ${film}?`,
  (film) => `Where was the director of film ${film} born?`,
  (film) => `What nationality is the director of film ${film}?`,
  (film) => `When did the director of film ${film} die?`,
  (film) => `Who is the mother of the director of film ${film}?`,
  (film) => `Who is the spouse of the director of film ${film}?`,
];
const filmPairTemplates: ReadonlyArray<(first: string, second: string) => string> = [
  (first, second) => `Which film came out first, ${first} or ${second}?`,
  (first, second) => `Which film has the director born first, ${first} or ${second}?`,
  (first, second) => `Are the directors of films ${first} and ${second} from the same country?`,
];
const personTemplates: ReadonlyArray<(person: string) => string> = [
  (person) => `Where was ${person} born?`,
  (person) => `When did ${person} die?`,
  (person) => `What nationality is ${person}?`,
  (person) => `Who is the father of ${person}?`,
];
const personPairTemplates: ReadonlyArray<(first: string, second: string) => string> = [
  (first, second) => `Who was born first, ${first} or ${second}?`,
  (first, second) => `Are both ${first} and ${second} from the same country?`,
  (first, second) => `Who died later, ${first} or ${second}?`,
];

/** A title as a question names it: without its disambiguation ("Dark River (2017 film)" → "Dark River"). */
function questionName(title: string): string {
  return title.replace(/\s*\([^)]*\)\s*$/, '').trim();
}

/** A generated question and the titles of the passages it names (its first hop). */
export interface GeneratedTwoWikiQuestion {
  question: string;
  /** Every corpus title whose question name the question uses. */
  titles: string[];
}

/**
 * `count` distinct questions about `passages` (2Wiki's corpus), in a seeded order: each names one or two film or
 * person titles of the corpus in one of 2WikiMultihopQA's templates (single-entity and pair templates alternate).
 */
export function generatedTwoWikiQuestions(passages: readonly Passage[], count: number, seed = 36): string[] {
  return generatedTwoWikiQuestionsWithTitles(passages, count, seed).map((generated) => generated.question);
}

/** {@link generatedTwoWikiQuestions}, each with the titles of the passages it names. */
export function generatedTwoWikiQuestionsWithTitles(passages: readonly Passage[], count: number, seed = 36): GeneratedTwoWikiQuestion[] {
  const titlesOfName = new Map<string, string[]>();
  for (const passage of passages) {
    const name = questionName(passage.title);
    titlesOfName.set(name, [...(titlesOfName.get(name) ?? []), passage.title]);
  }
  const names = (pattern: RegExp, test: (passage: Passage) => string): string[] => [
    ...new Set(passages.filter((passage) => pattern.test(test(passage))).map((passage) => questionName(passage.title)).filter((name) => name.length > 1)),
  ];
  const people = names(personPattern, (passage) => passage.text);
  const peopleSet = new Set(people);
  const films = names(filmPattern, (passage) => passage.text).filter((name) => !peopleSet.has(name));
  if (films.length < 2 || people.length < 2) throw new Error(`the corpus has too few film (${films.length}) or person (${people.length}) passages for 2Wiki questions`);
  const random = createRandom(seed);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)] as T;
  const questions = new Map<string, string[]>();
  const add = (question: string, ...named: string[]): void => {
    if (!questions.has(question)) questions.set(question, [...new Set(named.flatMap((name) => titlesOfName.get(name) ?? []))]);
  };
  // Each draw can repeat an earlier question; far more draws than questions asked would mean the corpus is too small.
  for (let draw = 0; questions.size < count; draw++) {
    if (draw > 20 * count) throw new Error(`only ${questions.size} distinct 2Wiki questions in ${draw} draws, ${count} wanted`);
    const kind = draw % 4;
    if (kind === 0) {
      // The template is drawn before the name, as the draws have always been made (the same seed, the same questions).
      const template = pick(filmTemplates);
      const film = pick(films);
      add(template(film), film);
    } else if (kind === 1) {
      const template = pick(personTemplates);
      const person = pick(people);
      add(template(person), person);
    } else if (kind === 2) {
      const [first, second] = [pick(films), pick(films)];
      if (first !== second) add(pick(filmPairTemplates)(first, second), first, second);
    } else {
      const [first, second] = [pick(people), pick(people)];
      if (first !== second) add(pick(personPairTemplates)(first, second), first, second);
    }
  }
  return [...questions].map(([question, titles]) => ({ question, titles }));
}
