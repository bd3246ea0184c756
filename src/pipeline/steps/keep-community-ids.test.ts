import assert from 'node:assert/strict';
import { test } from 'node:test';
import { contentId } from '../../core/ids.js';
import { keepCommunityIds, type NewCommunity } from './keep-community-ids.js';

const members = (text: string): string[] => text.split('').sort();

/** The nodes are the letters a-w, numbered in order; x, y and z are members no longer in the graph. */
const nodeIds = 'abcdefghijklmnopqrstuvw'.split('');
const nodeOf = (id: string): number => nodeIds.indexOf(id);

/** {@link keepCommunityIds} over letters: each community's members as node numbers. */
function keep(next: ReadonlyArray<{ level: number; members: string[] }>, previous: ReadonlyArray<{ id: string; level: number; entityIds: string[] }>, threshold: number) {
  const numbered: NewCommunity[] = next.map((community) => ({ level: community.level, members: community.members.map(nodeOf) }));
  const before = previous.map((community) => ({ id: community.id, level: community.level, members: community.entityIds.map(nodeOf) }));
  return keepCommunityIds(numbered, before, threshold, nodeIds.length, (node) => nodeIds[node] as string);
}

test('a community keeps the id of the previous community of its level it overlaps by Jaccard ≥ θ; others get content ids', () => {
  const previous = [
    { id: 'old-1', level: 0, entityIds: members('abcd') },
    { id: 'old-2', level: 0, entityIds: members('efgh') },
    { id: 'old-3', level: 1, entityIds: members('ab') },
  ];
  const next = [
    { level: 0, members: members('abcde') }, // 4/5 with old-1
    { level: 0, members: members('fghuvw') }, // 3/7 with old-2: below ½
    { level: 1, members: members('ab') }, // identical to old-3
    { level: 1, members: members('abcd') }, // identical members to old-1, but another level
  ];
  const { ids, keptFrom } = keep(next, previous, 0.5);
  assert.deepEqual(keptFrom, [0, -1, 2, -1]);
  assert.deepEqual(ids, ['old-1', contentId('community', 0, members('fghuvw')), 'old-3', contentId('community', 1, members('abcd'))]);
  assert.deepEqual(keep(next, previous, 1).keptFrom, [-1, -1, 2, -1], 'θ = 1 keeps only identical members');
  assert.deepEqual(keep(next, previous, 0.4).keptFrom, [0, 1, 2, -1]);
});

test('matching is one-to-one, best similarity first, ties decided by ids and not by list order', () => {
  const previous = [{ id: 'old', level: 0, entityIds: members('abcdef') }];
  // Both halves share 3 of 6 with the old community (Jaccard ½): the one with the smaller content id wins.
  const left = { level: 0, members: members('abc') };
  const right = { level: 0, members: members('def') };
  const winner = contentId('community', 0, left.members) < contentId('community', 0, right.members) ? 0 : 1;
  const forward = keep([left, right], previous, 0.5);
  const backward = keep([right, left], previous, 0.5);
  assert.equal(forward.ids.filter((id) => id === 'old').length, 1);
  assert.equal(forward.keptFrom[winner], 0);
  assert.deepEqual([...backward.ids].reverse(), forward.ids);
  // A better match takes precedence over list order.
  const better = keep([left, { level: 0, members: members('abcdefg') }], previous, 0.5);
  assert.deepEqual(better.keptFrom, [-1, 0]);
});

test('members that left the index count against the match; an id kept from earlier never doubles as a content id', () => {
  const previous = [{ id: 'old', level: 0, entityIds: members('abcdxy') }];
  assert.deepEqual(keep([{ level: 0, members: members('abcd') }], previous, 0.7).keptFrom, [-1], 'Jaccard 4/6');
  // The previous community kept the content id of {p, q} from an earlier run; a new {p, q} community must not reuse it.
  const pq = contentId('community', 0, members('pq'));
  const earlier = [{ id: pq, level: 0, entityIds: members('pqrs') }];
  const { ids } = keep([{ level: 0, members: members('qrs') }, { level: 0, members: members('pq') }], earlier, 0.5);
  assert.equal(ids[0], pq);
  assert.notEqual(ids[1], pq);
  assert.equal(new Set(ids).size, 2);
});

test('no previous communities: every id is the content id, as a fresh build gives', () => {
  const next = [{ level: 0, members: members('ab') }, { level: 1, members: members('a') }];
  assert.deepEqual(keep(next, [], 0.5).ids, next.map((community) => contentId('community', community.level, community.members)));
});
