import type { ItemCustomEntity, ItemEntity, ItsFunction } from 'wink-nlp';
import type { CooperativeTask } from '../../core/cooperative-task.js';
import { breakLongRuns } from '../../text/break-long-runs.js';
import { foldLatinLetters } from '../../text/fold-latin-letters.js';
import { monthAbbreviations, monthNames, weekdayNames } from '../../text/calendar-words.js';
import { createWinkNlp, type WinkNlp } from './create-wink-nlp.js';

/*
 * LLM-free candidate entities, in the spirit of GraphRAG's fast method (`regex_english` noun-phrase
 * extractor, microsoft/graphrag `index/operations/build_noun_graph/`): proper-noun spans and multi-word noun phrases found by
 * part-of-speech patterns (wink-nlp), normalized to a key so that "the Weir Bridge's" and
 * "Weir Bridge" are one node.
 */

/** Kind of a mention: a proper-noun span, or a common multi-word noun phrase. */
export type MentionKind = 'proper' | 'phrase';

/** One candidate mention within a text. Offsets are character offsets into the text. */
export interface PhraseMention {
  /** Normalized key shared by all mentions of the same entity. */
  key: string;
  /** Text as written (without a leading title such as "Dr."). */
  surface: string;
  start: number;
  end: number;
  /** Index into the text's sentences. */
  sentence: number;
  kind: MentionKind;
  /** A type suggested by the words around or inside the mention, if any. */
  typeHint?: string;
  /** A name found over several pattern spans — a title-case run or a name with its style — besides those spans. */
  joined?: true;
}

/** Candidate mentions and sentence spans of one text. */
export interface PhraseExtraction {
  sentences: Array<[number, number]>;
  mentions: PhraseMention[];
}

/** Bumped when extraction output changes, so stored extractions are recomputed. */
export const nounPhraseExtractorVersion = 6;

/** Words that may join two proper nouns into one name ("University of Paris"); other prepositions split. */
const nameConnectors = '[of|de|del|della|di|du|des|van|von|der|for|la|le]';
const properPatterns = [
  '[PROPN] [PROPN] [PROPN] [PROPN]',
  `[PROPN] [PROPN] ${nameConnectors} [PROPN] [PROPN]`,
  `[PROPN] ${nameConnectors} [PROPN] [PROPN]`,
  `[PROPN] [PROPN] ${nameConnectors} [PROPN]`,
  `[PROPN] ${nameConnectors} [PROPN]`,
  '[PROPN] [PROPN] [PROPN]',
  '[PROPN] [PROPN]',
  '[PROPN]',
];
const phrasePatterns = ['[ADJ] [NOUN] [NOUN]', '[NOUN] [NOUN] [NOUN]', '[ADJ] [ADJ] [NOUN]', '[ADJ] [NOUN]', '[NOUN] [NOUN]'];

/** A wink-nlp instance that finds the patterns above as custom entities. */
function createPatternNlp(): WinkNlp {
  // Without the negation and sentiment passes, which nothing here reads (a fifth of the parse time).
  const nlp = createWinkNlp(['sbd', 'ner', 'pos', 'cer']);
  nlp.learnCustomEntities([
    { name: 'proper', patterns: properPatterns },
    { name: 'phrase', patterns: phrasePatterns },
  ]);
  return nlp;
}

