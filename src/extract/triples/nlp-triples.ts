import type { ItemEntity } from 'wink-nlp';
import { appendAll } from '../../core/append-all.js';
import { breakLongRuns } from '../../text/break-long-runs.js';
import { createWinkNlp, type WinkNlp } from '../nlp-graph/create-wink-nlp.js';
import { normalizePhrase } from '../../text/normalize-phrase.js';
import { monthAbbreviations, monthNames } from '../../text/calendar-words.js';
import type { Triple, TripleExtraction } from './extracted-triples.js';

/*
 * LLM-free OpenIE: sentence-level patterns over wink-nlp part-of-speech tags, so that HippoRAG-style
 * retrieval (phrase nodes linked by facts, personalized PageRank) works without a model. The patterns
 * are the ones an OpenIE model mostly writes for encyclopedic text:
 *
 *   subject – verb group (+ preposition) – object    "X was born in Y"        → (X, born in, Y)
 *   copula                                          "X is a Y" / "X was Y of Z" → (X, is, Y) / (X, was Y of, Z)
 *   apposition                                      "X, the Y of Z,"         → (X, is Y of, Z)
 *   life dates                                      "X (born 1950)"          → (X, born in, 1950)
 *   "X of Y" and "Y's X"                            "queen of Lotharingia"   → (Lotharingia, has, queen)
 *
 * Arguments are proper-noun spans (with name connectors: "Adalbert II of Tuscany", "Boso the Elder"),
 * common noun phrases without their determiners, and dates or numbers as objects. "He", "she", "it",
 * "they" and "his", and "the film" where the passage has called its subject a film, are the passage's
 * subject: the subject of its first sentence when that is a name agreeing with the document title, else the
 * title without its "(disambiguation)". This cheap coreference is what lets the passages about one entity
 * share its phrase node. The document title is also read as one name wherever the text writes it.
 */

/** Bumped when the extractor's output changes, so that stored triples are recomputed. */
export const nlpTripleExtractorVersion = 1;

/**
 * Extracts triples from texts. wink-nlp's lexicon grows with every text an instance reads (a token that once
 * reached its unknown-word path whole is afterwards looked up whole), so a text's tokens can depend on the
 * texts read before it by the same extractor — in 2Wiki's 6,119 passages, a dozen change with the order, and
 * reading everything once beforehand does not remove that. Create one extractor per batch and feed it the
 * texts in a canonical order (the triples step sorts chunks by id): the result is then a function of the set
 * of texts.
 */
export interface NlpTripleExtractor {
  /** Named entities (proper-noun spans) and triples of one text; `title` is its document's title, if any. */
  extract(text: string, title?: string): TripleExtraction;
}

/** Named-entity types of wink-nlp that make a date or number argument. */
const numericEntityTypes = new Set(['DATE', 'TIME', 'DURATION', 'CARDINAL', 'MONEY', 'PERCENT']);
const monthWords = new Set([...monthNames, ...monthAbbreviations]);
/** Words that join two proper nouns into one name ("University of Paris", "Ludwig van Beethoven"). */
const nameConnectors = new Set(['of', 'de', 'del', 'della', 'di', 'du', 'des', 'van', 'von', 'der', 'den', 'la', 'le', 'y', 'da', 'dos', 'upon', 'am', 'sur']);
const definiteDeterminers = new Set(['the', 'this', 'that']);
const subjectPronouns = new Set(['he', 'she', 'it', 'they']);
const objectPronouns = new Set(['him', 'her', 'them', 'it']);
const possessivePronouns = new Set(['his', 'her', 'its', 'their']);
const relativePronouns = new Set(['who', 'which', 'whom']);
const beForms = new Set(['is', 'was', 'are', 'were', 'be', 'been', 'being', "'s", '’s', "'re", "'m", 'am']);
const negations = new Set(['not', "n't", 'n’t', 'never']);
const clauseBoundaries = new Set([';', ':']);
/** Prepositions that place a copula's complement ("an island in …", "a professor at …"). */
const locativePrepositions = new Set(['in', 'at', 'near', 'on', 'from']);
/** Words that start a new clause whatever wink tags them; `clauseConjunctions` only when tagged as conjunctions. */
const clauseWords = new Set(['where', 'whereby', 'whereas', 'when', 'while', 'whilst', 'because', 'although', 'though', 'unless']);
const clauseConjunctions = new Set(['if', 'since', 'after', 'before', 'until', 'once', 'as']);
const possessiveMarks = new Set(["'s", '’s', "'", '’']);
const hyphens = new Set(['-', '–', '—']);
/** Participles that make compound adjectives after a hyphen ("Australian-born", "London-based"). */
const compoundSecondWords = new Set(['born', 'based', 'owned', 'made', 'run', 'led', 'backed', 'bred', 'raised', 'language', 'speaking']);
const starringWords = new Set(['stars', 'starring', 'co-stars', 'co-starring']);
const openingQuotes = new Set(['"', '“']);
const closingQuotes = new Set(['"', '”']);
/** Longest quoted span read as a title ("What is God?"), in tokens. */
const maxQuotedTitleTokens = 12;
const romanNumeral = /^(?:[IVX]{1,5}|[IVX]{1,5}\.)$/;
const hasLetter = /\p{L}/u;
/** Longest argument kept, in words: longer spans are tagging accidents, not entities. */
const maxArgumentWords = 10;

