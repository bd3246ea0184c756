import type { CitedDataset, ContextChunk } from '../../answer/answer-types.js';
import type { CitableRecord } from '../../answer/generate-answer.js';
import { packTable, tableCell, type PackedTable, type TableRow } from '../../answer/pack-table.js';
import type { ClaimRecord, CommunityRecord, EntityRecord, RelationRecord, ReportRecord } from '../../core/types.js';
import { normalizePhrase } from '../../text/normalize-phrase.js';
import { queryTerms } from '../../text/word-tokens.js';
import type { MethodContext } from '../query-method.js';
import { questionNounPhrases } from '../shared/question-noun-phrases.js';
import { hasClaims, localCommunities, localEntityNames, localGraph, type LocalGraph } from './local-lookups.js';

/** What shapes a local context; {@link LocalConfig} with the budget resolved. */
export interface LocalContextOptions {
  topKEntities: number;
  topKRelationships: number;
  textUnitProp: number;
  communityProp: number;
  maxContextTokens: number;
  communityLevel: number;
  conversationHistory: ReadonlyArray<{ role: string; content: string }>;
  conversationHistoryMaxTurns: number;
  /** Entities the question names lead the selection (a deviation from GraphRAG). @default true */
  namedEntities?: boolean;
}

/** Rows {@link buildLocalContext} reads besides those it shows. */
export interface LocalContextReads {
  /** The community rows of the reports shown, read in the same round trip as the reports. @default false */
  communities?: boolean;
}

/** One section of the context: its packed text, size and the share it had to fit in. */
export interface LocalSection {
  text: string;
  tokens: number;
  budget: number;
}

/** A GraphRAG local-search context and the records it shows. */
export interface LocalContext {
  /** Sections joined by blank lines: history, Reports, Entities + Relationships + Claims, Sources. */
  text: string;
  tokens: number;
  sections: { history: LocalSection; reports: LocalSection; local: LocalSection; sources: LocalSection };
  /** The entities matched to the question, best first, with their similarity. */
  selected: Array<{ entity: EntityRecord; score: number }>;
  entities: EntityRecord[];
  relations: RelationRecord[];
  claims: ClaimRecord[];
  reports: ReportRecord[];
  /** The communities of `reports`, in the same order; read only when {@link LocalContextReads.communities} asks. */
  communities: CommunityRecord[];
  /** Text units in context order. */
  chunks: ContextChunk[];
  /** Titles of the relationships' endpoints, by entity id. */
  endpointTitles: Map<string, string>;
  /** Records the answer may cite, by dataset and hid. */
  citable: Partial<Record<CitedDataset, Map<number, CitableRecord>>>;
}

/** The question's best chunks by BM25 that order an entity's text units; the others come after them. */
const textRankDepth = 200;

/** Tokens kept free per section for the blank line that joins it to the previous one. */
const separatorReserve = 2;

function joinSections(parts: readonly string[]): string {
  return parts.filter((part) => part.length > 0).join('\n\n');
}

/**
 * The user turns of the history, most recent first, at most `maxTurns` (GraphRAG keeps user turns only
 * and favours recent ones).
 */
export function recentUserTurns(history: LocalContextOptions['conversationHistory'], maxTurns: number): string[] {
  return history
    .filter((turn) => turn.role === 'user' && turn.content.trim().length > 0)
    .map((turn) => turn.content)
    .reverse()
    .slice(0, maxTurns);
}

/**
 * Packs rows fetched lazily: records are read in batches until their text, at a generous four characters
 * per token, overfills the budget, so a query reads only about as many records as can fit. Tables stop at
 * the first row that does not fit, since GraphRAG keeps the order of these tables strictly.
 */
