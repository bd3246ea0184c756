import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createKgrag, type Kgrag } from '../src/api/create-kgrag.js';
import { sampleWorkspace } from './helpers/test-server.js';
import { createRandom, type Random } from '../src/core/random.js';
import { rankRelationships } from '../src/methods/local/build-local-context.js';
import type { LocalGraph } from '../src/methods/local/local-lookups.js';
import { createScriptedLanguageModel } from '../src/testing/scripted-language-model.js';
import type { ChatRequest } from '../src/providers/llm/language-model.js';
import { createTokenizer } from '../src/text/tokenizer.js';
import { queryTerms } from '../src/text/word-tokens.js';

const corpus = fileURLToPath(new URL('../examples/sample-corpus', import.meta.url));
const root = mkdtempSync(join(tmpdir(), 'kgrag-local-'));
/** A copy of the sample corpus's fast index, built once per test run (test/helpers/test-server.ts). */
let workspace = '';
const tokenizer = await createTokenizer('o200k_base');

const open = (options: Parameters<typeof createKgrag>[0] = {}): Promise<Kgrag> => createKgrag({ workspace, env: {}, ...options });

/** The `-----Title-----` sections of a context, in order, with their text. */
function sections(text: string): Array<{ title: string; text: string }> {
  return text
    .split(/\n\n(?=-----)/)
    .filter((part) => part.length > 0)
    .map((part) => ({ title: /^-----(.+?)-----/.exec(part)?.[1] ?? '?', text: part }));
}

/** Ids of a section's rows (the first cell). */
function rowIds(section: string): number[] {
  return section
    .split('\n')
    .slice(2)
    .map((line) => Number(line.split('|')[0]));
}

function pick<T>(random: Random, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)] as T;
}

before(async () => {
  workspace = await sampleWorkspace();
});

after(() => {
  rmSync(root, { recursive: true, force: true });
  rmSync(workspace, { recursive: true, force: true });
});