const personTitles = new Set(['dr', 'mr', 'mrs', 'ms', 'miss', 'prof', 'professor', 'sir', 'dame', 'lady', 'lord', 'rev', 'reverend', 'father', 'sister', 'captain', 'capt', 'judge', 'mayor', 'councillor', 'senator', 'president', 'king', 'queen', 'prince', 'princess', 'saint', 'st']);
const calendarWords = new Set([...monthNames, ...monthAbbreviations, ...weekdayNames]);
const tokenPattern = /^[\p{L}\p{N}][\p{L}\p{N}\-'’.&]*$/u;
const connectorWords = new Set(['of', 'de', 'del', 'della', 'di', 'du', 'des', 'van', 'von', 'der', 'for', 'la', 'le']);
const maxTokenLength = 25;
/** Lower-case words a title-case name may hold between its capitalised words ("Return to the Hiding Place"). */
const titleSmallWords = new Set([...connectorWords, 'a', 'an', 'the', 'in', 'on', 'to', 'into', 'from', 'with', 'upon']);
const leadingArticles = new Set(['the', 'a', 'an']);
/** What follows the subject of a defining sentence: "X is a …", "X (1816–1892) was …". */
const definingFollowers = new Set(['is', 'was', 'are', 'were', '(']);
/** Parts of speech of a sentence's first word that is capitalised only because it starts the sentence ("In", "Later", "He"). */
const functionTags = new Set(['ADV', 'ADP', 'PRON', 'DET', 'CCONJ', 'SCONJ', 'AUX', 'PART', 'INTJ', 'NUM']);
/** Words that open a style after a name and a comma: "William Alington, 3rd Baron Alington", "Louis I, Count of Nevers". */
const styleWords = new Set(['duke', 'duchess', 'count', 'countess', 'earl', 'baron', 'baroness', 'baronet', 'viscount', 'viscountess', 'marquess', 'marquis', 'marchioness', 'emperor', 'empress', 'king', 'queen', 'prince', 'princess', 'lord', 'lady', 'elector', 'electress', 'margrave', 'landgrave', 'grand', 'bishop', 'archbishop', 'abbot', 'abbess', 'sultan', 'khan', 'emir', 'shah', 'tsar', 'czar']);
/** Between a name and its style: a comma, and an ordinal for a numbered peerage. */
const styleJoint = /^,\s*(?:\d+(?:st|nd|rd|th)\s+)?$/;
/** Tokens a title-case name spans at most. */
const maxTitleTokens = 10;
/**
 * Tokens inside a run of more characters than this without whitespace — base64, hashes, paths, identifiers, glued
 * lists — are no entity candidates: wink splits such a run at its punctuation into word-like pieces, and a file of
 * random base64 gave millions of them (issue 35).
 */
const maxRunLength = 48;

/** Words whose presence in a proper noun suggests its type (matched on the last word first). */
const typeCues: ReadonlyArray<[string, ReadonlySet<string>]> = [
  ['organization', new Set(['inc', 'ltd', 'llc', 'plc', 'co', 'corp', 'corporation', 'company', 'companies', 'group', 'university', 'college', 'school', 'academy', 'institute', 'council', 'committee', 'trust', 'society', 'association', 'bank', 'church', 'club', 'museum', 'hospital', 'press', 'band', 'agency', 'ministry', 'department', 'party', 'union', 'federation', 'foundation', 'league', 'brewery', 'works', 'mill', 'mills', 'studios', 'records', 'bureau', 'office', 'army', 'navy', 'newspaper', 'gazette', 'times', 'herald', 'cooperative', 'co-op', 'guild', 'orchestra', 'choir', 'team', 'fc'])],
  ['geo', new Set(['street', 'st', 'road', 'rd', 'lane', 'avenue', 'square', 'bridge', 'river', 'lake', 'mountain', 'mount', 'hill', 'hills', 'valley', 'island', 'islands', 'bay', 'city', 'town', 'village', 'county', 'province', 'state', 'republic', 'kingdom', 'park', 'harbour', 'harbor', 'quay', 'wharf', 'canal', 'forest', 'sea', 'ocean', 'coast', 'district', 'parish', 'market', 'station', 'airport', 'castle', 'tower', 'hall', 'gate', 'weir', 'dam', 'road'])],
  ['event', new Set(['festival', 'fair', 'war', 'battle', 'flood', 'floods', 'election', 'elections', 'championship', 'championships', 'cup', 'olympics', 'games', 'treaty', 'revolution', 'strike', 'fire', 'storm', 'crisis', 'conference', 'summit', 'exhibition', 'expo', 'parade', 'regatta', 'carnival', 'award', 'awards', 'prize', 'marathon', 'tournament', 'ceremony'])],
];

function cueType(words: readonly string[]): string | undefined {
  const last = words[words.length - 1];
  for (const [type, cues] of typeCues) if (last !== undefined && cues.has(last)) return type;
  for (const [type, cues] of typeCues) if (words.some((word) => cues.has(word))) return type;
  return undefined;
}

/** Lower-cases, folds quotes, drops possessives and surrounding punctuation. */
export function normalizePhraseKey(words: readonly string[]): string {
  return words
    .map((word) => word.toLowerCase().replace(/[’‘]/g, "'").replace(/'s$/, '').replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, ''))
    .filter((word) => word.length > 0)
    .join(' ');
}

/** Characters of text one wink-nlp instance reads before {@link extractNounPhrasesTask} moves to a fresh one. */
export const nounPhraseBatchCharacters = 4_000_000;

/**
 * The mentions of each text, in order, as a task that pauses after every text it parses. wink-nlp's tokenizer learns
 * from what it parses: a token such as "Kester's" that once reached its unknown-word path whole is afterwards looked up
 * whole instead of being split at the possessive, so a text's tokens depend on what the instance parsed before it.
 * Each batch of consecutive texts (up to `batchCharacters`, at least one text) is therefore read by a fresh instance
 * primed with the whole batch first: a text's result is a function of its batch, not of the order within it (or of a
 * crash and resume), and the lexicon — which grows by every word it has not seen, about 20 bytes per character of
 * never-repeating text — is dropped with the batch instead of growing with the corpus. A corpus of up to
 * `batchCharacters` is one batch. A text repeated in a batch is parsed once, and its copies share one result.
 * `onExtracted` hears of each text as it is done (progress).
 */
export function* extractNounPhrasesTask(
  texts: readonly string[],
  onExtracted?: (done: number) => void,
  batchCharacters = nounPhraseBatchCharacters,
): CooperativeTask<PhraseExtraction[]> {
  const extractions: PhraseExtraction[] = [];
  for (let first = 0; first < texts.length; ) {
    let end = first + 1;
    let characters = (texts[first] as string).length;
    while (end < texts.length && characters + (texts[end] as string).length <= batchCharacters) characters += (texts[end++] as string).length;
    const nlp = createPatternNlp();
    // A text repeated in the batch (a log's lines, copied boilerplate) is parsed once: its result is the same.
    const extracted = new Map<string, PhraseExtraction | undefined>();
    for (let index = first; index < end; index++) {
      const text = texts[index] as string;
      if (extracted.has(text)) continue;
      extracted.set(text, undefined);
      nlp.readDoc(foldLatinLetters(breakLongRuns(text)));
      yield;
    }
    for (let index = first; index < end; index++) {
      const text = texts[index] as string;
      let extraction = extracted.get(text);
      if (extraction === undefined) {
        extraction = extractWith(nlp, text);
        extracted.set(text, extraction);
      }
      extractions.push(extraction);
      onExtracted?.(extractions.length);
      yield;
    }
    first = end;
  }
  return extractions;
}

/**
 * Finds candidate entity mentions in one text. Kept, as in GraphRAG's extractor: spans containing a
 * proper noun, multi-word noun phrases, and hyphenated compounds; dropped: dates, numbers, calendar
 * words, and tokens that are not word-like or are overly long. Makes an extractor for the one text: a caller with
 * several texts keeps a {@link createNounPhraseExtractor}.
 */
export function extractNounPhrases(text: string): PhraseExtraction {
  return createNounPhraseExtractor().extract(text);
}

/** Reads single texts (questions) one at a time; a corpus is read by {@link extractNounPhrasesTask}. */
export interface NounPhraseExtractor {
  extract(text: string): PhraseExtraction;
  /** The wink-nlp instances it has made so far: one per `maxCharacters` of text read. */
  readonly instances: number;
}

/**
 * A reader of single texts that owns its wink-nlp instance, kept across texts (the first instance of a process parses
 * wink's model, ~0.1 s; later ones copy it, a few milliseconds); it replaces it by a fresh one once it has read `maxCharacters`, because the instance's lexicon grows
 * by every word it has not seen (about 20 bytes per character of never-repeating text): a long-lived process (a server
 * answering questions) holds memory bounded by `maxCharacters`, not by everything it was ever asked. The instance is
 * made on the first text, not with the extractor. {@link extractNounPhrases} makes one for a single text.
 */
export function createNounPhraseExtractor(options: { maxCharacters?: number } = {}): NounPhraseExtractor {
  const maxCharacters = options.maxCharacters ?? nounPhraseBatchCharacters;
  let nlp: WinkNlp | undefined;
  let characters = 0;
  let instances = 0;
  return {
    extract(text) {
      if (nlp === undefined || characters + text.length > maxCharacters) {
        nlp = createPatternNlp();
        instances++;
        characters = 0;
      }
      characters += text.length;
      return extractWith(nlp, text);
    },
    get instances() {
      return instances;
    },
  };
}

function extractWith(nlp: WinkNlp, text: string): PhraseExtraction {
  const its = nlp.its;
  // Same length and offsets: a run of thousands of characters without whitespace would make wink's tokenizer
  // quadratic, and it cuts words at Latin letters beyond Latin-1 ("Zličić"). Names are cut from `text` by offset.
  const document = nlp.readDoc(foldLatinLetters(breakLongRuns(text)));
  const values = document.tokens().out(its.value) as string[];
  const spaces = document.tokens().out(its.precedingSpaces) as string[];
  // The lemma helper's declared type wants model add-ons that readDoc passes itself.
  const lemmas = document.tokens().out(its.lemma as unknown as ItsFunction<string>) as string[];
  const tags = document.tokens().out(its.pos) as string[];
  const starts = new Int32Array(values.length + 1);
  let offset = 0;
  for (let index = 0; index < values.length; index++) {
    offset += (spaces[index] as string).length;
    starts[index] = offset;
    offset += (values[index] as string).length;
  }
  starts[values.length] = offset;
  const tokenEnd = (index: number): number => (starts[index] as number) + (values[index] as string).length;
  const inLongRun = new Uint8Array(values.length);
  for (let first = 0; first < values.length; ) {
    let last = first;
    while (last + 1 < values.length && (spaces[last + 1] as string).length === 0) last++;
    if (tokenEnd(last) - (starts[first] as number) > maxRunLength) inLongRun.fill(1, first, last + 1);
    first = last + 1;
  }

  const sentenceSpans = document.sentences().out(its.span) as Array<[number, number]>;
  const sentences: Array<[number, number]> = sentenceSpans.map(([first, last]) => [starts[first] as number, tokenEnd(last)]);
  const sentenceOfToken = new Int32Array(values.length);
  sentenceSpans.forEach(([first, last], index) => sentenceOfToken.fill(index, first, last + 1));

  const excluded = new Uint8Array(values.length);
  document.entities().each((entity: ItemEntity) => {
    const type = entity.out(its.type) as string;
    if (['DATE', 'TIME', 'DURATION', 'CARDINAL', 'ORDINAL', 'MONEY', 'PERCENT', 'EMAIL', 'URL', 'HASHTAG', 'MENTION'].includes(type)) {
      const [first, last] = entity.out(its.span) as [number, number];
      excluded.fill(1, first, last + 1);
    }
  });

  const mentions: PhraseMention[] = [];
  const patternSpans = new Set<string>();
  // Pattern mentions that gluing through a hyphen changed: one of a name's parts may have been glued into a span of its own.
  const gluedMentions: PhraseMention[] = [];
  document.customEntities().each((entity: ItemCustomEntity) => {
    const kind = entity.out(its.type) as MentionKind;
    let [first, last] = entity.out(its.span) as [number, number];
    let typeHint: string | undefined;
    const isTitle = (index: number): boolean => personTitles.has((values[index] as string).toLowerCase().replace(/\.$/, ''));
    // A title is dropped only when a name follows it: "Dr. Mara Ellison", not "the Mayor of Kestermouth".
    while (first < last && isTitle(first) && isWord(first + 1) && !connectorWords.has((values[first + 1] as string).toLowerCase())) {
      typeHint = 'person';
      first++;
    }
    if (first > 0 && isTitle(first - 1)) typeHint = 'person';
    // wink splits "car-wash" and "Polish-Russian" at the hyphen; glue unspaced hyphen runs back together.
    const [unglued, ungluedLast] = [first, last];
    first = backThroughHyphens(first);
    last = throughHyphens(last);
    const span = buildMention(first, last, kind);
    if (!span) return;
    // The parts of a hyphenated name ("Hohenlohe", "Langenburg") glue to the same span: it is one mention.
    const spanKey = `${span.start}:${span.end}`;
    if (patternSpans.has(spanKey)) return;
    patternSpans.add(spanKey);
    if (typeHint && span.kind === 'proper' && !span.surface.includes(' of ')) span.typeHint = typeHint;
    else if (span.kind === 'proper') {
      const cue = cueType(span.key.split(' '));
      if (cue) span.typeHint = cue;
    }
    mentions.push(span);
    if (first !== unglued || last !== ungluedLast) gluedMentions.push(span);
  });
  dropPartsOfGluedNames();
  addTitleCaseNames();
  addStyledNames();
  // Hyphenated common nouns ("car-wash", "sea-wall") count even alone, as in GraphRAG.
  for (let index = 2; index < values.length; index++) {
    if (values[index - 1] !== '-' || !glued(index - 1) || !glued(index) || tags[index] !== 'NOUN' || !isNounLike(tags[index - 2])) continue;
    const first = backThroughHyphens(index - 2);
    const start = starts[first] as number;
    if (mentions.some((mention) => mention.start <= start && mention.end >= tokenEnd(index))) continue;
    const span = buildMention(first, index, 'phrase');
    if (span) mentions.push(span);
  }
  mentions.sort((left, right) => left.start - right.start || left.end - right.end);
  return { sentences, mentions };

  /**
   * Names written in title case whose words are not all proper nouns to the tagger — the titles of works and
   * institutions ("Life Is What You Make It", "Return to the Hiding Place", "Constantine I", "Jan IV of Oświęcim"):
   * a run of capitalised words within a sentence, with the small words of titles between them, at least two
   * capitalised words, a leading article or title left out. A sentence's first word leaves the run when it is a function word
   * ("In", "Later", "He"): it is capitalised because it starts the sentence. A run the patterns above already found as
   * one span adds nothing.
   */
  function addTitleCaseNames(): void {
    const capitalised = (index: number): boolean => /^\p{Lu}/u.test(values[index] as string) && isWord(index) && !excluded[index] && !inLongRun[index];
    const small = (index: number): boolean => titleSmallWords.has(values[index] as string);
    const sameSentence = (a: number, b: number): boolean => sentenceOfToken[a] === sentenceOfToken[b];
    for (let index = 0; index < values.length; ) {
      if (!capitalised(index)) {
        index++;
        continue;
      }
      let last = index;
      let capitals = 1;
      for (let next = index + 1; next < values.length && next - index < maxTitleTokens && sameSentence(index, next); next++) {
        if (capitalised(next)) {
          last = next;
          capitals++;
        } else if (!small(next)) break;
      }
      let first = index;
      const startsSentence = (at: number): boolean => at === 0 || !sameSentence(at - 1, at);
      const leading = (at: number): boolean => {
        const lower = (values[at] as string).toLowerCase();
        return leadingArticles.has(lower) || personTitles.has(lower.replace(/\.$/, '')) || (startsSentence(at) && functionTags.has(tags[at] as string));
      };
      while (first < last && leading(first)) {
        if (capitalised(first)) capitals--;
        first++;
        while (first < last && small(first)) first++;
      }
      // A run ends at a hyphen ("Kim Jong-chul": "chul" is not capitalised); the name goes on through it.
      last = throughHyphens(last);
      index = last + 1;
      if (capitals < 2 || first >= last) continue;
      // Names joined by a preposition are prose ("Hewlett-Packard in Kestermouth"); a title has a word that is no name,
      // or is the subject its sentence defines ("Thunder on the Hill is a 1951 film", "Bolesław IV of Legnica (…) was").
      let joined = false;
      let titleWord = false;
      for (let at = first; at <= last; at++) {
        if (small(at)) joined = true;
        else if (tags[at] !== 'PROPN') titleWord = true;
      }
      if (joined && !titleWord && !definedSubject(first, last)) continue;
      const span = buildMention(first, last, 'proper');
      // A run inside a name found above is a part of it, not a name of its own.
      if (!span || mentions.some((found) => found.start <= span.start && found.end >= span.end)) continue;
      mentions.push({ ...span, joined: true });
    }
  }

  /** Whether tokens first..last open their sentence (after an article or a quote) and a copula or a bracket follows. */
  function definedSubject(first: number, last: number): boolean {
    let start = first;
    while (start > 0 && sentenceOfToken[start - 1] === sentenceOfToken[first]) {
      const before = (values[start - 1] as string).toLowerCase();
      if (!leadingArticles.has(before) && !/^["'“‘]$/.test(before)) return false;
      start--;
    }
    return definingFollowers.has((values[last + 1] ?? '').toLowerCase());
  }

  /** A name with its style after a comma, as one name besides its parts: "Robert Petre, 9th Baron Petre". */
  function addStyledNames(): void {
    const proper = mentions.filter((mention) => mention.kind === 'proper').sort((left, right) => left.start - right.start || right.end - left.end);
    const byStart = new Map<number, PhraseMention>();
    for (const mention of proper) if (!byStart.has(mention.start) || (byStart.get(mention.start) as PhraseMention).end < mention.end) byStart.set(mention.start, mention);
    for (const name of proper) {
      const gap = /^,\s*(?:\d+(?:st|nd|rd|th)\s+)?/.exec(text.slice(name.end, name.end + 12));
      if (!gap || !styleJoint.test(gap[0])) continue;
      const style = byStart.get(name.end + gap[0].length);
      if (!style || style.sentence !== name.sentence || !styleWords.has(style.key.split(' ')[0] as string)) continue;
      const surface = text.slice(name.start, style.end);
      const key = normalizePhraseKey(surface.split(/\s+/));
      if (mentions.some((mention) => mention.start === name.start && mention.end === style.end)) continue;
      mentions.push({ key, surface, start: name.start, end: style.end, sentence: name.sentence, kind: 'proper', typeHint: name.typeHint ?? 'person', joined: true });
    }
  }

  function isWord(index: number): boolean {
    return tokenPattern.test(values[index] ?? '');
  }

  function glued(index: number): boolean {
    return (spaces[index] as string).length === 0;
  }

  /** The last token of a name ending at `last`, gone on through unspaced hyphens ("Kim Jong" + "-chul"). */
  function throughHyphens(last: number): number {
    let end = last;
    while (end + 2 < values.length && values[end + 1] === '-' && glued(end + 1) && glued(end + 2) && isWord(end + 2)) end += 2;
    return end;
  }

  /** The first token of a name starting at `first`, gone back through unspaced hyphens ("Jean-" + "Pierre Rampal"). */
  function backThroughHyphens(first: number): number {
    let start = first;
    while (start >= 2 && values[start - 1] === '-' && glued(start) && glued(start - 1) && isWord(start - 2)) start -= 2;
    return start;
  }

  /**
   * The patterns find a hyphenated name in pieces ("Jean" and "Pierre Rampal"), and each piece glued through its hyphens
   * may stop short of the others' ("Jean-Pierre" beside "Jean-Pierre Rampal"): a glued mention inside another mention, or
   * a mention inside a glued one, is a part of that name and goes.
   */
  function dropPartsOfGluedNames(): void {
    if (gluedMentions.length === 0) return;
    const inside = (part: PhraseMention, whole: PhraseMention): boolean => part !== whole && whole.start <= part.start && whole.end >= part.end;
    const gluedSet = new Set(gluedMentions);
    const parts = new Set(mentions.filter((mention) => gluedMentions.some((name) => inside(mention, name)) || (gluedSet.has(mention) && mentions.some((name) => inside(mention, name)))));
    let kept = 0;
    for (const mention of mentions) if (!parts.has(mention)) mentions[kept++] = mention;
    mentions.length = kept;
  }

  function isNounLike(tag: string | undefined): boolean {
    return tag === 'NOUN' || tag === 'PROPN' || tag === 'ADJ';
  }

  /** The mention covering tokens first..last, or undefined when the span is not entity-like. */
  function buildMention(first: number, last: number, kind: MentionKind): PhraseMention | undefined {
    const words: string[] = [];
    for (let index = first; index <= last; index++) {
      const value = values[index] as string;
      if (excluded[index] || inLongRun[index] || value.length > maxTokenLength) return undefined;
      if (value === '-' && glued(index)) continue;
      if (!tokenPattern.test(value)) return undefined;
      words.push(value);
    }
    const lower = words.map((word) => word.toLowerCase());
    if (lower.every((word) => calendarWords.has(word) || /^\p{N}+$/u.test(word))) return undefined;
    const start = starts[first] as number;
    // A roman numeral ending a sentence keeps the full stop in its token: "UNIVAC I." is "UNIVAC I".
    const end = tokenEnd(last) - (words.length > 1 && /^[IVXLC]+\.$/.test(values[last] as string) ? 1 : 0);
    const surface = text.slice(start, end).replace(/['’]s$/, '');
    let keySource = surface;
    if (kind === 'phrase') {
      const lemma = (lemmas[last] ?? '').toLowerCase();
      const lastValue = (values[last] as string).toLowerCase();
      if (lemma && lemma !== lastValue && surface.toLowerCase().endsWith(lastValue)) keySource = `${surface.slice(0, surface.length - lastValue.length)}${lemma}`;
    }
    const key = normalizePhraseKey(keySource.split(/\s+/));
    if (key.length < 2) return undefined;
    if (kind === 'phrase' && words.length < 2 && !key.includes('-')) return undefined;
    return { key, surface, start, end, sentence: sentenceOfToken[first] as number, kind };
  }
}
