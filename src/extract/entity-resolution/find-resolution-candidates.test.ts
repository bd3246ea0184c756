import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createRandom } from '../../core/random.js';
import type { Random } from '../../core/random.js';
import { findResolutionCandidates } from './find-resolution-candidates.js';
import type { ResolutionEntity } from './resolution-types.js';

const options = { nameSimilarity: 0.75, embeddingSimilarity: 0.9, maxGroupSize: 10 };

function unit(values: readonly number[]): Float32Array {
  const norm = Math.hypot(...values);
  return Float32Array.from(values, (value) => value / norm);
}

/** A unit vector at cosine `cosine` from the unit basis vector `axis`, leaning towards basis vector `lean`. */
function near(axis: number, lean: number, cosine: number, dimension = 8): Float32Array {
  const values = new Array<number>(dimension).fill(0);
  values[axis] = cosine;
  values[lean] = Math.sqrt(1 - cosine * cosine);
  return unit(values);
}

const cast: ResolutionEntity[] = [
  { id: 'sherlock', title: 'Sherlock Holmes', type: 'person', aliases: [], description: 'A consulting detective.' },
  { id: 'holmes', title: 'Holmes', type: 'person', aliases: [], description: 'The detective of Baker Street.' },
  { id: 'mr-holmes', title: 'Mr. Holmes', type: 'person', aliases: [], description: 'Addressed by his clients.' },
  { id: 'mycroft', title: 'Mycroft Holmes', type: 'person', aliases: [], description: "Sherlock's elder brother." },
  { id: 'dr-watson', title: 'Dr. Watson', type: 'person', aliases: [], description: 'The narrator.' },
  { id: 'john-watson', title: 'John Watson', type: 'person', aliases: [], description: 'An army doctor.' },
  { id: 'watson-co', title: 'Watson & Co', type: 'organization', aliases: [], description: 'A firm of tailors.' },
  { id: 'london', title: 'London', type: 'geo', aliases: [], description: 'A city.' },
];

/** Axes: 0 Sherlock, 1 Mycroft, 2 Watson, 3 London, 4–7 noise directions. */
const castVectors = new Map<string, Float32Array>([
  ['sherlock', near(0, 4, 1)],
  ['holmes', near(0, 4, 0.95)],
  ['mr-holmes', near(0, 5, 0.93)],
  ['mycroft', near(1, 0, 0.8)],
  ['dr-watson', near(2, 6, 1)],
  ['john-watson', near(2, 6, 0.95)],
  ['watson-co', near(2, 7, 0.93)],
  ['london', near(3, 4, 1)],
]);

describe('findResolutionCandidates', () => {
  it('pairs similar names whatever their cosine, for the LLM to judge (Mycroft included)', () => {
    const groups = findResolutionCandidates(cast, castVectors, options);
    assert.deepEqual(groups, [
      ['sherlock', 'holmes', 'mr-holmes', 'mycroft'],
      ['dr-watson', 'john-watson'],
    ]);
  });

  it('lets the cosine decide which joins come first when a group must be split', () => {
    const groups = findResolutionCandidates(cast, castVectors, { ...options, maxGroupSize: 3 });
    assert.deepEqual(groups, [
      ['sherlock', 'holmes', 'mr-holmes'],
      ['dr-watson', 'john-watson'],
    ]);
  });

  it('never pairs a person with an organization, however close their vectors', () => {
    const groups = findResolutionCandidates(cast, castVectors, { ...options, embeddingSimilarity: 0.5 });
    assert.ok(groups.every((group) => !group.includes('watson-co')));
  });

  it('judges pairs by name alone where vectors are missing, and chains through "Holmes"', () => {
    const groups = findResolutionCandidates(cast, new Map(), options);
    assert.deepEqual(groups, [
      ['sherlock', 'holmes', 'mr-holmes', 'mycroft'],
      ['dr-watson', 'john-watson'],
    ]);
  });

  it('splits a group larger than maxGroupSize at its weakest links, deterministically', () => {
    const groups = findResolutionCandidates(cast, new Map(), { ...options, maxGroupSize: 3 });
    assert.deepEqual(groups, [
      ['sherlock', 'holmes', 'mr-holmes'],
      ['dr-watson', 'john-watson'],
    ]);
    assert.deepEqual(findResolutionCandidates([...cast].reverse(), new Map(), { ...options, maxGroupSize: 3 }).length, 2);
  });

  it('pairs unrelated names when the cosine alone reaches embeddingSimilarity', () => {
    const detective: ResolutionEntity = { id: 'detective', title: 'The Great Detective', type: 'person', aliases: [], description: 'A consulting detective.' };
    const vectors = new Map(castVectors).set('detective', near(0, 4, 0.99));
    const groups = findResolutionCandidates([...cast, detective], vectors, options);
    assert.deepEqual(groups[0], ['sherlock', 'holmes', 'mr-holmes', 'mycroft', 'detective']);
    const notHighEnough = new Map(castVectors).set('detective', near(0, 7, 0.85));
    assert.ok(findResolutionCandidates([...cast, detective], notHighEnough, options).every((group) => !group.includes('detective')));
  });

  it('uses aliases, and keeps Mr. and Mrs. apart', () => {
    const people: ResolutionEntity[] = [
      { id: 'a', title: 'Mrs. Hudson', type: 'person', aliases: [], description: '' },
      { id: 'b', title: 'Mr. Hudson', type: 'person', aliases: [], description: '' },
      { id: 'c', title: 'Landlady', type: 'person', aliases: ['Martha Hudson'], description: '' },
    ];
    assert.deepEqual(findResolutionCandidates(people, new Map(), options), [['a', 'b', 'c'].filter((id) => id !== 'b')]);
  });

  it('finds exactly the pairs of an all-pairs scan on random casts', () => {
    for (const seed of [1, 2, 3]) {
      const random = createRandom(seed);
      const { entities, vectors } = randomCast(random, 300);
      const blocked = findResolutionCandidates(entities, vectors, options);
      const exhaustive = findResolutionCandidates(entities, vectors, { ...options, exhaustive: true });
      assert.ok(exhaustive.length > 10, `seed ${seed} has candidates`);
      assert.deepEqual(blocked, exhaustive, `seed ${seed}`);
    }
  });

  it('keeps groups within maxGroupSize on 5,000 entities (12.5M pairs unblocked)', () => {
    const random = createRandom(7);
    const { entities } = randomCast(random, 5_000, 160);
    const groups = findResolutionCandidates(entities, new Map(), options);
    assert.ok(groups.length > 0);
    assert.ok(groups.every((group) => group.length >= 2 && group.length <= options.maxGroupSize));
    assert.equal(new Set(groups.flat()).size, groups.flat().length, 'no entity in two groups');
  });
});