describe('local: context assembly', () => {
  test('sections come in GraphRAG order: Reports, Entities, Relationships, Sources; every table row is a record of the retrieval', async () => {
    const kgrag = await open();
    const result = await kgrag.query('Who founded Quaymark Software?', { method: 'local', contextOnly: true });
    assert.equal(result.answer.kind, 'none');
    assert.equal(result.usage.llmCalls, 0);
    assert.deepEqual(
      sections(result.context.text).map((section) => section.title),
      ['Reports', 'Entities', 'Relationships', 'Sources'],
    );
    assert.equal(tokenizer.count(result.context.text), result.context.tokens);
    assert.ok(result.context.tokens <= 12000);
    const byTitle = new Map(sections(result.context.text).map((section) => [section.title, section.text]));
    assert.deepEqual(rowIds(byTitle.get('Sources') ?? ''), result.context.chunks.map((chunk) => chunk.hid), 'chunks are the Sources rows, in context order');
    assert.deepEqual(rowIds(byTitle.get('Entities') ?? ''), result.context.entities?.map((entity) => entity.hid));
    assert.deepEqual(rowIds(byTitle.get('Relationships') ?? ''), result.context.relations?.map((relation) => relation.hid));
    assert.match(byTitle.get('Entities') ?? '', /^-----Entities-----\nid\|entity\|description\|number of relationships\n/);
    assert.match(byTitle.get('Relationships') ?? '', /^-----Relationships-----\nid\|source\|target\|description\|weight\n/);
    assert.ok(result.context.chunks.some((chunk) => chunk.documentTitle === 'Quaymark Software'));
    const communities = result.context.communities ?? [];
    const reportHids = new Map((await kgrag.store.table('reports').get(communities.map((community) => community.id))).map((report) => [report.communityId, report.hid]));
    assert.deepEqual(communities.map((community) => reportHids.get(community.id)), rowIds(byTitle.get('Reports') ?? ''), 'communities are those of the Reports rows, in order');
    const kinds = new Set(result.context.subgraph?.nodes.map((node) => node.kind));
    assert.deepEqual([...kinds].sort(), ['chunk', 'entity', 'query']);
    await kgrag.close();
  });

  test('the context is the same whether the store was read by earlier queries or not (only the size of the first read is learned)', async () => {
    const questions = ['Who founded Quaymark Software?', 'What crosses the River Kester?', 'Who runs the Ferry Inn?'];
    const cold = [];
    for (const question of questions) {
      const fresh = await open();
      cold.push((await fresh.query(question, { method: 'local', contextOnly: true })).context);
      await fresh.close();
    }
    const kgrag = await open();
    for (const question of questions) await kgrag.query(question, { method: 'local', contextOnly: true, params: { maxContextTokens: 3000 } });
    const warm = [];
    for (const question of questions) warm.push((await kgrag.query(question, { method: 'local', contextOnly: true })).context);
    await kgrag.close();
    assert.deepEqual(
      warm.map((context) => [context.text, context.chunks.map((chunk) => chunk.id)]),
      cold.map((context) => [context.text, context.chunks.map((chunk) => chunk.id)]),
    );
  });

  test('keeps all 2 × topKEntities oversampled hits; reports are ordered by matched entities then rating; text units by entity order, then BM25 score, then relationship count', async () => {
    const kgrag = await open();
    const question = 'What happened during the flood of 1947 in Kestermouth?';
    const result = await kgrag.query(question, { method: 'local', contextOnly: true, params: { topKEntities: 6 } });
    const selected = (result.context.subgraph?.edges ?? []).filter((edge) => edge.kind === 'match').map((edge) => edge.target);
    assert.equal(selected.length, 12, 'GraphRAG keeps every oversampled hit');
    const entities = new Map((await kgrag.store.table('entities').get(selected)).map((entity) => [entity.id, entity]));

    const communities = result.context.communities ?? [];
    assert.ok(communities.length > 0);
    const reports = new Map((await kgrag.store.table('reports').get(communities.map((community) => community.id))).map((report) => [report.communityId, report]));
    const keys = communities.map((community) => ({
      matches: selected.filter((id) => community.entityIds.includes(id)).length,
      rating: reports.get(community.id)?.rating ?? 0,
      level: community.level,
    }));
    for (const key of keys) assert.ok(key.level <= 2 && key.matches > 0);
    for (let index = 1; index < keys.length; index++) {
      const previous = keys[index - 1]!;
      const current = keys[index]!;
      assert.ok(previous.matches > current.matches || (previous.matches === current.matches && previous.rating >= current.rating), `report ${index} is out of order`);
    }

    const relations = await kgrag.store.table('relations').all();
    const bm25 = new Map((await kgrag.store.searchText('chunks', queryTerms(question), 200)).map((hit) => [hit.id, hit.score]));
    const unitKey = (chunkId: string): [number, number, number] => {
      const order = selected.findIndex((id) => entities.get(id)?.chunkIds.includes(chunkId));
      const owner = selected[order] as string;
      const count = relations.filter((relation) => (relation.source === owner || relation.target === owner) && relation.chunkIds.includes(chunkId)).length;
      return [order, bm25.get(chunkId) ?? 0, count];
    };
    const unitKeys = result.context.chunks.map((chunk) => unitKey(chunk.id));
    assert.ok(unitKeys.some(([, score]) => score > 0) && unitKeys.some(([, score]) => score === 0), 'the order is decided by both');
    for (let index = 1; index < unitKeys.length; index++) {
      const [previousOrder, previousScore, previousCount] = unitKeys[index - 1]!;
      const [order, score, count] = unitKeys[index]!;
      assert.ok(order >= 0);
      const sameEntity = previousOrder === order;
      assert.ok(previousOrder < order || (sameEntity && (previousScore > score || (previousScore === score && previousCount >= count))), `text unit ${index} is out of order`);
    }
    await kgrag.close();
  });

  test('communityLevel 0 uses only level-0 reports', async () => {
    const kgrag = await open();
    const result = await kgrag.query('Who ran the ferry?', { method: 'local', contextOnly: true, params: { communityLevel: 0 } });
    for (const community of result.context.communities ?? []) assert.equal(community.level, 0);
    await kgrag.close();
  });

  test('relationship ranking: in-network by rank, then out-of-network by linked entities then rank, capped at topK × entities', () => {
    // Entities a, b selected. r0 a–x (rank 5), r1 a–b (rank 1), r2 b–x (rank 2), r3 a–y (rank 9), r4 b–z (rank 3), r5 a–b (rank 4).
    const source = ['a', 'a', 'b', 'a', 'b', 'a'];
    const target = ['x', 'b', 'x', 'y', 'z', 'b'];
    const adjacency = new Map<string, number[]>();
    source.forEach((_, index) => {
      for (const id of [source[index]!, target[index]!]) adjacency.set(id, [...(adjacency.get(id) ?? []), index]);
    });
    const graph: LocalGraph = {
      entityTitle: new Map(),
      relationIds: source.map((_, index) => `r${index}`),
      relationSource: source,
      relationTarget: target,
      relationRank: Float64Array.from([5, 1, 2, 9, 3, 4]),
      relationChunkIds: source.map(() => []),
      adjacency,
    };
    // x links both a and b (2), so r0 and r2 come first (by rank: r0 5, r2 2); then y (r3 9), z (r4 3).
    assert.deepEqual(rankRelationships(graph, ['a', 'b'], 10), [5, 1, 0, 2, 3, 4]);
    assert.deepEqual(rankRelationships(graph, ['a', 'b'], 1), [5, 1, 0, 2], 'cap: 1 × 2 entities');
    assert.deepEqual(rankRelationships(graph, ['a'], 10), [3, 0, 5, 1], 'for a alone every relation leaves the set; ties keep table order');
  });
});