async function packFetched<Id, T>(
  title: string,
  header: string,
  ids: readonly Id[],
  fetch: (batch: readonly Id[]) => Promise<T[]>,
  row: (item: T) => string,
  context: MethodContext,
  budget: number,
): Promise<PackedTable<T>> {
  const rows: Array<TableRow<T>> = [];
  let next = 0;
  let estimate = 0;
  let target = budget * 1.5;
  if (budget <= 0) return { text: '', tokens: 0, included: [] };
  // Characters per row that earlier queries of this index read, per table: a query's first read asks for about as many
  // rows as will fill its budget, where a fixed first batch made a remote store answer two or three reads in a row.
  // Only how many rows a read asks for depends on it, never which rows are packed. Kept in the context's memo, so it
  // lives and dies with the index generation rather than in module state.
  const sizes = await context.memo('local:row-characters', () => Promise.resolve(new Map<string, number>()));
  const seen = sizes.get(title);
  // Without earlier reads, a few dozen rows: most contexts fit in one or two reads.
  let batch = seen === undefined ? 32 : Math.min(1024, Math.max(8, Math.ceil((target * 4 * 1.2) / seen)));
  let characters = 0;
  while (true) {
    while (next < ids.length && estimate <= target) {
      for (const item of await fetch(ids.slice(next, next + batch))) {
        const text = row(item);
        rows.push({ row: text, item });
        characters += text.length;
        estimate += text.length / 4;
      }
      next += batch;
      batch *= 2;
    }
    if (rows.length > 0) sizes.set(title, characters / rows.length);
    const packed = packTable(title, header, rows, context.tokenizer, budget, { stopAtFirstMiss: true });
    if (packed.included.length < rows.length || next >= ids.length) return packed;
    target *= 2;
  }
}

/** Reports of the selected entities' communities, by matched entities then rating (GraphRAG `_build_community_context`). */
async function reportsSection(
  context: MethodContext,
  entityIds: readonly string[],
  level: number,
  budget: number,
  withCommunities: boolean,
): Promise<PackedTable<ReportRecord> & { communities: CommunityRecord[] }> {
  const { communitiesOf, reports } = await localCommunities(context, level);
  const matches = new Map<string, number>();
  for (const entityId of entityIds) {
    for (const communityId of communitiesOf.get(entityId) ?? []) matches.set(communityId, (matches.get(communityId) ?? 0) + 1);
  }
  const ordered = [...matches.keys()].sort((left, right) => {
    const a = reports.get(left);
    const b = reports.get(right);
    return (matches.get(right) ?? 0) - (matches.get(left) ?? 0) || (b?.rating ?? 0) - (a?.rating ?? 0) || (a?.order ?? 0) - (b?.order ?? 0);
  });
  // The community rows are read with their reports, in the same round trip, when the caller shows them.
  const communities = new Map<string, CommunityRecord>();
  const packed = await packFetched(
    'Reports',
    'id|title|content',
    ordered,
    async (ids) => {
      const [reportRows, communityRows] = await Promise.all([context.store.table('reports').get(ids), withCommunities ? context.store.table('communities').get(ids) : []]);
      for (const community of communityRows) communities.set(community.id, community);
      const rows = new Map(reportRows.map((report) => [report.communityId, report]));
      return ids.flatMap((id) => rows.get(id) ?? []);
    },
    (report) => `${report.hid ?? 0}|${tableCell(report.title)}|${tableCell(report.fullContent)}`,
    context,
    budget,
  );
  return { ...packed, communities: packed.included.flatMap((report) => communities.get(report.communityId) ?? []) };
}

/**
 * GraphRAG `_filter_relationships`: relationships among the entities first (by rank), then those leaving
 * the set, ranked by how many of the entities their outside endpoint links to and then by rank, capped at
 * `topK × entities`. Ties keep table order.
 */
export function rankRelationships(graph: LocalGraph, entityIds: readonly string[], topK: number): number[] {
  const inside = new Set(entityIds);
  const inNetwork: number[] = [];
  const outNetwork: number[] = [];
  const seen = new Set<number>();
  for (const entityId of entityIds) {
    for (const index of graph.adjacency.get(entityId) ?? []) {
      if (seen.has(index)) continue;
      seen.add(index);
      const both = inside.has(graph.relationSource[index] as string) && inside.has(graph.relationTarget[index] as string);
      (both ? inNetwork : outNetwork).push(index);
    }
  }
  const byRank = (left: number, right: number): number => (graph.relationRank[right] as number) - (graph.relationRank[left] as number) || left - right;
  inNetwork.sort(byRank);
  if (outNetwork.length <= 1) return [...inNetwork, ...outNetwork];
  const linked = new Map<string, Set<string>>();
  for (const index of outNetwork) {
    const source = graph.relationSource[index] as string;
    const target = graph.relationTarget[index] as string;
    const [outside, own] = inside.has(source) ? [target, source] : [source, target];
    const set = linked.get(outside) ?? new Set<string>();
    set.add(own);
    linked.set(outside, set);
  }
  // Each relation's link count is looked up once, not once per comparison.
  const links = new Map<number, number>();
  for (const index of outNetwork) {
    const source = graph.relationSource[index] as string;
    links.set(index, linked.get(inside.has(source) ? (graph.relationTarget[index] as string) : source)?.size ?? 0);
  }
  outNetwork.sort((left, right) => (links.get(right) as number) - (links.get(left) as number) || byRank(left, right));
  return [...inNetwork, ...outNetwork.slice(0, topK * entityIds.length)];
}

