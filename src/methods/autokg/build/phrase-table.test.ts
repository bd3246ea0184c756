import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { deflateRawSync } from 'node:zlib';
import { decodePhraseTable, encodePhraseTable, lowerCaseWords, phraseTableRows, PhraseTableBuilder, type PhraseOccurrence, type PhraseRow } from './phrase-table.js';

const mention = (surface: string, key = surface.toLowerCase()): PhraseOccurrence => ({ key, surface, kind: /^\p{Lu}/u.test(surface) ? 'proper' : 'phrase' });

const row = (chunkId: string, text: string, mentions: PhraseOccurrence[], shared: 0 | 1 = 1): PhraseRow => ({ chunkId, mentions, words: lowerCaseWords(text), shared });

const rows = [
  row('a', 'The Weir Bridge crosses the river.', [mention('Weir Bridge'), mention('river crossing')]),
  row('b', "Ada's mill stood by the weir's gate.", [mention('Ada', 'ada'), mention('mill gate')], 0),
  row('c', 'Weir Bridge, weir bridge, WEIR BRIDGE.', [mention('weir bridge'), mention('Weir Bridge'), mention('WEIR BRIDGE', 'weir bridge')]),
  row('d', 'Kester Row and the river.', [mention('Kester Row'), mention('river crossing')]),
];

function tableOf(chosen: readonly PhraseRow[]): ReturnType<PhraseTableBuilder['build']> {
  const builder = new PhraseTableBuilder('s');
  for (const entry of chosen) builder.add(entry);
  return builder.build();
}

describe('phrase table', () => {
  test('lower-case words drop a possessive and skip capitalized words', () => {
    assert.deepEqual([...lowerCaseWords("Ada's mill stood by the weir's gate.")], ['mill', 'stood', 'by', 'the', 'weir', 'gate']);
  });

  test('rows copied from a stored table and rows added give the table built afresh, bytes included', () => {
    // A chunk removed (b), one added in the middle of the order (d before c), the others copied.
    const stored = tableOf(rows.slice(0, 3));
    const builder = new PhraseTableBuilder('s');
    builder.copy(stored, 0);
    builder.add(rows[3] as PhraseRow);
    builder.copy(stored, 2);
    const updated = builder.build();
    const fresh = tableOf([rows[0], rows[3], rows[2]] as PhraseRow[]);
    assert.deepEqual(updated, fresh);
    assert.deepEqual(encodePhraseTable(updated), encodePhraseTable(fresh));
    // Strings only b held are gone with it.
    assert.ok(!updated.keys.includes('ada') && !updated.words.includes('mill'));
  });

  test('rows copied first, then a row repeating their strings added, then more copied, give the table built afresh', () => {
    // Copying alone numbers strings without looking them up; the row added after must still find them.
    const stored = tableOf(rows);
    const builder = new PhraseTableBuilder('s');
    builder.copy(stored, 3);
    builder.copy(stored, 0);
    builder.add(rows[2] as PhraseRow);
    builder.copy(stored, 1);
    const fresh = tableOf([rows[3], rows[0], rows[2], rows[1]] as PhraseRow[]);
    assert.deepEqual(builder.build(), fresh);
    assert.deepEqual(encodePhraseTable(builder.build()), encodePhraseTable(fresh));
  });

  test('a stored table continued with rows after its own gives the table built afresh, bytes included', () => {
    const stored = tableOf(rows.slice(0, 2));
    const builder = PhraseTableBuilder.continuing(stored);
    builder.add(rows[2] as PhraseRow);
    builder.add(rows[3] as PhraseRow);
    const fresh = tableOf(rows);
    assert.deepEqual(builder.build(), fresh);
    assert.deepEqual(encodePhraseTable(builder.build()), encodePhraseTable(fresh));
    assert.deepEqual(stored, tableOf(rows.slice(0, 2)), 'the stored table is left as it was');
  });

  test('phraseTableRows keeps the chunks asked for that it holds, in their order', () => {
    const table = tableOf(rows);
    assert.deepEqual(phraseTableRows(table, ['d', 'x', 'a']), tableOf([rows[3], rows[0]] as PhraseRow[]));
  });

  test('decodes what it encodes, and refuses what is not a table', () => {
    const table = tableOf(rows);
    assert.deepEqual(decodePhraseTable(encodePhraseTable(table)), table);
    assert.equal(decodePhraseTable(new Uint8Array(0)), undefined);
    assert.equal(decodePhraseTable(Uint8Array.from([1, 2, 3])), undefined);
    assert.equal(decodePhraseTable(undefined), undefined);
  });

  test('a table stored deflated, as before, still decodes; one cut short does not', () => {
    const table = tableOf(rows);
    const encoded = encodePhraseTable(table);
    assert.deepEqual(decodePhraseTable(deflateRawSync(encoded.subarray(1), { level: 1 })), table);
    assert.equal(decodePhraseTable(encoded.subarray(0, encoded.length - 4)), undefined);
  });
});
