// Issue 40: a document's title names what it is about; where its text writes the title, the fast graph has it as one
// entity even when the tagger cuts it apart, and where it never does, the title is another name of the name the text
// opens with — in a fresh build and in an update between refreshes.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { createKgrag, type Kgrag } from '../src/api/create-kgrag.js';
import type { InputDocument } from '../src/pipeline/pipeline-step.js';

const folders: string[] = [];
after(() => {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});
const open = (refreshShare: number, keepApart: string[] = []): Promise<Kgrag> => {
  const folder = mkdtempSync(join(tmpdir(), 'kgrag-title-entities-'));
  folders.push(folder);
  return createKgrag({ workspace: folder, env: {}, config: { index: { mode: 'fast', refreshShare }, extract: { nlp: { keepApart } }, pipeline: { methods: ['local'] } } });
};

const film: InputDocument = {
  title: "Man's Favorite Sport? (film)",
  text: "Man's Favorite Sport? is a 1964 American comedy film directed by Howard Hawks and starring Rock Hudson and Paula Prentiss. Hawks later said that Rock Hudson was miscast in Man's Favorite Sport?.",
  source: 'test:film',
};
const others: InputDocument[] = [
  { title: 'Howard Hawks', text: 'Howard Hawks was an American film director. Howard Hawks directed Bringing Up Baby with Cary Grant.', source: 'test:hawks' },
  { title: 'Rock Hudson', text: 'Rock Hudson was an American actor. Rock Hudson starred with Doris Day in Pillow Talk.', source: 'test:hudson' },
  { title: 'Paula Prentiss', text: 'Paula Prentiss is an American actress. Paula Prentiss married Richard Benjamin.', source: 'test:prentiss' },
];
const names = async (kgrag: Kgrag): Promise<string[]> => (await kgrag.store.table('entities').all()).flatMap((entity) => [entity.title, ...entity.aliases]);

describe('document titles in the fast graph', () => {
  it('finds a title the tagger cuts apart as one entity, in a fresh build and in an update between refreshes, and a delete takes it away', async () => {
    const fresh = await open(0);
    const updated = await open(1);
    try {
      await fresh.index(others.concat(film));
      assert.ok((await names(fresh)).includes("Man's Favorite Sport?"), (await names(fresh)).join(', '));
      await updated.index(others);
      assert.ok(!(await names(updated)).includes("Man's Favorite Sport?"));
      await updated.index([film]);
      assert.ok((await names(updated)).includes("Man's Favorite Sport?"), 'added between refreshes');
      await updated.delete([film.source as string]);
      assert.ok(!(await names(updated)).includes("Man's Favorite Sport?"), 'deleted with its document');
    } finally {
      await fresh.close();
      await updated.close();
    }
  });

  it('makes a title its text never writes an alias of the name the text opens with, lists the merge, and keeps it apart on request', async () => {
    const soldier: InputDocument = {
      title: 'Sam Davis (soldier)',
      text: 'Samuel George Davis MM (1871 – 1938) was a British soldier of the Royal Engineers. Davis served in South Africa with Rock Hudson.',
      source: 'test:davis',
    };
    const davisNames = async (kgrag: Kgrag): Promise<string[]> =>
      (await kgrag.store.table('entities').all()).filter((entity) => entity.title === 'Samuel George Davis MM').flatMap((entity) => entity.aliases);
    // A title its text writes in another spelling of the same name is a spelling, not a merge.
    const bopha: InputDocument = { title: 'Bopha!', text: 'Bopha! is a 1993 drama film directed by Morgan Freeman. Danny Glover starred in Bopha!.', source: 'test:bopha' };
    const fresh = await open(0);
    const updated = await open(1);
    const apart = await open(0, ['Sam Davis']);
    try {
      await fresh.index(others.concat(soldier, bopha));
      assert.deepEqual(await davisNames(fresh), ['Sam Davis']);
      assert.ok((await names(fresh)).includes('Bopha!'), (await names(fresh)).join(', '));
      const [found] = await fresh.graph.searchEntities('Sam Davis', { limit: 1 });
      assert.equal(found?.title, 'Samuel George Davis MM', 'entity search finds the entity by the title');
      const merges = await fresh.graph.aliasMerges();
      assert.deepEqual(
        merges.map((merge) => [merge.name, merge.kind, merge.title]),
        [['Sam Davis', 'document title', 'Samuel George Davis MM']],
      );
      await updated.index(others);
      await updated.index([soldier]);
      assert.deepEqual(await davisNames(updated), ['Sam Davis'], 'added between refreshes');
      await apart.index(others.concat(soldier));
      assert.deepEqual(await davisNames(apart), [], 'kept apart');
      assert.deepEqual(await apart.graph.aliasMerges(), []);
    } finally {
      await fresh.close();
      await updated.close();
      await apart.close();
    }
  });
});