interface LocalTables {
  text: string;
  tokens: number;
  entities: EntityRecord[];
  relations: RelationRecord[];
  claims: ClaimRecord[];
}

/**
 * GraphRAG `_build_local_context`: the entity table, then relationships and claims of the first 1, 2, …
 * selected entities, keeping the largest prefix whose three tables together still fit the share.
 */
async function localSection(
  context: MethodContext,
  entityIds: readonly string[],
  entityRows: Promise<ReadonlyArray<{ entity: EntityRecord }>>,
  options: LocalContextOptions,
  budget: number,
): Promise<LocalTables> {
  const { tokenizer } = context;
  const empty: LocalTables = { text: '', tokens: 0, entities: [], relations: [], claims: [] };
  if (budget <= 0) return empty;
  const graph = await localGraph(context);
  // The read below and the prefix search rank the same prefixes; each prefix is ranked once.
  const ranked = new Map<string, string[]>();
  /** The relationships that may be shown for the first `count` of `ids`, best first. */
  const candidatesFor = (ids: readonly string[], count: number): string[] => {
    const prefix = ids.slice(0, count);
    const key = prefix.join('\n');
    let candidates = ranked.get(key);
    if (candidates === undefined) {
      // Rows beyond what the budget can hold are never read: a row is several tokens.
      candidates = rankRelationships(graph, prefix, options.topKRelationships)
        .slice(0, Math.max(1, Math.ceil(budget / 4)))
        .map((index) => graph.relationIds[index] as string);
      ranked.set(key, candidates);
    }
    return candidates;
  };
  /** The rows of every prefix the search below may try, in one read: a remote store pays a round trip per read. */
  const wantedFor = (ids: readonly string[], known: ReadonlyMap<string, RelationRecord>): string[] => {
    const wanted = new Set<string>();
    for (let count = 1; count <= ids.length; count++) for (const id of candidatesFor(ids, count)) if (!known.has(id)) wanted.add(id);
    return [...wanted];
  };
  const readRelations = (ids: readonly string[]): Promise<RelationRecord[]> => (ids.length > 0 ? context.store.table('relations').get(ids) : Promise.resolve([]));
  // The relationships and claims are read from the matched ids while the entity rows are still on their way.
  const [relations, claims, rows] = await Promise.all([
    readRelations(wantedFor(entityIds, new Map())),
    (async () => ((await hasClaims(context)) ? context.store.table('claims').where('subject', [...entityIds]) : []))(),
    entityRows,
  ]);
  const selected = rows.map((row) => row.entity);
  const relationCache = new Map(relations.map((relation) => [relation.id, relation]));
  // Only when a matched entity had no row do the prefixes differ from those read for.
  if (selected.length !== entityIds.length) for (const relation of await readRelations(wantedFor(selected.map((entity) => entity.id), relationCache))) relationCache.set(relation.id, relation);
  const claimsBySubject = new Map<string, ClaimRecord[]>();
  for (const claim of claims) {
    const list = claimsBySubject.get(claim.subject) ?? [];
    list.push(claim);
    claimsBySubject.set(claim.subject, list);
  }
  const entityTable = packTable(
    'Entities',
    'id|entity|description|number of relationships',
    selected.map((entity) => ({ row: `${entity.hid ?? 0}|${tableCell(entity.title)}|${tableCell(entity.description)}|${entity.degree}`, item: entity })),
    tokenizer,
    budget,
    { stopAtFirstMiss: true },
  );
  const best: LocalTables = { ...empty, text: entityTable.text, tokens: entityTable.tokens, entities: entityTable.included };
  if (entityTable.included.length === 0) return best;

  const titleOf = (id: string): string => graph.entityTitle.get(id) ?? id;
  const relationRow = (relation: RelationRecord): string =>
    `${relation.hid ?? 0}|${tableCell(titleOf(relation.source))}|${tableCell(titleOf(relation.target))}|${tableCell(relation.description)}|${relation.weight}`;
  const claimRow = (claim: ClaimRecord, entity: EntityRecord): string =>
    [claim.hid ?? 0, entity.title, claim.object === null ? '' : titleOf(claim.object), claim.type, claim.status, claim.startDate ?? '', claim.endDate ?? '', claim.description]
      .map((cell) => tableCell(String(cell)))
      .join('|');
  const relationHead = { title: 'Relationships', header: 'id|source|target|description|weight' };
  const claimHead = { title: 'Claims', header: 'id|entity|object|type|status|start date|end date|description' };

  const selectedIds = selected.map((entity) => entity.id);
  /** The rows of the relationship and claim tables for the first `count` selected entities. */
  const tablesFor = (count: number) => {
    const added = selected.slice(0, count);
    const candidates = candidatesFor(selectedIds, count);
    return {
      relations: candidates.flatMap((id) => {
        const relation = relationCache.get(id);
        return relation ? [{ row: relationRow(relation), item: relation }] : [];
      }),
      claims: added.flatMap((entity) => (claimsBySubject.get(entity.id) ?? []).map((claim) => ({ row: claimRow(claim, entity), item: claim }))),
    };
  };

  // Sizing every prefix with packTable would re-tokenize the same rows once per entity; rows are counted
  // once here to find the prefix, and only that prefix is packed exactly (and stepped back if BPE merges
  // across rows push it over).
  const rowTokens = new Map<string, number>();
  const countRow = (row: string): number => {
    let tokens = rowTokens.get(row);
    if (tokens === undefined) {
      tokens = tokenizer.count(`\n${row}`);
      rowTokens.set(row, tokens);
    }
    return tokens;
  };
  const separator = tokenizer.count('\n\n');
  const estimateTable = (head: { title: string; header: string }, rows: ReadonlyArray<{ row: string }>): number => {
    if (rows.length === 0) return 0;
    let tokens = countRow(`-----${head.title}-----\n${head.header}`);
    if (tokens > budget) return 0;
    for (const { row } of rows) {
      const next = countRow(row);
      if (tokens + next > budget) break;
      tokens += next;
    }
    return tokens + separator;
  };
  let chosen = 0;
  for (let count = 1; count <= selected.length; count++) {
    const tables = tablesFor(count);
    if (entityTable.tokens + estimateTable(relationHead, tables.relations) + estimateTable(claimHead, tables.claims) > budget) break;
    chosen = count;
  }
  for (let count = chosen; count > 0; count--) {
    const tables = tablesFor(count);
    const relationTable = packTable(relationHead.title, relationHead.header, tables.relations, tokenizer, budget, { stopAtFirstMiss: true });
    const claimTable = tables.claims.length > 0 ? packTable(claimHead.title, claimHead.header, tables.claims, tokenizer, budget, { stopAtFirstMiss: true }) : undefined;
    const text = joinSections([entityTable.text, relationTable.text, claimTable?.text ?? '']);
    const tokens = tokenizer.count(text);
    if (tokens <= budget) return { text, tokens, entities: entityTable.included, relations: relationTable.included, claims: claimTable?.included ?? [] };
  }
  return best;
}