describe('local: entities the question names', () => {
  test('lead the selection and take turns in the text units: a comparison of two names gets both, however often one is named elsewhere', async () => {
    const folder = mkdtempSync(join(root, 'named-'));
    const kgrag = await createKgrag({ workspace: folder, env: {} });
    try {
      const songs = ['Down', 'Amber', 'Creatures', 'Beautiful Disaster', 'Come Original', 'Hey You'].map((song) => ({
        title: `${song} (311 song)`,
        text: `${song} is a song by the American rock band 311, written by the singer Nick Hexum. The American singer Nick Hexum sang ${song} on tour in America, and Nick Hexum later called ${song} his favourite song of 311.`,
        source: `test:${song}`,
      }));
      // Singers whose names share a word with one the question names, as in any large corpus.
      const singers = ['Carole King', 'Ben E. King', 'B.B. King', 'Albert King', 'Freddie King', 'Evelyn King', 'Mark Lanegan', 'Mark McGrath', 'Mark Hoppus', 'Mark Wills', 'Mark Chesnutt', 'Mark Kozelek'].map((name) => ({
        title: name,
        text: `${name} is an American singer. The American singer ${name} recorded songs in America, and ${name} was named the best American singer of the year.`,
        source: `test:${name}`,
      }));
      await kgrag.index(
        songs.concat(singers, [
          { title: 'Mark King (musician)', text: 'Mark King is a bass player from England, of the band Level 42. Mark King was born on the Isle of Wight.', source: 'test:king' },
          { title: 'Nick Hexum', text: 'Nick Hexum is an American singer and guitarist, the lead vocalist of 311. Nick Hexum was born in Madison.', source: 'test:hexum' },
        ]),
        { mode: 'fast' },
      );
      const result = await kgrag.query('Which singer is American, Mark King or Nick Hexum?', { method: 'local', contextOnly: true });
      const firstTwo = result.context.chunks.slice(0, 2).map((chunk) => chunk.documentTitle);
      assert.ok(firstTwo.includes('Mark King (musician)') && firstTwo.some((title) => title?.includes('Hexum') || title?.includes('311')), firstTwo.join(', '));
      const embeddingOnly = await kgrag.query('Which singer is American, Mark King or Nick Hexum?', { method: 'local', contextOnly: true, params: { namedEntities: false } });
      assert.notEqual(embeddingOnly.context.chunks[0]?.documentTitle, 'Mark King (musician)', "GraphRAG's match alone ranks the other singers' descriptions first");
    } finally {
      await kgrag.close();
    }
  });
});

