import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ResolutionEntity } from '../entity-resolution/resolution-types.js';
import { entityEditRules, type EntityEdit } from './entity-edit-rules.js';
import { mergesWithEdits } from './merges-with-edits.js';

const entity = (title: string): ResolutionEntity => ({ id: `id-${title}`, title, type: 'person', aliases: [], description: '' });
const entities = ['Sherlock Holmes', 'Holmes', 'Mr. Holmes', 'John Watson', 'Watson'].map(entity);
const key = (name: string): string => name.toLowerCase();
const edit = (kind: EntityEdit['kind'], title: string, names: string[]): EntityEdit => ({ id: 'edit-1', kind, entity: { id: `id-${title}`, title, name: title }, names, at: '' });

test('a name merged into another joins its merge, and the entity merged into is the canonical one', () => {
  const resolved = [{ canonical: 'id-Holmes', members: ['id-Holmes', 'id-Mr. Holmes'] }];
  const rules = entityEditRules([edit('merge', 'Sherlock Holmes', ['Holmes'])], key);
  assert.deepEqual(mergesWithEdits(resolved, entities, rules, key), [{ canonical: 'id-Sherlock Holmes', members: ['id-Sherlock Holmes', 'id-Holmes', 'id-Mr. Holmes'] }]);
});

test('a name kept apart leaves the merge resolution made; no edit leaves the merges as they are', () => {
  const resolved = [{ canonical: 'id-John Watson', members: ['id-John Watson', 'id-Watson'] }];
  assert.deepEqual(mergesWithEdits(resolved, entities, entityEditRules([edit('split', 'John Watson', ['Watson'])], key), key), []);
  assert.deepEqual(mergesWithEdits(resolved, entities, entityEditRules([], key), key), resolved);
});