/**
 * GraphRAG `_build_text_unit_context`: the chunks of the selected entities, by the entity's position in
 * the selection, then — a deviation — by the chunk's BM25 score for the question (its rank among the
 * `textRankDepth` best), then by how many of that entity's relationships were extracted from the chunk. An entity
 * named in hundreds of chunks (a singer, in every song of his band) otherwise fills the budget with those that
 * list most of its relations, not those about what was asked; GraphRAG's order decides among chunks the question's
 * words do not tell apart. musique-train-100 / hotpotqa-train-100 Recall@5: 56.5 / 74.5 → 58.25 / 76.5.
 */
async function sourcesSection(
  context: MethodContext,
  question: string,
  selected: ReadonlyArray<{ entity: EntityRecord; score: number }>,
  named: number,
  budget: number,
): Promise<PackedTable<ContextChunk>> {
  const graph = await localGraph(context);
  const units: Array<{ id: string; order: number; relationships: number; position: number; score: number }> = [];
  const taken = new Set<string>();
  selected.forEach(({ entity, score }, order) => {
    const fresh = entity.chunkIds.filter((chunkId) => !taken.has(chunkId));
    if (fresh.length === 0) return;
    const counts = new Map(fresh.map((chunkId) => [chunkId, 0]));
    for (const index of graph.adjacency.get(entity.id) ?? []) {
      for (const chunkId of graph.relationChunkIds[index] ?? []) {
        const count = counts.get(chunkId);
        if (count !== undefined) counts.set(chunkId, count + 1);
      }
    }
    fresh.forEach((chunkId, position) => {
      taken.add(chunkId);
      units.push({ id: chunkId, order, relationships: counts.get(chunkId) ?? 0, position, score });
    });
  });
  const terms = queryTerms(question);
  const textScores = new Map(terms.length === 0 ? [] : (await context.store.searchText('chunks', terms, textRankDepth)).map((hit) => [hit.id, hit.score]));
  const textScore = (unit: (typeof units)[number]): number => textScores.get(unit.id) ?? 0;
  units.sort((left, right) => left.order - right.order || textScore(right) - textScore(left) || right.relationships - left.relationships || left.position - right.position);
  // The entities the question names take turns, each its best unit first: a comparison of two names needs both. The
  // sort is stable, so within a turn, and among the other entities' units, the order above stands.
  const turn = new Map<string, number>();
  const unitsSeen = new Int32Array(named);
  for (const unit of units) if (unit.order < named) turn.set(unit.id, (unitsSeen[unit.order] as number)++);
  const turnOf = (unit: (typeof units)[number]): number => turn.get(unit.id) ?? units.length;
  units.sort((left, right) => turnOf(left) - turnOf(right) || left.order - right.order);
  return packFetched(
    'Sources',
    'id|text',
    units,
    (batch) => context.chunks(batch.map((unit) => ({ id: unit.id, score: unit.score, scores: { entityOrder: unit.order, bm25: textScore(unit), relationships: unit.relationships } }))),
    (chunk) => `${chunk.hid}|${tableCell(chunk.text)}`,
    context,
    budget,
  );
}

