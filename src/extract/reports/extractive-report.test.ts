import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ChunkRecord, CommunityRecord, EntityRecord } from '../../core/types.js';
import { createExtractiveReporter, extractiveMemberOrder, extractiveRating, type ReportSources } from './extractive-report.js';

function entity(id: string, title: string, degree: number, chunkIds: string[]): EntityRecord {
  return { id, title, type: 'geo', description: `${title} is a place.`, aliases: [], frequency: chunkIds.length, degree, chunkIds };
}

const chunk = (id: string, text: string): ChunkRecord => ({ id, documentId: 'd', ordinal: 0, text, nTokens: 0, start: 0, end: text.length });

const entities = [entity('a', 'Arlow', 9, ['c1']), entity('b', 'Brenmoor', 5, ['c2']), entity('c', 'Corvale', 1, ['c1', 'c2'])];
const sources: ReportSources = {
  entities: new Map(entities.map((item) => [item.id, item])),
  relations: new Map([
    ['r1', { source: 'a', target: 'c' }],
    ['r2', { source: 'b', target: 'c' }],
  ]),
  chunks: new Map([
    ['c1', chunk('c1', 'Arlow lies upstream of Corvale on the river.')],
    ['c2', chunk('c2', 'Brenmoor and Corvale share one market square.')],
  ]),
};
const community: CommunityRecord = { id: 'k', level: 0, parent: null, children: [], title: 'Community 1', entityIds: ['a', 'b', 'c'], relationIds: ['r1', 'r2'], chunkIds: ['c1', 'c2'], size: 3 };

describe('createExtractiveReporter ordering', () => {
  it("orders members, sentences and neighbours by the entities' own degrees without an ordering", () => {
    const report = createExtractiveReporter(sources)(community);
    assert.equal(report.title, 'Arlow, Brenmoor and Corvale');
    assert.deepEqual(
      report.findings.map((finding) => finding.summary),
      ['Arlow (geo)', 'Brenmoor (geo)', 'Corvale (geo)'],
    );
  });

  it('orders by the given degrees where given, by the own degree elsewhere; the rating reads the own degrees', () => {
    const ordering = new Map([
      ['a', { degree: 1, frequency: 1 }],
      ['c', { degree: 7, frequency: 2 }],
    ]);
    const report = createExtractiveReporter(sources, { ordering })(community);
    // Corvale 7 (given), Brenmoor 5 (its own), Arlow 1 (given).
    assert.equal(report.title, 'Corvale, Brenmoor and Arlow');
    assert.deepEqual(
      report.findings.map((finding) => finding.summary),
      ['Corvale (geo)', 'Brenmoor (geo)', 'Arlow (geo)'],
    );
    assert.match(report.findings[0]?.explanation ?? '', /Connected here to Brenmoor and Arlow\.$/);
    // Own degrees 9 + 5 + 1, not the given 1 + 5 + 7.
    assert.equal(report.rating, Math.log(1 + 15));
    assert.equal(extractiveRating(['a', 'b', 'c', 'gone'], (id) => sources.entities.get(id)?.degree ?? 0), Math.log(1 + 15));
  });
});

describe('createExtractiveReporter prose', () => {
  it('quotes sentences without the markdown heading the sentence splitter glued to them', () => {
    const marked: ReportSources = { ...sources, chunks: new Map([['c1', chunk('c1', '# The river towns\nArlow lies upstream of **Corvale** on the river.')], ['c2', chunk('c2', 'Brenmoor and Corvale share one market square.')]]) };
    const report = createExtractiveReporter(marked)(community);
    assert.match(report.summary, /Arlow lies upstream of Corvale on the river\./);
    assert.doesNotMatch(report.summary, /#|\*\*/);
  });
});

describe('createExtractiveReporter relations', () => {
  it("writes the same report from the relations of its findings' entities alone as from every relation", () => {
    // Ten members in a ring of relations, with an outside entity joined to the weakest: two findings name neighbours.
    const ring = Array.from({ length: 10 }, (_, index) => entity(`e${index}`, `Place ${index}`, 20 - index, [`k${index}`]));
    const outsider = entity('x', 'Outside', 50, ['k0']);
    const relations = new Map<string, { source: string; target: string }>();
    ring.forEach((member, index) => relations.set(`r${index}`, { source: member.id, target: (ring[(index + 1) % ring.length] as EntityRecord).id }));
    relations.set('rx', { source: 'x', target: 'e9' });
    const all: ReportSources = {
      entities: new Map([...ring, outsider].map((item) => [item.id, item])),
      relations,
      chunks: new Map(ring.map((member) => [member.chunkIds[0] as string, chunk(member.chunkIds[0] as string, `${member.title} lies on the river road.`)])),
    };
    const members: CommunityRecord = { id: 'ring', level: 0, parent: null, children: [], title: 'Community 2', entityIds: ring.map((member) => member.id), relationIds: [...relations.keys()].filter((id) => id !== 'rx').sort(), chunkIds: ring.map((member) => member.chunkIds[0] as string), size: 10 };
    const findings = extractiveMemberOrder(members, all.entities).slice(0, 2).map((member) => member.id);
    assert.deepEqual(findings, ['e0', 'e1']);
    const ofFindings = new Map([...relations].filter(([, relation]) => findings.includes(relation.source) || findings.includes(relation.target)));
    const full = createExtractiveReporter(all, { maxFindings: 2 })(members);
    assert.deepEqual(createExtractiveReporter({ ...all, relations: ofFindings }, { maxFindings: 2 })(members), full);
    assert.match(full.findings[0]?.explanation ?? '', /Connected here to Place 1 and Place 9\.$/);
  });
});