const givenNames = ['john', 'mary', 'sherlock', 'mycroft', 'irene', 'james', 'martha', 'henry', 'violet', 'arthur'];
const surnames = ['holmes', 'watson', 'hudson', 'adler', 'moriarty', 'lestrade', 'morstan', 'baskerville', 'stapleton', 'gregson'];
const things = ['bank', 'museum', 'society', 'railway', 'bridge', 'abbey', 'club', 'college'];
const types = ['person', 'person', 'organization', 'geo', 'event', 'unknown'];

function pick<T>(random: Random, values: readonly T[]): T {
  return values[Math.floor(random() * values.length)] as T;
}

function typo(random: Random, word: string): string {
  const at = 3 + Math.floor(random() * Math.max(1, word.length - 3));
  return random() < 0.5 ? word.slice(0, at) + word.slice(at + 1) : word.slice(0, at) + 'e' + word.slice(at);
}

function capitalize(word: string): string {
  return word.charAt(0).toUpperCase() + word.slice(1);
}

/** Names built to hit every scoring path: surnames, typos, initials, honorifics, acronyms, organizations. */
function randomName(random: Random, vocabulary: number): string {
  const surname = pick(random, surnames) + (vocabulary > 0 ? String(Math.floor(random() * vocabulary)) : '');
  const given = pick(random, givenNames);
  const roll = random();
  if (roll < 0.2) return capitalize(surname);
  if (roll < 0.35) return `${capitalize(given)} ${capitalize(surname)}`;
  if (roll < 0.45) return `${given[0]?.toUpperCase()}. ${capitalize(surname)}`;
  if (roll < 0.55) return `${pick(random, ['Mr.', 'Mrs.', 'Dr.'])} ${capitalize(surname)}`;
  if (roll < 0.65) return `${capitalize(typo(random, given))} ${capitalize(surname)}`;
  if (roll < 0.75) return `${capitalize(surname)} ${capitalize(pick(random, things))}`;
  if (roll < 0.85) return `${capitalize(pick(random, things))} of ${capitalize(surname)}`;
  if (roll < 0.9) return `${capitalize(given)} ${capitalize(surname)} ${capitalize(pick(random, things))}`.split(' ').map((word) => word[0]).join('');
  return capitalize(typo(random, surname));
}

function randomCast(random: Random, size: number, vocabulary = 0): { entities: ResolutionEntity[]; vectors: Map<string, Float32Array> } {
  const entities: ResolutionEntity[] = [];
  const vectors = new Map<string, Float32Array>();
  const dimension = 16;
  let anchor: Float32Array = new Float32Array(dimension);
  for (let index = 0; index < size; index++) {
    const id = `e${index}`;
    entities.push({ id, title: randomName(random, vocabulary), type: pick(random, types), aliases: random() < 0.1 ? [randomName(random, vocabulary)] : [], description: '' });
    if (random() < 0.2) continue;
    // Every fifth entity starts a new direction; the next few stay close to it, so cosines span 0.8–1.
    if (index % 5 === 0) anchor = unit(Array.from({ length: dimension }, () => random() * 2 - 1));
    const spread = random() * 0.35;
    vectors.set(id, unit(Array.from(anchor, (value) => value + (random() * 2 - 1) * spread * 0.25)));
  }
  return { entities, vectors };
}
