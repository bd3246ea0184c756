import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type Passage, scaleCorpus } from '../bench/scale-corpus.js';

/** A tiny two-hop corpus in 2Wiki's shape: a film, its director, his birthplace, plus titles without a name word. */
const passages: Passage[] = [
  { title: 'Moonrise Over Tallin', text: 'Moonrise Over Tallin is a 1961 Estonian drama film directed by Arvo Kruusement. It was filmed in Narva.' },
  { title: 'Arvo Kruusement', text: 'Arvo Kruusement( born 9 March 1928) was an Estonian film director. Kruusement was born in Narva. He died in Tallin.' },
  { title: 'Narva', text: 'Narva is a town in Estonia. Arvo Kruusement was born in Narva, and Moonrise Over Tallin was filmed there.' },
  { title: 'The Room (film)', text: 'The Room is a film by Arvo Kruusement. The film was shot in a room in Narva.' },
  { title: 'The Room Upstairs', text: 'The Room Upstairs is a play; The Room is not it. A room upstairs is a room.' },
  { title: '1917', text: 'In 1917 the town of Narva grew. The year 1917 was long.' },
];

const wordsOf = (text: string): string[] => text.match(/[\p{L}\p{M}\p{N}]+/gu) ?? [];

test('the same input gives the same copies; copy 0 is the original', () => {
  const first = scaleCorpus(passages, 4);
  const second = scaleCorpus(passages, 4);
  assert.deepEqual(first.passages, second.passages);
  assert.deepEqual(first.passages.slice(0, passages.length), passages);
  assert.equal(first.passages.length, 4 * passages.length);
});

test('a copy is the same whichever number of copies is made', () => {
  const four = scaleCorpus(passages, 4);
  const two = scaleCorpus(passages, 2);
  assert.deepEqual(two.passages, four.passages.slice(0, 2 * passages.length));
  assert.equal(four.rename('Arvo Kruusement', 1), two.rename('Arvo Kruusement', 1));
});

test('no two copies share a title, and every copy has its own names', () => {
  const scaled = scaleCorpus(passages, 8);
  const titles = scaled.passages.map((passage) => passage.title);
  assert.equal(new Set(titles).size, titles.length, titles.join(' | '));
  const namesOfCopy = (copy: number): Set<string> => new Set(['Arvo', 'Kruusement', 'Narva', 'Estonian', 'Tallin'].map((name) => scaled.rename(name, copy)));
  for (let copy = 1; copy < 8; copy++) {
    for (const name of namesOfCopy(copy)) {
      for (let other = 0; other < copy; other++) assert.ok(!namesOfCopy(other).has(name), `${name} of copy ${copy} is also in copy ${other}`);
    }
  }
});

test('a name is renamed the same way in every passage of a copy, and common words are kept', () => {
  const scaled = scaleCorpus(passages, 3);
  const copy = 2;
  const renamed = scaled.passages.slice(copy * passages.length, (copy + 1) * passages.length);
  const director = scaled.rename('Kruusement', copy);
  const town = scaled.rename('Narva', copy);
  assert.notEqual(director, 'Kruusement');
  assert.notEqual(town, 'Narva');
  // The director's passage is still found by the film's passage (the two-hop link survives within the copy).
  assert.ok(renamed[0]?.text.includes(`${scaled.rename('Arvo', copy)} ${director}`));
  assert.equal(renamed[1]?.title, `${scaled.rename('Arvo', copy)} ${director}`);
  assert.equal(renamed[2]?.title, town);
  for (const passage of renamed) {
    assert.ok(!wordsOf(passage.text).includes('Kruusement') && !wordsOf(passage.text).includes('Narva'), passage.text);
  }
  assert.equal(renamed[1]?.text.split(director).length, 3, 'both mentions of the director are renamed alike');
  // Function words, months, common words and lower-case words stay as they are.
  assert.match(renamed[1]?.text ?? '', /\( born 9 March 1928\) was an \S+ film director\./);
  assert.match(renamed[3]?.text ?? '', /The film was shot in a room in /);
});

test('a title without a name word is renamed as a whole phrase, longest first, and a number title in the title only', () => {
  const scaled = scaleCorpus(passages, 2);
  const [, , , room, upstairs, year] = scaled.passages.slice(passages.length);
  assert.ok(room !== undefined && upstairs !== undefined && year !== undefined);
  assert.match(room.title, /^The \S+ \(film\)$/);
  assert.notEqual(room.title, 'The Room (film)');
  const roomPhrase = room.title.replace(' (film)', '');
  assert.ok(room.text.startsWith(`${roomPhrase} is a film`), room.text);
  assert.ok(room.text.includes('a room in'), 'the lower-case word is kept');
  // "The Room Upstairs" is its own phrase, not "The Room" followed by "Upstairs".
  assert.notEqual(upstairs.title, 'The Room Upstairs');
  assert.ok(upstairs.text.startsWith(`${upstairs.title} is a play; ${roomPhrase} is not it.`), upstairs.text);
  assert.ok(upstairs.title.startsWith('The Room '), upstairs.title);
  // A year in the text keeps its number.
  assert.notEqual(year.title, '1917');
  assert.equal(year.text, `In 1917 the town of ${scaled.rename('Narva', 1)} grew. The year 1917 was long.`);
});

test('a question is renamed like the copy it is asked of, its names absent from the corpus included', () => {
  const question = 'Where was the director of film Moonrise Over Tallin born, and did Kaljo Kiisk meet him?';
  const scaled = scaleCorpus(passages, 3, [question]);
  assert.equal(scaled.rename(question, 0), question);
  const renamed = scaled.rename(question, 2);
  assert.ok(renamed.includes(`film ${scaled.rename('Moonrise Over Tallin', 2)} born`), renamed);
  assert.notEqual(scaled.rename('Moonrise Over Tallin', 2), 'Moonrise Over Tallin');
  assert.ok(!wordsOf(renamed).includes('Kiisk'), renamed);
  assert.throws(() => scaled.rename(question, 3), /copy 3 does not exist/);
});
