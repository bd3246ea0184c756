import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createRandom } from '../../core/random.js';
import type { ClaimRecord, CommunityRecord, EntityRecord, RelationRecord, ReportRecord } from '../../core/types.js';
import { createTokenizer } from '../../text/tokenizer.js';
import type { Tokenizer } from '../../text/tokenizer.js';
import { buildCommunityReportContext } from './community-report-context.js';

const tokenizer: Tokenizer = await createTokenizer('o200k_base');

function entity(id: string, hid: number, description: string, degree = 1): EntityRecord {
  return { id, hid, title: id.toUpperCase(), type: 'person', description, aliases: [], frequency: 1, degree, chunkIds: [] };
}

function relation(id: string, hid: number, source: string, target: string, combinedDegree: number, description = `${source} knows ${target}`): RelationRecord {
  return { id, hid, source, target, description, keywords: [], weight: 1, combinedDegree, chunkIds: [] };
}

function community(id: string, entityIds: string[], relationIds: string[], children: string[] = [], level = 0): CommunityRecord {
  return { id, level, parent: null, children, title: id, entityIds, relationIds, chunkIds: [], size: entityIds.length };
}

function report(communityId: string, hid: number, fullContent: string): ReportRecord {
  return { communityId, hid, level: 1, title: communityId, summary: '', findings: [], rating: 5, ratingExplanation: '', fullContent, generatedBy: 'llm', error: null };
}

const mapOf = <T extends { id: string }>(records: readonly T[]): Map<string, T> => new Map(records.map((record) => [record.id, record]));