describe('local: budgets (property test)', () => {
  test('the context never exceeds maxContextTokens and each section stays within its share, on random indexes, questions and parameters', async () => {
    const random = createRandom(20240611);
    const files = readdirSync(corpus).sort();
    const indexes: string[] = [workspace];
    for (let index = 0; index < 2; index++) {
      const subset = files.filter(() => random() < 0.35);
      const folder = join(root, `random-${index}`);
      const kgrag = await createKgrag({ workspace: folder, env: {} });
      await kgrag.index(subset.map((file) => join(corpus, file)), { mode: 'fast' });
      await kgrag.close();
      indexes.push(folder);
    }
    const vocabulary = ['flood', 'bridge', 'ferry', 'Marle', 'Kester', 'software', 'fair', 'lantern', 'mill', 'railway', 'wall', 'museum', 'who', 'when', 'Cotterill', 'river', 'school', 'opened', 'founded', 'boat'];
    let cases = 0;
    for (const folder of indexes) {
      const kgrag = await createKgrag({ workspace: folder, env: {} });
      for (let run = 0; run < 12; run++) {
        const question = Array.from({ length: 2 + Math.floor(random() * 6) }, () => pick(random, vocabulary)).join(' ');
        const maxContextTokens = 150 + Math.floor(random() * 12000);
        const textUnitProp = Math.round(random() * 100) / 100;
        const communityProp = Math.round(random() * (1 - textUnitProp) * 100) / 100;
        const conversationHistory = random() < 0.3 ? [{ role: 'user' as const, content: `Tell me about the ${pick(random, vocabulary)}` }, { role: 'assistant' as const, content: 'It is old.' }] : [];
        const params = { maxContextTokens, textUnitProp, communityProp, conversationHistory, topKEntities: 1 + Math.floor(random() * 15), topKRelationships: Math.floor(random() * 12) };
        const result = await kgrag.query(question, { method: 'local', contextOnly: true, params });
        const label = JSON.stringify({ folder, question, params });
        assert.equal(tokenizer.count(result.context.text), result.context.tokens, label);
        assert.ok(result.context.tokens <= maxContextTokens, `over budget: ${label}`);
        const parts = sections(result.context.text);
        const history = parts.find((part) => part.title === 'Conversation History');
        const historyTokens = history ? tokenizer.count(history.text) : 0;
        const budget = maxContextTokens - historyTokens - (history ? 2 : 0);
        const count = (titles: readonly string[]): number => {
          const text = parts.filter((part) => titles.includes(part.title)).map((part) => part.text).join('\n\n');
          return text.length === 0 ? 0 : tokenizer.count(text);
        };
        assert.ok(count(['Reports']) <= Math.floor(budget * communityProp), `reports over share: ${label}`);
        assert.ok(count(['Sources']) <= Math.floor(budget * textUnitProp), `sources over share: ${label}`);
        assert.ok(count(['Entities', 'Relationships', 'Claims']) <= Math.floor(budget * (1 - communityProp - textUnitProp)), `local over share: ${label}`);
        cases++;
      }
      await kgrag.close();
    }
    assert.equal(cases, 36);
  });
});

describe('local: parameters and history', () => {
  test('textUnitProp + communityProp above 1 is rejected with a clear message', async () => {
    const kgrag = await open();
    await assert.rejects(kgrag.query('Who ran the ferry?', { method: 'local', params: { textUnitProp: 0.6, communityProp: 0.5 } }), (error: unknown) => {
      const { code, message } = error as { code?: string; message: string };
      return code === 'QUERY_INVALID_PARAMS' && /textUnitProp \+ communityProp must be at most 1/.test(message);
    });
    await assert.rejects(kgrag.query('Who ran the ferry?', { method: 'local', params: { topK: 3 } }), (error: unknown) => (error as { code?: string }).code === 'QUERY_INVALID_PARAMS');
    await kgrag.close();
  });

  test('conversation history: the 5 most recent user turns, most recent first, lead the context and steer entity matching', async () => {
    const kgrag = await open();
    const conversationHistory = [
      ...Array.from({ length: 6 }, (_, index) => [
        { role: 'user' as const, content: `earlier question ${index}` },
        { role: 'assistant' as const, content: `assistant reply ${index}` },
      ]).flat(),
      { role: 'user' as const, content: 'Tell me about Quaymark Software and Nell Wren' },
    ];
    const question = 'Where did they start?';
    const without = await kgrag.query(question, { method: 'local', contextOnly: true });
    const withHistory = await kgrag.query(question, { method: 'local', contextOnly: true, params: { conversationHistory } });
    const [first] = sections(withHistory.context.text);
    assert.equal(first?.title, 'Conversation History');
    assert.deepEqual(first?.text.split('\n').slice(1), [
      'turn|content',
      'user|Tell me about Quaymark Software and Nell Wren',
      'user|earlier question 5',
      'user|earlier question 4',
      'user|earlier question 3',
      'user|earlier question 2',
    ]);
    assert.doesNotMatch(withHistory.context.text, /assistant reply/);
    assert.ok(withHistory.context.tokens <= 12000);
    const titles = (result: typeof without) => (result.context.entities ?? []).map((entity) => entity.title).join(' ');
    assert.match(titles(withHistory), /Quaymark|Nell Wren/);
    assert.notEqual(titles(withHistory), titles(without));
    const limited = await kgrag.query(question, { method: 'local', contextOnly: true, params: { conversationHistory, conversationHistoryMaxTurns: 1 } });
    assert.equal(sections(limited.context.text)[0]?.text.split('\n').length, 3);
    await kgrag.close();
  });

  test('determinism: the same question gives the same context, also from a fresh workspace handle', async () => {
    const first = await open();
    const a = await first.query('When was the Kester Weir Bridge opened?', { method: 'local', contextOnly: true });
    const b = await first.query('When was the Kester Weir Bridge opened?', { method: 'local', contextOnly: true });
    await first.close();
    const second = await open();
    const c = await second.query('When was the Kester Weir Bridge opened?', { method: 'local', contextOnly: true });
    await second.close();
    assert.equal(a.context.text, b.context.text);
    assert.equal(a.context.text, c.context.text);
    assert.deepEqual(a.context.subgraph, c.context.subgraph);
  });
});