/** A noun phrase, proper name, date or pronoun of a sentence. */
interface Arg {
  kind: 'arg';
  text: string;
  /** Its head is a proper noun. */
  proper: boolean;
  /** A date or number. */
  date: boolean;
  /** Written with "the", "this" or "that": may refer back to the passage's subject ("the film"). */
  definite?: boolean;
  /** Lower-cased pronoun, for arguments that are one. */
  pronoun?: string;
  /** "Y" of "Y's X" or "his X" (a pronoun argument). */
  possessor?: Arg;
  /** Proper or date arguments of "X of Y1 and Y2". */
  tails: Arg[];
  /** Token index after the argument (and after an apposition or parenthesis attached to it). */
  next: number;
}

type Item =
  | Arg
  | { kind: 'verb'; text: string; copula: boolean }
  | { kind: 'prep'; text: string }
  | { kind: 'conj' }
  | { kind: 'comma' }
  | { kind: 'boundary' }
  | { kind: 'relative' }
  | { kind: 'other' };

type Fact = [subject: Arg, predicate: string, object: Arg | string];

/** The wink-nlp view of one text. */
interface Tokens {
  values: string[];
  lower: string[];
  tags: string[];
  /** Whitespace before each token. */
  spaces: string[];
  starts: Int32Array;
  ends: Int32Array;
  /** Token is part of a wink date or number entity. */
  numeric: Uint8Array;
  /** Token is only part of a CARDINAL entity (a count that may modify a noun: "eight children"). */
  cardinal: Uint8Array;
  /** Token is part of an ORDINAL entity ("first", "second"), a modifier inside noun phrases. */
  ordinal: Uint8Array;
}

/** Characters of text one wink-nlp instance of the triple extractor reads before it moves to a fresh one. */
const charactersPerInstance = 4_000_000;

/**
 * Creates an extractor with its own wink-nlp instances, whose lexicons nothing else touches. wink-nlp's lexicon grows
 * by every word it has not seen, so after `charactersPerInstance` characters the next text starts a fresh instance: the
 * memory it holds is bounded, and the result still depends only on the texts given and their order.
 */
export function createNlpTripleExtractor(): NlpTripleExtractor {
  // Sentiment and negation marking are not needed and cost a fifth of the parse.
  const createNlp = (): WinkNlp => createWinkNlp(['sbd', 'pos', 'ner']);
  let nlp = createNlp();
  const its = nlp.its;
  let characters = 0;

  function tokenize(text: string): { tokens: Tokens; sentences: Array<[number, number]> } {
    if (characters > 0 && characters + text.length > charactersPerInstance) {
      nlp = createNlp();
      characters = 0;
    }
    characters += text.length;
    // Same length and offsets; a run of thousands of characters without whitespace would make wink's tokenizer quadratic.
    const document = nlp.readDoc(breakLongRuns(text));
    const values = document.tokens().out() as string[];
    const spaces = document.tokens().out(its.precedingSpaces) as string[];
    const tags = document.tokens().out(its.pos) as string[];
    const count = values.length;
    const starts = new Int32Array(count);
    const ends = new Int32Array(count);
    let offset = 0;
    for (let index = 0; index < count; index++) {
      offset += (spaces[index] ?? '').length;
      starts[index] = offset;
      offset += (values[index] ?? '').length;
      ends[index] = offset;
    }
    const numeric = new Uint8Array(count);
    const cardinal = new Uint8Array(count);
    const ordinal = new Uint8Array(count);
    document.entities().each((entity: ItemEntity) => {
      const type = entity.out(its.type) as string;
      const [first, last] = entity.out(its.span) as [number, number];
      if (type === 'ORDINAL') ordinal.fill(1, first, last + 1);
      if (!numericEntityTypes.has(type)) return;
      numeric.fill(1, first, last + 1);
      if (type === 'CARDINAL') cardinal.fill(1, first, last + 1);
    });
    const lower = values.map((value) => value.toLowerCase());
    for (let index = 0; index < count; index++) {
      // "Lothair I", "Hermann II": wink tags a roman numeral after a name as a pronoun or a number.
      if (romanNumeral.test(values[index] ?? '') && tags[index - 1] === 'PROPN') tags[index] = 'PROPN';
      // "… and stars Jeff Goldblum": film passages use these as verbs, which wink tags as nouns.
      if (starringWords.has(lower[index] ?? '') && tags[index + 1] === 'PROPN') tags[index] = 'VERB';
      // A month next to a number is part of the date even where wink's entity stops short ("March 925").
      if (monthWords.has(lower[index] ?? '') && (numeric[index - 1] === 1 || numeric[index + 1] === 1)) {
        numeric[index] = 1;
        cardinal[index] = 0;
      }
    }
    const sentences: Array<[number, number]> = [];
    for (const [first, last] of document.sentences().out(its.span) as Array<[number, number]>) {
      // Line breaks end sentences too: a title line, a list item or a heading is no part of the next line.
      let start = first;
      for (let index = first; index <= last; index++) {
        const breaks = tags[index] === 'SPACE' || (spaces[index] ?? '').includes('\n');
        if (!breaks) continue;
        if (index > start) sentences.push([start, index - 1]);
        start = tags[index] === 'SPACE' ? index + 1 : index;
      }
      if (start <= last) sentences.push([start, last]);
    }
    return { tokens: { values, lower, tags, spaces, starts, ends, numeric, cardinal, ordinal }, sentences };
  }

  return {
    extract(text, title) {
      const { tokens, sentences } = tokenize(text);
      return extractFromTokens(text, tokens, sentences, title);
    },
  };
}

