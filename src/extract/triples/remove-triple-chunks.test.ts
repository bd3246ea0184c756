import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createRandom } from '../../core/random.js';
import { removeTripleChunks } from './remove-triple-chunks.js';
import { decodeTripleIndex, encodeTripleIndex } from './triple-index-codec.js';
import { buildTripleIndex, type TripleRow } from './triple-index.js';

test('removing chunks from a stored index gives the bytes a build over the kept rows encodes to, reading only the rows it must', async () => {
  // Surface forms that meet after normalization, facts repeated across chunks, self-loops, non-ASCII (no empty arguments: see the function).
  const words = ['Ida Halvard', 'ida halvard', 'Weir Bridge', 'weir-bridge', 'the Marle', 'Kraków', 'Zoë Ørsted 🌉', '1962', 'Marle Boatworks', 'ferry inn', 'Ferry Inn', 'Lund'];
  const predicates = ['designed', 'Designed', 'crosses', 'flows  into', 'is'];
  let walkedSome = 0;
  for (let seed = 1; seed <= 60; seed++) {
    const random = createRandom(seed);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
    const chunks = Array.from({ length: 2 + Math.floor(random() * 12) }, (_, chunk) => `c${seed}-${chunk}`);
    const rows: TripleRow[] = [];
    for (const chunkId of chunks) {
      for (let triple = Math.floor(random() * 5); triple > 0; triple--) {
        rows.push({ id: `t${rows.length}`, subject: pick(words), predicate: pick(predicates), object: pick(words), chunkId });
      }
    }
    const removed = chunks.filter(() => random() < 0.3);
    const gone = new Set(removed);
    const kept = rows.filter((row) => !gone.has(row.chunkId));
    const stored = decodeTripleIndex(encodeTripleIndex(buildTripleIndex(rows)) as Uint8Array);
    assert.ok(stored);
    const read: string[] = [];
    const updated = await removeTripleChunks(stored, removed, async (chunkIds) => {
      read.push(...chunkIds);
      const wanted = new Set(chunkIds);
      return kept.filter((row) => wanted.has(row.chunkId));
    });
    assert.deepEqual(Buffer.from(encodeTripleIndex(updated) as Uint8Array), Buffer.from(encodeTripleIndex(buildTripleIndex(kept)) as Uint8Array), `seed ${seed}`);
    for (const text of updated.phraseTexts) assert.equal(updated.phraseIndex.get(text), updated.phraseTexts.indexOf(text), `seed ${seed}`);
    assert.ok(read.every((chunkId) => !gone.has(chunkId)), `seed ${seed}: only kept chunks are read`);
    if (read.length > 0) walkedSome++;
  }
  // Some cases moved a first occurrence into a later chunk (and read its rows).
  assert.ok(walkedSome > 5, `${walkedSome}`);
});
