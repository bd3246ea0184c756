import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type EntityEdit, entityEditRules } from './entity-edit-rules.js';

const key = (name: string): string => name.toLowerCase();
const edit = (id: number, kind: EntityEdit['kind'], title: string, names: string[], undone = false): EntityEdit => ({
  id: `edit-${id}`,
  kind,
  entity: { id: `entity-${title}`, title, name: title },
  names,
  at: '2026-12-04T00:00:00.000Z',
  ...(undone ? { undoneAt: '2026-12-04T01:00:00.000Z' } : {}),
});

test('merges map names to the entity kept, followed along chains; a later merge back makes the other entity stay', () => {
  const rules = entityEditRules([edit(1, 'merge', 'Sherlock Holmes', ['Holmes', 'Mr. Holmes']), edit(2, 'merge', 'Baker Street', ['Sherlock Holmes'])], key);
  assert.deepEqual([...rules.sameAs].sort(), [['holmes', 'baker street'], ['mr. holmes', 'baker street'], ['sherlock holmes', 'baker street']]);
  const back = entityEditRules([edit(1, 'merge', 'B', ['A']), edit(2, 'merge', 'A', ['B'])], key);
  assert.deepEqual([...back.sameAs], [['b', 'a']]);
});

test('a split takes an alias out of the merges and keeps it apart; an undone edit does not apply', () => {
  const rules = entityEditRules([edit(1, 'merge', 'Sherlock Holmes', ['Holmes', 'Mr. Holmes']), edit(2, 'split', 'Sherlock Holmes', ['Holmes'])], key);
  assert.deepEqual([...rules.sameAs], [['mr. holmes', 'sherlock holmes']]);
  assert.deepEqual([...rules.keepApart], ['holmes']);
  const undone = entityEditRules([edit(1, 'merge', 'Sherlock Holmes', ['Holmes']), edit(2, 'split', 'Charles Babbage', ['Babbage'], true)], key);
  assert.deepEqual([...undone.sameAs], [['holmes', 'sherlock holmes']]);
  assert.equal(undone.keepApart.size, 0);
  const remerged = entityEditRules([edit(1, 'split', 'Charles Babbage', ['Babbage']), edit(2, 'merge', 'Charles Babbage', ['Babbage'])], key);
  assert.equal(remerged.keepApart.size, 0);
});