/** The sentence-level analysis of one tokenized text. */
function extractFromTokens(text: string, tokens: Tokens, sentences: ReadonlyArray<[number, number]>, title: string | undefined): TripleExtraction {
  const { values, lower, tags, spaces, starts, ends, numeric, cardinal, ordinal } = tokens;
  const entityByKey = new Map<string, string>();
  const facts: Fact[] = [];
  let sentenceStart = 0;
  let sentenceEnd = -1;
  // "The Fly is a 1986 film": a title's own article is part of the name, also at the start of a sentence.
  const titleHasThe = /^the\s/i.test(title ?? '');
  // Only the title without its "(disambiguation)": that is the name the text uses.
  const titleForms = [title?.replace(/\s*\([^)]*\)\s*$/, '').trim()].filter((form): form is string => form !== undefined && /\s/.test(form));

  const tag = (index: number): string => (index <= sentenceEnd ? (tags[index] ?? '') : '');
  const word = (index: number): string => (index <= sentenceEnd ? (lower[index] ?? '') : '');
  const surface = (first: number, last: number): string => text.slice(starts[first] ?? 0, ends[last] ?? 0);
  const isNominal = (index: number): boolean => {
    const current = tag(index);
    return current === 'NOUN' || current === 'PROPN' || current === 'ADJ' || (current === 'NUM' && !numeric[index]) || (index <= sentenceEnd && ordinal[index] === 1);
  };
  const isHead = (index: number): boolean => {
    const current = tag(index);
    return current === 'NOUN' || current === 'PROPN' || current === 'NUM';
  };
  const isNumeric = (index: number): boolean => index <= sentenceEnd && numeric[index] === 1;
  const modifiesNoun = (first: number, last: number): boolean => {
    for (let index = first; index <= last; index++) if (monthWords.has(lower[index] ?? '')) return false;
    if (cardinal.subarray(first, last + 1).every((flag) => flag === 1) && (tag(last + 1) === 'NOUN' || tag(last + 1) === 'ADJ')) return true;
    if (last !== first || !/^\d{4}$/.test(values[first] ?? '')) return false;
    let head = -1;
    for (let index = last + 1; isNominal(index) || (hyphens.has(values[index] ?? '') && isNominal(index + 1)); index++) if (isHead(index)) head = index;
    return head !== -1 && tag(head) === 'NOUN';
  };

  const makeArg = (first: number, last: number, next: number): Arg | undefined => {
    if (last < first || last - first + 1 > maxArgumentWords * 2) return undefined;
    const value = surface(first, last)
      .replace(/\s+/g, ' ')
      .replace(/['’]s$/, '')
      .replace(/(\b[IVX]{1,5})\.$/, '$1');
    if (!hasLetter.test(value) && !isNumeric(last)) return undefined;
    const proper = tag(last) === 'PROPN';
    return { kind: 'arg', text: value, proper, date: false, tails: [], next };
  };

  const noteEntity = (value: string): void => {
    const key = normalizePhrase(value);
    if (key.length > 1 && !entityByKey.has(key)) entityByKey.set(key, value);
  };

  /** A date or number run of wink's date and number entities; a dash ends it ("1950–2010" is two dates). */
  const parseDate = (first: number): Arg | undefined => {
    let last = first;
    while (isNumeric(last + 1) && !hyphens.has(values[last + 1] ?? '')) last++;
    const arg = makeArg(first, last, last + 1);
    if (!arg) return undefined;
    arg.date = true;
    arg.proper = false;
    return arg;
  };

  /**
   * The argument starting at token `first`, with what attaches to it: "of" tails of a common head, a
   * possessor, a parenthesis with life dates, an apposition. `undefined` when no noun phrase starts there.
   */
  const parseArg = (first: number, options: { apposition?: boolean } = {}): Arg | undefined => {
    let index = first;
    let possessor: Arg | undefined;
    const pronoun = word(index);
    if (tag(index) === 'PRON') {
      if ((subjectPronouns.has(pronoun) || objectPronouns.has(pronoun)) && !isNominal(index + 1)) {
        return { kind: 'arg', text: values[index] ?? pronoun, proper: false, date: false, pronoun, tails: [], next: index + 1 };
      }
      if (!possessivePronouns.has(pronoun) || !isNominal(index + 1)) return undefined;
      possessor = { kind: 'arg', text: values[index] ?? pronoun, proper: false, date: false, pronoun, tails: [], next: index + 1 };
      index++;
    }
    let definite = false;
    while (tag(index) === 'DET' && word(index) !== 'that' && !(values[index] === 'The' && tag(index + 1) === 'PROPN' && (index !== sentenceStart || titleHasThe))) {
      if (definiteDeterminers.has(word(index))) definite = true;
      index++;
    }
    let start = index;
    if (isNumeric(index)) {
      let last = index;
      while (isNumeric(last + 1) && !hyphens.has(values[last + 1] ?? '')) last++;
      // A count or a year before a noun modifies the noun phrase ("eight children", "a 1986 American film"),
      // and a year starts an event's name ("the 1984 Summer Olympics").
      const startsName = tag(last + 1) === 'PROPN' && (index > first || /\p{Lu}/u.test(values[last] ?? ''));
      if (!startsName && !modifiesNoun(index, last)) return withAttachments(parseDate(index), options);
      index = last + 1;
    }
    let lastHead = -1;
    let cursor = index;
    while (cursor <= sentenceEnd) {
      const value = word(cursor);
      if (isNominal(cursor)) {
        if (isHead(cursor)) lastHead = cursor;
        cursor++;
        continue;
      }
      if (hyphens.has(values[cursor] ?? '') && (spaces[cursor] ?? '') === '' && cursor > start && isNominal(cursor - 1)) {
        if (isNominal(cursor + 1)) {
          cursor++;
          continue;
        }
        if (compoundSecondWords.has(word(cursor + 1))) {
          cursor += 2;
          continue;
        }
      }
      if (possessiveMarks.has(value) && lastHead === cursor - 1) {
        // "St. Maurice's Abbey" is one name, as is "children's literature"; "Theodred's consecration" is a
        // consecration owned by Theodred.
        if ((tag(cursor - 1) === 'PROPN' && tag(cursor + 1) === 'PROPN') || (tag(cursor - 1) !== 'PROPN' && isNominal(cursor + 1))) {
          cursor++;
          continue;
        }
        if (isNominal(cursor + 1)) {
          possessor = makeArg(start, cursor - 1, cursor + 1) ?? possessor;
          start = cursor + 1;
          lastHead = -1;
          cursor++;
          continue;
        }
        break;
      }
      if (lastHead === cursor - 1 && tag(cursor - 1) === 'PROPN') {
        // Name connectors: "Adalbert II of Tuscany", "Lothair I of the Franks", "Boso the Elder".
        let after = cursor;
        if (nameConnectors.has(value)) after++;
        if (word(after) === 'the') after++;
        if (after > cursor && tag(after) === 'PROPN') {
          cursor = after;
          continue;
        }
      }
      break;
    }
    if (lastHead < start) return undefined;
    let arg = makeArg(start, lastHead, lastHead + 1);
    if (!arg) return undefined;
    if (possessor) arg.possessor = possessor;
    if (definite && !possessor) arg.definite = true;
    // "his brother Boso", "the American writer John Smith": the name is the argument, the rest describes it.
    if (tag(lastHead) === 'PROPN') {
      let nameStart = lastHead;
      while (nameStart > start && (tag(nameStart - 1) === 'PROPN' || nameConnectors.has(word(nameStart - 1)) || word(nameStart - 1) === 'the')) nameStart--;
      while (tag(nameStart) !== 'PROPN') nameStart++;
      if (nameStart > start && tag(nameStart - 1) === 'NOUN') {
        const description = makeArg(start, nameStart - 1, nameStart);
        const name = makeArg(nameStart, lastHead, lastHead + 1);
        if (description && name) {
          if (possessor) description.possessor = possessor;
          describe(name, description);
          arg = name;
        }
      }
    }
    let next = arg.next;
    if (!arg.proper && word(next) === 'of') {
      const tail = parseArg(next + 1);
      if (tail && !tail.pronoun) {
        if (tail.proper || tail.date) {
          arg.tails.push(tail);
          next = tail.next;
          // "regent of Lucca and Tuscany": coordinated names share the head.
          for (;;) {
            let after = next;
            let bareComma = false;
            if (values[after] === ',' && after <= sentenceEnd) {
              after++;
              bareComma = true;
            }
            if (word(after) === 'and' || word(after) === 'or') {
              after++;
              bareComma = false;
            }
            if (after === next) break;
            const more = tag(after) === 'PROPN' ? parseArg(after, { apposition: false }) : undefined;
            if (!more || !more.proper) break;
            // A comma joins names only inside a list that goes on ("Lucca, Tuscany and Spoleto"), not before an
            // apposition ("count of Keldachgau, Vogt of Deutz from 1008").
            if (bareComma && !(values[more.next] === ',' || word(more.next) === 'and' || word(more.next) === 'or')) break;
            arg.tails.push(more);
            next = more.next;
          }
          for (const owner of arg.tails) if (!owner.date) facts.push([owner, 'has', arg.text]);
        } else {
          arg.text = `${arg.text} of ${tail.text}`;
          arg.tails = tail.tails;
          next = tail.next;
        }
      }
    }
    if (arg.possessor && !arg.possessor.pronoun && arg.tails.length === 0) facts.push([arg.possessor, 'has', arg.text]);
    if (arg.possessor?.proper) noteEntity(arg.possessor.text);
    if (arg.proper) noteEntity(arg.text);
    arg.next = next;
    return withAttachments(arg, options);
  };

  const firstContentToken = (from: number): number => {
    let index = from;
    while (tag(index) === 'DET' || tag(index) === 'PRON') index++;
    return index;
  };

  /** Records "name is description" (an apposition), folding a description with "of" tails or a possessor. */
  const describe = (name: Arg, description: Arg): void => {
    if (description.tails.length > 0) {
      for (const tail of description.tails) facts.push([name, `is ${description.text.toLowerCase()} of`, tail]);
    } else if (description.possessor) {
      facts.push([name, `is ${description.text.toLowerCase()} of`, description.possessor]);
    } else {
      facts.push([name, 'is', description.text]);
    }
  };

  /** Life dates in a parenthesis after a name, and appositions ("X, the Y of Z,"). */
  const withAttachments = (arg: Arg | undefined, options: { apposition?: boolean }): Arg | undefined => {
    if (!arg || arg.pronoun) return arg;
    if (values[arg.next] === '(' && arg.next <= sentenceEnd && !arg.date) {
      let close = arg.next + 1;
      while (close <= sentenceEnd && values[close] !== ')') close++;
      if (close <= sentenceEnd) {
        lifeDates(arg, arg.next + 1, close - 1);
        arg.next = close + 1;
      }
    }
    if (options.apposition === false || values[arg.next] !== ',' || arg.next > sentenceEnd || arg.date) return arg;
    const other = parseArg(arg.next + 1, { apposition: false });
    if (!other || other.pronoun || other.date) return arg;
    const after = other.next;
    const closes = after > sentenceEnd || values[after] === ',' || values[after] === '.' || values[after] === ')' || clauseBoundaries.has(values[after] ?? '');
    const determined = tag(firstContentToken(arg.next + 1)) !== tag(arg.next + 1) || tag(arg.next + 1) === 'DET';
    if (arg.proper && !other.proper && closes && (determined || other.tails.length > 0)) {
      describe(arg, other);
      arg.next = values[after] === ',' ? after + 1 : after;
      return arg;
    }
    if (arg.proper && other.proper && values[after] === ',' && (tag(after + 1) === 'VERB' || tag(after + 1) === 'AUX')) {
      describe(arg, other);
      arg.next = after + 1;
      return arg;
    }
    // "his elder brother, Guy," — the name stands for the description.
    if (!arg.proper && other.proper && closes && (arg.possessor || determined)) {
      describe(other, arg);
      other.next = after;
      return other;
    }
    return arg;
  };

  /**
   * "(born 1950)", "(d. 20 March 851)", "(795–855)", "(born 3 May 1950 in Paris)"; a lone date with neither
   * a word nor a range ("Kester Weir Bridge (1938)") is only "dated".
   */
  const lifeDates = (arg: Arg, first: number, last: number): void => {
    if (!arg.proper) return;
    let event: 'born' | 'died' | undefined = 'born';
    let explicit = false;
    let range = false;
    let qualifier: string | undefined;
    const found: Fact[] = [];
    const savedEnd = sentenceEnd;
    sentenceEnd = last;
    try {
      for (let index = first; index <= last; ) {
        const value = word(index);
        if (value === 'born' || value === 'b.' || value === 'née') {
          event = 'born';
          explicit = true;
          index++;
          continue;
        }
        if (value === 'died' || value === 'd.' || value === 'death') {
          event = 'died';
          explicit = true;
          index++;
          continue;
        }
        if (hyphens.has(values[index] ?? '')) {
          if (!explicit) event = 'died';
          range = true;
          index++;
          continue;
        }
        if (tag(index) === 'ADP' && value !== 'in' && isNumeric(index + 1)) {
          // "(died after 938)", "(born c. 1200)": the qualifier stays in the predicate.
          qualifier = value;
          index++;
          continue;
        }
        if (isNumeric(index) && event) {
          const date = parseDate(index);
          if (date) {
            found.push([arg, `${event} ${qualifier ?? (/^\d{3,4}$/.test(date.text) ? 'in' : 'on')}`, date]);
            qualifier = undefined;
            index = date.next;
            continue;
          }
        }
        if (value === 'in' && tag(index + 1) === 'PROPN' && event) {
          const place = parseArg(index + 1, { apposition: false });
          if (place?.proper) {
            found.push([arg, `${event} in`, place]);
            index = place.next;
            continue;
          }
        }
        if (tag(index) === 'PROPN') {
          const name = parseArg(index, { apposition: false });
          if (name) {
            index = name.next;
            continue;
          }
        }
        index++;
      }
    } finally {
      sentenceEnd = savedEnd;
    }
    if (explicit || range) appendAll(facts, found);
    else for (const [, , date] of found) facts.push([arg, 'dated', date]);
  };

  /** The last token of the document title written from token `first` on, or -1. */
  const titleAt = (first: number): number => {
    for (const candidate of titleForms) {
      if (!candidate.startsWith(values[first] ?? '\u0000') || !text.startsWith(candidate, starts[first] ?? 0)) continue;
      const end = (starts[first] ?? 0) + candidate.length;
      for (let index = first; index <= sentenceEnd; index++) {
        if ((ends[index] ?? 0) === end) return index > first ? index : -1;
        if ((ends[index] ?? 0) > end) break;
      }
    }
    return -1;
  };

  /** The items of one sentence: arguments, verb groups, prepositions and punctuation that matters. */
  const sentenceItems = (first: number, last: number): Item[] => {
    sentenceStart = first;
    sentenceEnd = last;
    const items: Item[] = [];
    let index = first;
    while (index <= last) {
      const current = tag(index);
      const value = word(index);
      if ((relativePronouns.has(value) || (value === 'that' && (tag(index + 1) === 'AUX' || tag(index + 1) === 'VERB'))) && current !== 'ADP') {
        items.push({ kind: 'relative' });
        index++;
        continue;
      }
      if (current === 'AUX' || current === 'VERB' || (negations.has(value) && (tag(index + 1) === 'AUX' || tag(index + 1) === 'VERB'))) {
        const group = verbGroup(index);
        items.push(group.item);
        index = group.next;
        continue;
      }
      if (current === 'ADP' || (current === 'PART' && value === 'to')) {
        items.push({ kind: 'prep', text: value });
        index++;
        continue;
      }
      if (current === 'CCONJ') {
        items.push({ kind: 'conj' });
        index++;
        continue;
      }
      if (value === ',') {
        items.push({ kind: 'comma' });
        index++;
        continue;
      }
      if (clauseBoundaries.has(value) || clauseWords.has(value) || (current === 'SCONJ' && clauseConjunctions.has(value))) {
        items.push({ kind: 'boundary' });
        index++;
        continue;
      }
      const titleEnd = titleAt(index);
      if (titleEnd !== -1) {
        // The document's title, where the text writes it, is one name whatever its words are tagged
        // ("Gaby: A True Story is a 1987 film").
        const name = surface(index, titleEnd);
        noteEntity(name);
        const arg = withAttachments({ kind: 'arg', text: name, proper: true, date: false, tails: [], next: titleEnd + 1 }, {});
        if (arg) items.push(arg);
        index = arg?.next ?? titleEnd + 1;
        continue;
      }
      if (openingQuotes.has(value)) {
        // A short quoted span is a title of a work ("his book "What is God?""), not a clause.
        let close = index + 1;
        while (close <= last && close - index <= maxQuotedTitleTokens && !closingQuotes.has(values[close] ?? '')) close++;
        const quoted = close <= last && closingQuotes.has(values[close] ?? '') && close > index + 1 ? surface(index + 1, close - 1).trim() : '';
        if (/^[\p{Lu}\p{N}]/u.test(quoted)) {
          noteEntity(quoted);
          items.push({ kind: 'arg', text: quoted, proper: true, date: false, tails: [], next: close + 1 });
          index = close + 1;
          continue;
        }
      }
      if (value === '(') {
        // A parenthesis that no argument claimed is an aside: its names are entities, its words no clause.
        let close = index + 1;
        while (close <= last && values[close] !== ')') close++;
        for (let inner = index + 1; inner < close; inner++) {
          if (tag(inner) !== 'PROPN') continue;
          const name = parseArg(inner, { apposition: false });
          if (name) inner = name.next - 1;
        }
        index = close + 1;
        continue;
      }
      const arg = parseArg(index);
      if (arg && arg.next > index) {
        items.push(arg);
        index = arg.next;
        continue;
      }
      items.push({ kind: 'other' });
      index++;
    }
    return items;
  };

  /** A verb group: auxiliaries, negation and verbs; the predicate keeps the main verb and "not". */
  const verbGroup = (first: number): { item: Item; next: number } => {
    const words: Array<{ value: string; main: boolean; be: boolean }> = [];
    let index = first;
    while (index <= sentenceEnd) {
      const current = tag(index);
      const value = word(index);
      if (current === 'AUX' || current === 'VERB') {
        words.push({ value, main: current === 'VERB', be: current === 'AUX' && beForms.has(value) });
        index++;
        continue;
      }
      if (negations.has(value)) {
        words.push({ value: 'not', main: false, be: false });
        index++;
        continue;
      }
      if (current === 'ADV' && (tag(index + 1) === 'VERB' || tag(index + 1) === 'AUX' || tag(index + 1) === 'ADV')) {
        index++;
        continue;
      }
      if (current === 'PART' && value === 'to' && tag(index + 1) === 'VERB') {
        words.push({ value: 'to', main: false, be: false });
        index++;
        continue;
      }
      break;
    }
    const hasMain = words.some((entry) => entry.main);
    const last = words[words.length - 1];
    if (!hasMain && last?.be) {
      const negated = words.some((entry) => entry.value === 'not');
      const copula = last.value === 'was' || last.value === 'were' ? last.value : words.some((entry) => entry.value === 'was' || entry.value === 'were') ? 'was' : 'is';
      return { item: { kind: 'verb', text: negated ? `${copula} not` : copula, copula: true }, next: index };
    }
    const kept = hasMain ? words.filter((entry) => entry.main || entry.value === 'not' || entry.value === 'to') : words.slice(-1);
    const text = kept.map((entry) => entry.value).join(' ');
    return { item: { kind: 'verb', text, copula: false }, next: index };
  };

  const parsed = sentences.map(([first, last]) => {
    sentenceEnd = last;
    return { items: sentenceItems(first, last), end: last };
  });

  const cleanTitle = title?.replace(/\s*\([^)]*\)\s*$/, '').trim() || undefined;
  const passageSubject = choosePassageSubject(parsed.map((sentence) => sentence.items), cleanTitle);
  if (passageSubject) noteEntity(passageSubject);
  // Head nouns the passage uses to describe its subject ("… is a 1986 American film"), so that "the film"
  // later in the passage is the subject too.
  const descriptions = new Set<string>();
  // A passage that opens with "The film was released …" names its subject only in its title.
  const opening = openingSubject(parsed.map((sentence) => sentence.items));
  if (cleanTitle && opening?.definite && !opening.proper && wordCount(opening.text) <= 2) descriptions.add(lastWord(opening.text));
  const subjectArg = (next: number): Arg => ({ kind: 'arg', text: passageSubject ?? '', proper: true, date: false, tails: [], next });
  const resolve = (arg: Arg): Arg | undefined => {
    if (!arg.pronoun) {
      const refersBack = arg.definite && passageSubject && arg.tails.length === 0 && wordCount(arg.text) <= 2 && descriptions.has(lastWord(arg.text));
      return refersBack ? subjectArg(arg.next) : arg;
    }
    if (!subjectPronouns.has(arg.pronoun) && !objectPronouns.has(arg.pronoun) && !possessivePronouns.has(arg.pronoun)) return undefined;
    return passageSubject ? subjectArg(arg.next) : undefined;
  };
  const describesSubject = (subject: Arg, complement: Arg): void => {
    if (subject.text === passageSubject && !complement.proper && !complement.date && !complement.pronoun) descriptions.add(lastWord(complement.text));
  };

  for (const { items } of parsed) clauseFacts(items, resolve, describesSubject, facts);

  const triples: Triple[] = [];
  const seen = new Set<string>();
  for (const [subjectArg, predicate, objectValue] of facts) {
    const subject = resolve(subjectArg);
    const objectArg = typeof objectValue === 'string' ? undefined : resolve(objectValue);
    if (!subject || subject.date) continue;
    const object = typeof objectValue === 'string' ? objectValue : objectArg?.text;
    if (object === undefined) continue;
    // Lower case is enough to drop repeats here; phrase nodes are normalized where they are built.
    const subjectKey = subject.text.toLowerCase();
    const objectKey = object.toLowerCase();
    const relation = predicate.replace(/\s+/g, ' ').trim().toLowerCase();
    if (!subjectKey || !objectKey || subjectKey === objectKey || !relation) continue;
    if (wordCount(subjectKey) > maxArgumentWords || wordCount(objectKey) > maxArgumentWords) continue;
    const key = `${subjectKey}\u0000${relation}\u0000${objectKey}`;
    if (seen.has(key)) continue;
    seen.add(key);
    triples.push([subject.text, relation, object]);
  }
  return { entities: [...entityByKey.values()], triples };
}

