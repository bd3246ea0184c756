import assert from 'node:assert/strict';
import { test } from 'node:test';
import { contentId } from '../../core/ids.js';
import type { CommunityRecord, EntityRecord } from '../../core/types.js';
import { createExtractiveReportInputs, extractiveEntityDigest } from './extractive-report-inputs.js';

const entity = (id: string, chunkIds: string[], degree = 2): EntityRecord => ({ id, title: id, type: 'noun phrase', description: `${id} is mentioned`, aliases: [], frequency: chunkIds.length, degree, chunkIds });
const community: CommunityRecord = { id: 'c', level: 1, parent: null, children: [], title: 'Community 1', entityIds: ['mill', 'weir'], relationIds: ['r1'], chunkIds: ['k1', 'k2'], size: 2 };
const entities = (changes: Partial<EntityRecord> = {}, chunks = ['k1', 'k2']): Map<string, EntityRecord> =>
  new Map([
    ['mill', { ...entity('mill', chunks), ...changes }],
    ['weir', entity('weir', ['k2'])],
  ]);

test('extractive report inputs change with what the report quotes, not with degrees, frequencies, mentions outside the community or the community id', () => {
  const extractiveReportInputs = (of: CommunityRecord, from: Map<string, EntityRecord>): string => createExtractiveReportInputs(from)(of);
  const base = extractiveReportInputs(community, entities());
  assert.equal(extractiveReportInputs(community, entities({ degree: 40, frequency: 9 })), base);
  assert.equal(extractiveReportInputs(community, entities({}, ['k1', 'k2', 'k9'])), base, 'a mention in a chunk the community does not read');
  assert.equal(extractiveReportInputs({ ...community, id: 'other', title: 'Community 7', level: 2 }, entities()), base, 'nor the id, title or level');
  assert.notEqual(extractiveReportInputs(community, entities({ description: 'mill is old' })), base);
  assert.notEqual(extractiveReportInputs(community, entities({ aliases: ['the mill'] })), base);
  assert.notEqual(extractiveReportInputs(community, entities({}, ['k1'])), base, 'a mention within the community');
  assert.notEqual(extractiveReportInputs({ ...community, chunkIds: ['k1', 'k2', 'k3'] }, entities()), base);
  assert.notEqual(extractiveReportInputs({ ...community, relationIds: ['r1', 'r2'] }, entities()), base);
  assert.notEqual(extractiveReportInputs({ ...community, entityIds: ['mill'] }, entities()), base);
});

test('extractive report inputs hash as they did per item, so that the hashes an index stores stay valid', () => {
  const mill = entity('mill', ['k1', 'k2']);
  const weir = entity('weir', ['k2']);
  const entityHash = (item: EntityRecord): string => contentId('extractive-entity', JSON.stringify([item.id, item.title, item.type, item.description, item.aliases]));
  const perItem = contentId('extractive-report-inputs', [`${entityHash(mill)}\u0000k1,k2`, `${entityHash(weir)}\u0000k2`], '\u0001', ['k1', 'k2'], '\u0001', ['r1']);
  assert.equal(createExtractiveReportInputs(new Map([['mill', mill], ['weir', weir]]))(community), perItem);
  const lonely: CommunityRecord = { ...community, entityIds: ['mill'], relationIds: [], chunkIds: [] };
  assert.equal(createExtractiveReportInputs(new Map([['mill', mill]]))(lonely), contentId('extractive-report-inputs', [`${entityHash(mill)}\u0000`], '\u0001', [], '\u0001', []));
});

test('an entity digest changes with every field it covers, and fields do not run into each other', () => {
  const entity = { id: 'e1', title: 'Kester Weir', type: 'place', description: 'A weir on the river.', aliases: ['the weir'], chunkIds: ['k1', 'k2'] };
  const digest = extractiveEntityDigest(entity);
  assert.equal(extractiveEntityDigest({ ...entity, aliases: [...entity.aliases], chunkIds: [...entity.chunkIds] }), digest);
  const variants = [
    { ...entity, id: 'e2' },
    { ...entity, title: 'Kester Weirs' },
    { ...entity, type: 'bridge' },
    { ...entity, description: 'A weir on the river Kest.' },
    { ...entity, aliases: [] },
    { ...entity, aliases: ['the', 'weir'] },
    { ...entity, chunkIds: ['k1'] },
    { ...entity, chunkIds: ['k2', 'k1'] },
    // The same characters in the neighbouring field.
    { ...entity, title: 'Kester Weirp', type: 'lace' },
    { ...entity, aliases: ['the weir', 'k1'], chunkIds: ['k2'] },
  ];
  const digests = new Set(variants.map(extractiveEntityDigest));
  assert.equal(digests.size, variants.length);
  assert.ok(!digests.has(digest));
});
