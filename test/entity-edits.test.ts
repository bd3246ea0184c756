/*
 * Issue 41: entity merge and split with undo, through the library API the CLI, the server and the explorer use. The
 * edits are kept with the index, apply to later runs, and undoing every one gives back the graph of before.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { createKgrag, type Kgrag } from '../src/api/create-kgrag.js';
import type { EntityRecord } from '../src/core/types.js';

const documents = [
  {
    title: 'Difference engines',
    text: 'Charles Babbage designed the Difference Engine in London. Babbage never finished the Difference Engine, and the Science Museum built one in 1991 from the plans of Babbage.',
  },
  {
    title: 'The Analytical Engine',
    text: 'Ada Lovelace wrote the first program for the Analytical Engine of Charles Babbage. Lovelace saw that the Analytical Engine could compose music; Lovelace published her notes in 1843.',
  },
  {
    title: 'Lovelace in London',
    text: 'Ada Lovelace lived in London and met Charles Babbage at a party in 1833. The Countess of Lovelace, as Ada Lovelace became, corresponded with Charles Babbage about the Analytical Engine.',
  },
];

let scratch: string;
let kgrag: Kgrag;
before(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'kgrag-entity-edits-'));
  kgrag = await createKgrag({ workspace: join(scratch, 'ws'), env: {}, config: { index: { mode: 'fast' }, pipeline: { methods: ['local'] } } });
  await kgrag.index(documents);
});
after(async () => {
  await kgrag?.close();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

const entities = async (): Promise<EntityRecord[]> => kgrag.store.table('entities').all();
const named = async (title: string): Promise<EntityRecord | undefined> => (await entities()).find((entity) => entity.title === title);

test('merge, split and undo: each is recorded, changes the graph, and undoing them all gives back the graph of before', async () => {
  const original = (await entities()).map((entity) => `${entity.id} ${entity.title}`).sort();
  const lovelace = await named('Ada Lovelace');
  const surname = await named('Lovelace');
  const countess = await named('Countess of Lovelace');
  assert.ok(lovelace && surname && countess, `one person, three entities: ${original.join(', ')}`);

  const merged = await kgrag.editEntities({ merge: ['Lovelace', 'countess of lovelace'], into: lovelace.id });
  assert.deepEqual([merged.edit.id, merged.edit.kind, merged.edit.entity.title, merged.edit.names], ['edit-1', 'merge', 'Ada Lovelace', ['Lovelace', 'Countess of Lovelace']]);
  assert.equal(await named('Lovelace'), undefined, 'no entity of its own any more');
  assert.equal(await named('Countess of Lovelace'), undefined);
  const into = await named('Ada Lovelace');
  assert.equal(into?.id, lovelace.id, 'the entity merged into keeps its id');
  assert.deepEqual(into?.aliases.slice().sort(), ['Countess of Lovelace', 'Lovelace']);
  assert.deepEqual(into?.chunkIds.slice().sort(), [...new Set([...lovelace.chunkIds, ...surname.chunkIds, ...countess.chunkIds])].sort(), 'its chunks are those of the three');

  const split = await kgrag.editEntities({ split: 'Lovelace', from: 'Ada Lovelace' });
  assert.deepEqual([split.edit.id, split.edit.kind, split.edit.entity.name, split.edit.names], ['edit-2', 'split', 'Ada Lovelace', ['Lovelace']]);
  assert.ok(await named('Lovelace'), 'the surname is an entity of its own again');
  assert.deepEqual((await named('Ada Lovelace'))?.aliases, ['Countess of Lovelace']);

  await assert.rejects(kgrag.editEntities({ split: 'Ada Lovelace', from: 'Ada Lovelace' }), /"Ada Lovelace" is the name "Ada Lovelace" is known by/);
  await assert.rejects(kgrag.editEntities({ merge: ['Grace Hopper'], into: 'London' }), (error: Error & { code?: string }) => error.code === 'ENTITY_EDIT_UNKNOWN_ENTITY');

  await kgrag.editEntities({ undo: 'edit-1' });
  await kgrag.editEntities({ undo: 'edit-2' });
  const log = await kgrag.entityEdits();
  assert.deepEqual(
    log.map((edit) => [edit.id, edit.kind, edit.undoneAt !== undefined]),
    [
      ['edit-1', 'merge', true],
      ['edit-2', 'split', true],
    ],
  );
  assert.deepEqual((await entities()).map((entity) => `${entity.id} ${entity.title}`).sort(), original);
});