describe('local: answers', () => {
  test('without an LLM: an extractive answer quoting its text units, citing Sources', async () => {
    const kgrag = await open();
    const result = await kgrag.query('Who founded Quaymark Software?', { method: 'local' });
    assert.equal(result.answer.kind, 'extractive');
    assert.match(result.answer.label ?? '', /extractive/);
    assert.match(result.answer.text, /Nell Wren/);
    assert.ok(result.citations.length > 0);
    const ids = new Set(result.context.chunks.map((chunk) => chunk.id));
    for (const citation of result.citations) {
      assert.equal(citation.dataset, 'Sources');
      assert.ok(ids.has(citation.id));
    }
    assert.equal(result.usage.llmCalls, 0);
    await kgrag.close();
  });

  test('with an LLM: one streamed interactive call; Entities, Reports, Sources and Relationships hids map back to real ids; invented ones are counted', async () => {
    const firstRow = (system: string, title: string): number => {
      const match = new RegExp(`-----${title}-----\\n[^\\n]*\\n(\\d+)\\|`).exec(system);
      return Number(match?.[1] ?? -1);
    };
    const llm = createScriptedLanguageModel({
      responses: [
        {
          match: (request: ChatRequest) => request.purpose === 'answer',
          reply: (request: ChatRequest) => {
            const system = request.messages[0]?.content ?? '';
            return `Nell Wren and Priya Anand founded it [Data: Entities (${firstRow(system, 'Entities')}); Reports (${firstRow(system, 'Reports')}); Relationships (${firstRow(system, 'Relationships')}); Sources (${firstRow(system, 'Sources')}, 99999)].`;
          },
        },
      ],
    });
    const kgrag = await open({ llm });
    let streamed = '';
    const result = await kgrag.query('Who founded Quaymark Software?', { method: 'local', onText: (delta) => (streamed += delta) });
    assert.equal(llm.calls.length, 1);
    const [call] = llm.calls;
    assert.equal(call?.priority, 'interactive');
    assert.equal(call?.purpose, 'answer');
    assert.match(call?.messages[0]?.content ?? '', /Multiple Paragraphs/);
    assert.ok((call?.messages[0]?.content ?? '').includes(result.context.text));
    assert.equal(streamed.trim(), result.answer.text);
    assert.equal(result.answer.kind, 'generated');
    assert.equal(result.usage.llmCalls, 1);
    assert.ok(result.usage.inputTokens > 0 && result.usage.outputTokens > 0);
    assert.equal(result.trace.unknownReferences, 1);
    const byDataset = new Map(result.citations.map((citation) => [citation.dataset, citation]));
    assert.deepEqual([...byDataset.keys()].sort(), ['Entities', 'Relationships', 'Reports', 'Sources']);
    const entity = byDataset.get('Entities')!;
    assert.equal((await kgrag.store.table('entities').get([entity.id]))[0]?.hid, entity.hid);
    const report = byDataset.get('Reports')!;
    assert.equal((await kgrag.store.table('reports').get([report.id]))[0]?.hid, report.hid);
    const relation = byDataset.get('Relationships')!;
    assert.equal((await kgrag.store.table('relations').get([relation.id]))[0]?.hid, relation.hid);
    const source = byDataset.get('Sources')!;
    assert.equal((await kgrag.store.table('chunks').get([source.id]))[0]?.hid, source.hid);
    assert.equal(source.title, result.context.chunks.find((chunk) => chunk.id === source.id)?.documentTitle);
    await kgrag.close();
  });
});