function lastWord(text: string): string {
  return text.slice(text.lastIndexOf(' ') + 1).toLowerCase();
}

function wordCount(text: string): number {
  let count = 1;
  for (let index = 0; index < text.length; index++) if (text.charCodeAt(index) === 32) count++;
  return count;
}

/**
 * Who "he", "she" and "it" are in a Wikipedia-like passage: the subject of the first clause when it is a
 * name that agrees with the title (the text's own form, "Lambert" for "Lambert, Margrave of Tuscany"),
 * else the title, else the first name of the text.
 */
function choosePassageSubject(sentences: ReadonlyArray<readonly Item[]>, title: string | undefined): string | undefined {
  let firstName: string | undefined;
  for (const items of sentences) {
    const verb = items.findIndex((item) => item.kind === 'verb');
    for (const [index, item] of items.entries()) {
      if (item.kind !== 'arg' || !item.proper) continue;
      firstName ??= item.text;
      if (verb === -1 || index > verb) break;
      const preposition = items[index - 1]?.kind === 'prep';
      if (preposition) continue;
      if (!title) return item.text;
      const name = normalizePhrase(item.text);
      const titleKey = normalizePhrase(title);
      if (titleKey.includes(name) || name.includes(titleKey) || name.split(' ')[0] === titleKey.split(' ')[0]) return item.text;
      return title;
    }
    if (verb !== -1) break;
  }
  return title ?? firstName;
}