/**
 * Matches the question (and the recent user turns) to entities by their description embeddings, as GraphRAG does,
 * after — a deviation — the entities the question names: a proper name or noun phrase of the question (the
 * noun-phrase extractor, no LLM call) that is an entity's title or alias. A description embedding ranks a name the
 * question writes below entities whose descriptions share its other words ("Which singer is American, Mark King or
 * Nick Hexum?" matched Nick Hexum's band's songs, not Mark King). Ids and scores, best first, with how many lead as named.
 */
async function matchEntities(context: MethodContext, question: string, options: LocalContextOptions): Promise<{ hits: Array<{ id: string; score: number }>; named: number }> {
  const turns = recentUserTurns(options.conversationHistory, options.conversationHistoryMaxTurns);
  const text = turns.length > 0 ? `${question}\n${turns.join('\n')}` : question;
  const byName = options.namedEntities ?? true;
  const [vector, phrases, names] = await Promise.all([context.embedQuery(text), byName ? questionNounPhrases(question) : [], byName ? localEntityNames(context) : new Map<string, string>()]);
  // GraphRAG keeps every one of the oversampled hits (2 × topKEntities), not just the top k.
  const found = await context.trace.time(
    'entity-search',
    () => context.store.vectors('entities').search(vector, options.topKEntities * 2),
    (hits) => ({ hits: hits.length }),
  );
  const namedIds = Array.from(new Set(phrases.flatMap((phrase) => names.get(normalizePhrase(phrase)) ?? [])));
  const best = found[0]?.score ?? 1;
  const named = namedIds.map((id) => ({ id, score: found.find((hit) => hit.id === id)?.score ?? best }));
  const namedSet = new Set(namedIds);
  return { hits: named.concat(found.filter((hit) => !namedSet.has(hit.id))), named: named.length };
}

/** The rows of the matched entities, in match order; a match without a row is left out. */
async function entityRowsOf(context: MethodContext, hits: ReadonlyArray<{ id: string; score: number }>): Promise<Array<{ entity: EntityRecord; score: number }>> {
  const rows = new Map((await context.store.table('entities').get(hits.map((hit) => hit.id))).map((entity) => [entity.id, entity]));
  return hits.flatMap((hit) => {
    const entity = rows.get(hit.id);
    return entity ? [{ entity, score: hit.score }] : [];
  });
}

/**
 * Builds GraphRAG's local-search context (microsoft/graphrag `query/structured_search/local_search/mixed_context.py`): conversation history, then
 * community reports (`communityProp`), entities with their relationships and claims (the remainder), and
 * text units (`textUnitProp`). Every section fits its share of `maxContextTokens` after the history, and
 * the whole text fits `maxContextTokens`, counted with the workspace tokenizer.
 */