describe('buildCommunityReportContext', () => {
  const people = [entity('ada', 1, 'A mathematician, "the enchantress of numbers"', 3), entity('charles', 2, 'An inventor', 2), entity('mary', 3, 'A scientist', 2), entity('ghost', 4, 'Not a member', 1)];
  const links = [
    relation('r1', 11, 'ada', 'charles', 5, 'Ada wrote notes on\nCharles\'s engine'),
    relation('r2', 12, 'ada', 'mary', 5),
    relation('r3', 13, 'charles', 'mary', 4),
    relation('r4', 14, 'ada', 'ghost', 4),
  ];
  const claims = new Map<string, ClaimRecord[]>([
    ['ada', [{ id: 'k1', hid: 21, subject: 'ada', object: 'charles', type: 'collaboration', status: 'TRUE', startDate: null, endDate: null, description: 'Worked together', sourceText: '', chunkId: 'c1' }]],
  ]);
  const triangle = community('c', ['ada', 'charles', 'mary'], ['r1', 'r2', 'r3', 'r4']);

  it('renders GraphRAG-style CSV sections with human readable ids, in priority order', () => {
    const context = buildCommunityReportContext({ community: triangle, entities: mapOf(people), relations: mapOf(links), claims, tokenizer, maxTokens: 8000 });
    assert.equal(
      context.text,
      [
        '-----Entities-----',
        'human_readable_id,title,type,description,degree',
        '1,ADA,person,"A mathematician, ""the enchantress of numbers""",3',
        '2,CHARLES,person,An inventor,2',
        '3,MARY,person,A scientist,2',
        '',
        '-----Relationships-----',
        'human_readable_id,source,target,description,combined_degree',
        "11,ADA,CHARLES,Ada wrote notes on Charles's engine,5",
        '12,ADA,MARY,ada knows mary,5',
        '13,CHARLES,MARY,charles knows mary,4',
        '',
        '-----Claims-----',
        'human_readable_id,subject,object,type,status,description',
        '21,ADA,CHARLES,collaboration,TRUE,Worked together',
      ].join('\n'),
    );
    assert.equal(context.tokens, tokenizer.count(context.text));
    assert.equal(context.truncated, false);
    assert.deepEqual(context.entityHids, [1, 2, 3]);
    assert.deepEqual(context.relationHids, [11, 12, 13]);
    assert.deepEqual(context.claimIds, ['k1']);
    assert.deepEqual(context.usedSubReports, []);
  });

  it('keeps every relationship of a node, unlike GraphRAG (at most one edge per node)', () => {
    const hub = [entity('hub', 1, 'Centre', 4), ...['a', 'b', 'c', 'd'].map((id, index) => entity(id, index + 2, id, 1))];
    const spokes = ['a', 'b', 'c', 'd'].map((id, index) => relation(`s${id}`, 10 + index, 'hub', id, 5));
    const star = community('star', hub.map((record) => record.id), spokes.map((record) => record.id));
    const context = buildCommunityReportContext({ community: star, entities: mapOf(hub), relations: mapOf(spokes), tokenizer, maxTokens: 8000 });
    assert.deepEqual(context.relationIds, ['sa', 'sb', 'sc', 'sd']);
  });

  it('adds entities without edges after the relationships', () => {
    const loner = entity('loner', 9, 'Alone', 0);
    const context = buildCommunityReportContext({
      community: community('c', ['loner', 'ada', 'charles'], ['r1']),
      entities: mapOf([...people, loner]),
      relations: mapOf(links),
      tokenizer,
      maxTokens: 8000,
    });
    assert.deepEqual(context.entityIds, ['ada', 'charles', 'loner']);
  });

  it('stops at the first addition over budget and never exceeds it', () => {
    const full = buildCommunityReportContext({ community: triangle, entities: mapOf(people), relations: mapOf(links), tokenizer, maxTokens: 8000 });
    const tight = buildCommunityReportContext({ community: triangle, entities: mapOf(people), relations: mapOf(links), tokenizer, maxTokens: full.tokens - 5 });
    assert.ok(tight.tokens <= full.tokens - 5);
    assert.equal(tight.truncated, true);
    assert.deepEqual(tight.relationIds, ['r1', 'r2']);
    const none = buildCommunityReportContext({ community: triangle, entities: mapOf(people), relations: mapOf(links), tokenizer, maxTokens: 10 });
    assert.equal(none.text, '');
    assert.equal(none.tokens, 0);
  });

  describe('sub-community reports', () => {
    const long = (name: string): string => `${name} ${'has a long and detailed history with many events, places and people '.repeat(4)}`;
    const members = ['a1', 'a2', 'a3', 'a4', 'b1', 'b2'].map((id, index) => entity(id, index + 1, long(id), 2));
    const edges = [
      relation('a12', 11, 'a1', 'a2', 6, long('a12')),
      relation('a23', 12, 'a2', 'a3', 6, long('a23')),
      relation('a34', 13, 'a3', 'a4', 5, long('a34')),
      relation('a41', 14, 'a4', 'a1', 5, long('a41')),
      relation('b12', 15, 'b1', 'b2', 3, long('b12')),
      relation('x', 16, 'a1', 'b1', 4, 'a1 meets b1'),
    ];
    const childA = community('ca', ['a1', 'a2', 'a3', 'a4'], ['a12', 'a23', 'a34', 'a41'], [], 1);
    const childB = community('cb', ['b1', 'b2'], ['b12'], [], 1);
    const parent = community('p', members.map((record) => record.id), edges.map((record) => record.id), ['cb', 'ca']);
    const subReports = new Map([
      ['ca', report('ca', 31, '# The A circle\n\nFour people who meet weekly.')],
      ['cb', report('cb', 32, '# The B pair\n\nTwo neighbours.')],
    ]);
    const input = (maxTokens: number): Parameters<typeof buildCommunityReportContext>[0] => ({
      community: parent,
      entities: mapOf(members),
      relations: mapOf(edges),
      subReports,
      communities: mapOf([childA, childB]),
      tokenizer,
      maxTokens,
    });

    it('replaces the largest sub-community first, keeping edges between sub-communities', () => {
      const full = buildCommunityReportContext(input(100_000));
      assert.deepEqual(full.usedSubReports, [], 'the local context is used when it fits');
      const context = buildCommunityReportContext(input(Math.floor(full.tokens * 0.6)));
      assert.deepEqual(context.usedSubReports, ['ca']);
      assert.equal(context.truncated, false);
      assert.match(context.text, /^-----Reports-----\nhuman_readable_id,full_content\n31,"# The A circle\n\nFour people who meet weekly\."\n\n-----Entities-----/);
      assert.deepEqual(context.relationIds, ['x', 'b12']);
      assert.deepEqual(context.entityIds, ['b1', 'b2']);
    });

    it('replaces more sub-communities when one is not enough, then packs what fits', () => {
      const one = buildCommunityReportContext(input(100_000));
      const both = buildCommunityReportContext(input(Math.floor(one.tokens * 0.2)));
      assert.deepEqual(both.usedSubReports, ['ca', 'cb']);
      assert.deepEqual(both.relationIds, ['x']);
      assert.equal(both.truncated, false);
      const packed = buildCommunityReportContext(input(both.tokens - 8));
      assert.equal(packed.truncated, true);
      assert.ok(packed.tokens <= both.tokens - 8);
      assert.deepEqual(packed.usedSubReports, ['ca', 'cb']);
      assert.deepEqual(packed.relationIds, []);
    });
  });

  it('never exceeds the budget on random communities, and grows in priority order', () => {
    const random = createRandom(11);
    const words = ['river', 'mill', 'guild', 'harbour', 'council', 'trade', 'grain', 'festival', 'bridge', 'market'];
    const sentence = (length: number): string => Array.from({ length }, () => words[Math.floor(random() * words.length)]).join(' ');
    const paths = { whole: 0, substituted: 0, cut: 0 };
    for (let trial = 0; trial < 60; trial++) {
      const size = 2 + Math.floor(random() * 14);
      const nodes = Array.from({ length: size }, (_, index) => entity(`n${trial}-${index}`, index + 1, sentence(Math.floor(random() * 40)), Math.floor(random() * 9)));
      const edges: RelationRecord[] = [];
      for (let a = 0; a < size; a++) {
        for (let b = a + 1; b < size; b++) {
          if (random() < 0.35) edges.push(relation(`e${trial}-${a}-${b}`, 100 + edges.length, `n${trial}-${a}`, `n${trial}-${b}`, Math.floor(random() * 12), sentence(Math.floor(random() * 30))));
        }
      }
      const half = Math.floor(size / 2);
      const children = [
        community(`k${trial}-0`, nodes.slice(0, half).map((node) => node.id), [], [], 1),
        community(`k${trial}-1`, nodes.slice(half).map((node) => node.id), [], [], 1),
      ];
      const subReports = new Map(children.filter(() => random() < 0.7).map((child, index) => [child.id, report(child.id, 500 + index, `# ${child.id}\n\n${sentence(Math.floor(random() * 80))}`)]));
      const maxTokens = 20 + Math.floor(random() * 700);
      const parent = community(`p${trial}`, nodes.map((node) => node.id), edges.map((edge) => edge.id), children.map((child) => child.id));
      const context = buildCommunityReportContext({ community: parent, entities: mapOf(nodes), relations: mapOf(edges), subReports, communities: mapOf(children), tokenizer, maxTokens });
      assert.ok(context.tokens <= maxTokens, `trial ${trial}: ${context.tokens} > ${maxTokens}`);
      assert.equal(context.tokens, tokenizer.count(context.text));
      if (context.usedSubReports.length === 0) {
        const order = [...edges].sort((left, right) => right.combinedDegree - left.combinedDegree || (left.id < right.id ? -1 : 1)).map((edge) => edge.id);
        assert.deepEqual(context.relationIds, order.slice(0, context.relationIds.length), `trial ${trial}: a prefix of the priority order`);
        assert.equal(context.truncated, context.relationIds.length < edges.length || context.entityIds.length < nodes.length);
      }
      if (context.truncated) paths.cut++;
      else if (context.usedSubReports.length > 0) paths.substituted++;
      else paths.whole++;
    }
    assert.ok(paths.whole > 5 && paths.substituted > 5 && paths.cut > 5, JSON.stringify(paths));
  });

  it('fingerprints what the context says: not display numbers, degrees or order, but every text and sub-report', () => {
    const build = (entities: readonly EntityRecord[], relations: readonly RelationRecord[]) =>
      buildCommunityReportContext({ community: triangle, entities: mapOf(entities), relations: mapOf(relations), claims, tokenizer, maxTokens: 8000 });
    const base = build(people, links).fingerprint;
    // Rows inserted before these shift their hids; an edge elsewhere raises degrees and reorders relationships.
    const renumbered = people.map((person) => ({ ...person, hid: (person.hid ?? 0) + 100, degree: person.degree + 4 }));
    const reordered = links.map((link, index) => ({ ...link, hid: 50 - index, combinedDegree: 10 - link.combinedDegree }));
    const shifted = build(renumbered, reordered);
    assert.notEqual(shifted.text, build(people, links).text);
    assert.equal(shifted.fingerprint, base);
    assert.notEqual(build(people.map((person) => (person.id === 'mary' ? { ...person, description: 'A palaeontologist' } : person)), links).fingerprint, base);
    assert.notEqual(build(people, links.map((link) => (link.id === 'r3' ? { ...link, description: 'charles met mary' } : link))).fingerprint, base);
    assert.notEqual(build(people, links.filter((link) => link.id !== 'r3')).fingerprint, base);
    // A substituted sub-report: its text is part of the parent's fingerprint.
    const child = community('child', ['ada', 'charles'], ['r1']);
    const parent = community('parent', ['ada', 'charles', 'mary'], ['r1', 'r2', 'r3'], ['child']);
    const tight = (content: string) =>
      buildCommunityReportContext({
        community: parent,
        entities: mapOf(people),
        relations: mapOf(links),
        subReports: new Map([['child', report('child', 31, content)]]),
        communities: mapOf([child, parent]),
        tokenizer,
        maxTokens: 60,
      });
    const first = tight('# Ada and Charles\n\nThey built an engine.');
    assert.deepEqual(first.usedSubReports, ['child']);
    assert.equal(tight('# Ada and Charles\n\nThey built an engine.').fingerprint, first.fingerprint);
    assert.notEqual(tight('# Ada and Charles\n\nThey designed an engine.').fingerprint, first.fingerprint);
  });
});