/** The subject of the first clause of a passage: its first argument before the first verb, not after a preposition. */
function openingSubject(sentences: ReadonlyArray<readonly Item[]>): Arg | undefined {
  for (const items of sentences) {
    const verb = items.findIndex((item) => item.kind === 'verb');
    if (verb === -1) continue;
    return items.slice(0, verb).find((item, index): item is Arg => item.kind === 'arg' && items[index - 1]?.kind !== 'prep');
  }
  return undefined;
}

/** Subject – verb – object facts of one sentence's items (arguments resolved later). */
function clauseFacts(
  items: readonly Item[],
  resolve: (arg: Arg) => Arg | undefined,
  describesSubject: (subject: Arg, complement: Arg) => void,
  facts: Fact[],
): void {
  let pending: Array<{ arg: Arg; coordinated: boolean }> = [];
  let afterPreposition = false;
  let previousSubjects: Arg[] = [];
  let lastArg: Arg | undefined;
  let lastArgIsComplement = false;
  let relative = false;

  for (let index = 0; index < items.length; index++) {
    const item = items[index] as Item;
    switch (item.kind) {
      case 'prep':
        afterPreposition = true;
        break;
      case 'arg':
        if (!afterPreposition) pending.push({ arg: item, coordinated: items[index - 1]?.kind === 'conj' && items[index - 2]?.kind === 'arg' });
        lastArg = item.tails[item.tails.length - 1] ?? item;
        lastArgIsComplement = false;
        break;
      case 'conj':
        // ", and it received …" starts a new clause; "Lothair and Ermengarde had …" coordinates subjects.
        if (items[index - 1]?.kind !== 'arg') {
          pending = [];
          afterPreposition = false;
        }
        break;
      case 'comma':
        afterPreposition = false;
        break;
      case 'boundary':
        pending = [];
        afterPreposition = false;
        relative = false;
        break;
      case 'relative':
        relative = true;
        break;
      case 'other':
        break;
      case 'verb': {
        let subjects: Arg[];
        if (relative && lastArg) subjects = lastArgIsComplement ? previousSubjects : [lastArg];
        else if (pending.length > 0) {
          subjects = [(pending[0] as { arg: Arg }).arg];
          for (const entry of pending.slice(1)) {
            if (!entry.coordinated) break;
            subjects.push(entry.arg);
          }
        } else subjects = previousSubjects;
        subjects = subjects.flatMap((subject) => {
          const resolved = resolve(subject);
          return resolved && !resolved.date ? [resolved] : [];
        });
        const verbs = [item];
        let cursor = index + 1;
        while (items[cursor]?.kind === 'conj' && items[cursor + 1]?.kind === 'verb') {
          verbs.push(items[cursor + 1] as Item & { kind: 'verb' });
          cursor += 2;
        }
        const objects: Array<{ preposition: string | undefined; arg: Arg }> = [];
        let preposition: string | undefined;
        for (; cursor < items.length; cursor++) {
          const next = items[cursor] as Item;
          if (next.kind === 'prep') preposition = preposition && objects.length === 0 && items[cursor - 1]?.kind === 'prep' ? `${preposition} ${next.text}` : next.text;
          else if (next.kind === 'arg') {
            objects.push({ preposition, arg: next });
            lastArg = next.tails[next.tails.length - 1] ?? next;
          } else if (next.kind === 'conj') {
            if (items[cursor + 1]?.kind !== 'arg' || objects.length === 0) break;
          } else if (next.kind === 'comma') {
            const continues = items[cursor + 2]?.kind === 'conj' || items[cursor + 2]?.kind === 'comma';
            if (items[cursor + 1]?.kind !== 'arg' || objects.length === 0 || !continues) break;
          } else if (next.kind === 'other') continue;
          else break;
        }
        // After a copula the complement carries the prepositions ("queen of X by marriage to Y"); only a copula
        // without a complement takes them itself ("was in Paris").
        const complements = objects.filter((object) => object.preposition === undefined);
        const lastComplement = complements[complements.length - 1]?.arg;
        for (const verb of verbs) {
          const copulaWithComplement = verb.copula && lastComplement !== undefined;
          const taken = copulaWithComplement ? complements : objects;
          for (const subject of subjects) {
            if (verb.copula) for (const { arg } of complements) describesSubject(subject, arg);
            // "His mother was Bertha": Bertha is the mother of the possessor.
            if (verb.copula && subject.possessor && !subject.proper && subject.tails.length === 0) {
              for (const { arg } of complements) if (arg.proper) facts.push([arg, `is ${subject.text.toLowerCase()} of`, subject.possessor]);
              continue;
            }
            for (const { preposition: through, arg } of taken) objectFacts(subject, verb, through, arg, facts);
            // "an island in the Stockholm archipelago": where the complement is, not the subject's own preposition.
            if (copulaWithComplement && !lastComplement.proper && !lastComplement.date && lastComplement.tails.length === 0) {
              for (const { preposition: through, arg } of objects) {
                if (through && locativePrepositions.has(through) && !arg.pronoun) facts.push([subject, `${verb.text} ${lastComplement.text.toLowerCase()} ${through}`, arg]);
              }
            }
          }
        }
        lastArgIsComplement = item.copula && objects.length > 0 && objects[objects.length - 1]?.preposition === undefined;
        if (subjects.length > 0) previousSubjects = subjects;
        pending = [];
        afterPreposition = false;
        relative = false;
        index = cursor - 1;
        break;
      }
    }
  }
}

/** The facts of one subject, verb and object: "of" tails and possessors fold into the predicate. */
function objectFacts(subject: Arg, verb: { text: string; copula: boolean }, preposition: string | undefined, object: Arg, facts: Fact[]): void {
  const predicate = preposition ? `${verb.text} ${preposition}` : verb.text;
  if (object.pronoun && !objectPronouns.has(object.pronoun)) return;
  if (object.date || object.proper || object.pronoun) {
    facts.push([subject, predicate, object]);
    return;
  }
  if (object.tails.length > 0) {
    for (const tail of object.tails) facts.push([subject, `${predicate} ${object.text.toLowerCase()} of`, tail]);
    return;
  }
  const owner = object.possessor;
  if (owner && !(owner.pronoun && possessivePronouns.has(owner.pronoun) && !verb.copula)) {
    if (owner.text !== subject.text && !(owner.pronoun && subject.proper)) {
      facts.push([subject, `${predicate} ${object.text.toLowerCase()} of`, owner]);
      return;
    }
  }
  facts.push([subject, predicate, object]);
}