export async function buildLocalContext(context: MethodContext, question: string, options: LocalContextOptions, read: LocalContextReads = {}): Promise<LocalContext> {
  const { tokenizer } = context;
  const maxTokens = options.maxContextTokens;
  const turns = recentUserTurns(options.conversationHistory, options.conversationHistoryMaxTurns);
  const history = packTable('Conversation History', 'turn|content', turns.map((turn) => ({ row: `user|${tableCell(turn)}`, item: turn })), tokenizer, maxTokens, {
    stopAtFirstMiss: true,
  });
  const historySection: LocalSection = { text: history.included.length > 0 ? history.text : '', tokens: history.included.length > 0 ? history.tokens : 0, budget: maxTokens };
  const { hits, named } = await matchEntities(context, question, options);
  const hitIds = hits.map((hit) => hit.id);
  // Read once, and awaited by each section only where it needs the rows: the reports and the relationships are
  // chosen from the matched ids alone, so their reads go out beside this one (a round trip each on a remote store).
  const selectedRows = entityRowsOf(context, hits);

  const budget = Math.max(0, maxTokens - historySection.tokens - (historySection.tokens > 0 ? separatorReserve : 0));
  const shares = {
    reports: Math.max(0, Math.floor(budget * options.communityProp)),
    local: Math.max(0, Math.floor(budget * (1 - options.communityProp - options.textUnitProp))),
    sources: Math.max(0, Math.floor(budget * options.textUnitProp)),
  };
  let reserve = separatorReserve;
  while (true) {
    const [reports, local, sources, selected] = await context.trace.time('local-context', async () => {
      const reportsFor = (entityIds: readonly string[]) => reportsSection(context, entityIds, options.communityLevel, shares.reports - reserve, read.communities === true);
      const [matchedReports, localTables, sourceTable, rows] = await Promise.all([
        reportsFor(hitIds),
        localSection(context, hitIds, selectedRows, options, shares.local - reserve),
        selectedRows.then((found) => sourcesSection(context, question, found, named, shares.sources - reserve)),
        selectedRows,
      ]);
      // A match without a row (not in a consistent index) must not count in the reports' order.
      const reportTable = rows.length === hitIds.length ? matchedReports : await reportsFor(rows.map((item) => item.entity.id));
      return [reportTable, localTables, sourceTable, rows] as const;
    });
    const text = joinSections([historySection.text, reports.text, local.text, sources.text]);
    const tokens = tokenizer.count(text);
    if (tokens > maxTokens && tokens > 0) {
      reserve += tokens - maxTokens;
      continue;
    }
    const titles = (await localGraph(context)).entityTitle;
    const endpointTitles = new Map(local.relations.flatMap((relation) => [relation.source, relation.target]).map((id) => [id, titles.get(id) ?? id]));
    return {
      text,
      tokens,
      endpointTitles,
      sections: {
        history: historySection,
        reports: { text: reports.text, tokens: reports.tokens, budget: shares.reports },
        local: { text: local.text, tokens: local.tokens, budget: shares.local },
        sources: { text: sources.text, tokens: sources.tokens, budget: shares.sources },
      },
      selected,
      entities: local.entities,
      relations: local.relations,
      claims: local.claims,
      reports: reports.included,
      communities: reports.communities,
      chunks: sources.included,
      citable: citableRecords(reports.included, local, sources.included, titles),
    };
  }
}

function citableRecords(
  reports: readonly ReportRecord[],
  local: LocalTables,
  chunks: readonly ContextChunk[],
  titles: ReadonlyMap<string, string>,
): LocalContext['citable'] {
  const titleOf = (id: string): string => titles.get(id) ?? id;
  return {
    Sources: new Map(chunks.map((chunk) => [chunk.hid, { id: chunk.id, title: chunk.documentTitle, source: chunk.source, quote: chunk.text }])),
    Reports: new Map(reports.map((report) => [report.hid ?? 0, { id: report.communityId, title: report.title, source: 'community' }])),
    Entities: new Map(local.entities.map((entity) => [entity.hid ?? 0, { id: entity.id, title: entity.title, quote: entity.description }])),
    Relationships: new Map(
      local.relations.map((relation) => [relation.hid ?? 0, { id: relation.id, title: `${titleOf(relation.source)} → ${titleOf(relation.target)}`, quote: relation.description }]),
    ),
    Claims: new Map(local.claims.map((claim) => [claim.hid ?? 0, { id: claim.id, title: `${titleOf(claim.subject)}: ${claim.type}`, quote: claim.description }])),
  };
}
