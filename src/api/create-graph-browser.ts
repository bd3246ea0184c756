import { KgragError } from '../core/errors.js';
import type { CommunityRecord, ReportRecord } from '../core/types.js';
import { phraseKeyOfName } from '../extract/nlp-graph/graph-mentions.js';
import { titleAsName } from '../extract/nlp-graph/title-mentions.js';
import { forceAtlas2Layout } from '../graph/force-atlas2-layout.js';
import type { Store } from '../store/store.js';
import { foldLabel } from '../text/fold-label.js';
import { queryTerms } from '../text/word-tokens.js';
import { createGenerationMemo } from './generation-memo.js';
import {
  graphBrowserLimits,
  maxSearchQueryLength,
  type AliasMerge,
  type CommunityView,
  type EntityCommunity,
  type EntityMatch,
  type EntitySummary,
  type GraphBrowser,
  type GraphEdge,
  type GraphNode,
  type GraphSlice,
  type OptionRange,
  type SourcePassage,
} from './graph-browser.js';
import { nameMatchKinds, nameMatchRank } from './name-match-rank.js';

/** An entity of the in-memory name table: what lists show, and its names folded for matching. */
interface NamedEntity extends EntitySummary {
  aliases: string[];
  /** The folded title, then the folded aliases. */
  names: string[];
  foldedType: string;
}

interface NameTable {
  entities: NamedEntity[];
  byId: Map<string, NamedEntity>;
}

/** The relations without their text: enough to walk the graph and rank edges. */
interface EdgeTable {
  ids: string[];
  source: string[];
  target: string[];
  weight: Float64Array;
  /** Per entity, the edges touching it (as indexes), strongest first. */
  incident: Map<string, number[]>;
}

type CommunityRow = Pick<CommunityRecord, 'id' | 'level' | 'parent' | 'children' | 'title' | 'size' | 'entityIds'>;

interface CommunityTable {
  /** By level, then size descending, then id. */
  ordered: CommunityRow[];
  levels: number[];
  /** Per entity, the communities containing it, by level. */
  byEntity: Map<string, CommunityRow[]>;
  /** Per entity, its community ids with index = level, as graph nodes carry them. */
  pathOf: Map<string, string[]>;
}

/** Laid-out slices of one generation, by their options. */
type LayoutCache = Map<string, Promise<GraphSlice>>;

/** An option's value: its default when omitted, else an integer within its range, or a `GRAPH_BAD_OPTION` error. */
function integerOption(name: string, value: number | undefined, range: OptionRange): number {
  if (value === undefined) return range.default;
  if (!Number.isInteger(value) || value < range.min || value > range.max) {
    throw new KgragError(`${name} must be an integer from ${range.min} to ${range.max}, not ${String(value)}`, {
      code: 'GRAPH_BAD_OPTION',
      category: 'input',
      hint: `pass ${name} between ${range.min} and ${range.max}, or leave it out for ${range.default}`,
      details: { option: name, value, min: range.min, max: range.max },
    });
  }
  return value;
}

function summaryOf(entity: NamedEntity): EntitySummary {
  return { id: entity.id, title: entity.title, type: entity.type, degree: entity.degree, frequency: entity.frequency };
}

function byIdOrder(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Edges by weight descending, then id. */
function heaviestFirst(edges: EdgeTable): (a: number, b: number) => number {
  return (a, b) => (edges.weight[b] ?? 0) - (edges.weight[a] ?? 0) || byIdOrder(edges.ids[a] ?? '', edges.ids[b] ?? '');
}

async function loadNames(store: Store): Promise<NameTable> {
  const rows = await store.table('entities').pick(['id', 'title', 'type', 'degree', 'frequency', 'aliases']);
  const entities = rows.map(
    (row): NamedEntity => ({
      id: row.id,
      title: row.title,
      type: row.type,
      degree: row.degree,
      frequency: row.frequency,
      aliases: row.aliases,
      names: [row.title, ...row.aliases].map(foldLabel),
      foldedType: foldLabel(row.type),
    }),
  );
  return { entities, byId: new Map(entities.map((entity) => [entity.id, entity])) };
}

async function loadEdges(store: Store): Promise<EdgeTable> {
  const rows = await store.table('relations').pick(['id', 'source', 'target', 'weight']);
  const edges: EdgeTable = {
    ids: rows.map((row) => row.id),
    source: rows.map((row) => row.source),
    target: rows.map((row) => row.target),
    weight: Float64Array.from(rows, (row) => row.weight),
    incident: new Map(),
  };
  const touch = (entity: string, edge: number): void => {
    const list = edges.incident.get(entity);
    if (list) list.push(edge);
    else edges.incident.set(entity, [edge]);
  };
  rows.forEach((row, edge) => {
    touch(row.source, edge);
    if (row.target !== row.source) touch(row.target, edge);
  });
  const order = heaviestFirst(edges);
  for (const list of edges.incident.values()) list.sort(order);
  return edges;
}

async function loadCommunities(store: Store): Promise<CommunityTable> {
  const rows = await store.table('communities').pick(['id', 'level', 'parent', 'children', 'title', 'size', 'entityIds']);
  const ordered = rows.map(({ hid: _hid, ...row }) => row).sort((a, b) => a.level - b.level || b.size - a.size || byIdOrder(a.id, b.id));
  const byEntity = new Map<string, CommunityRow[]>();
  for (const community of ordered) {
    for (const entity of community.entityIds) {
      const list = byEntity.get(entity);
      if (list) list.push(community);
      else byEntity.set(entity, [community]);
    }
  }
  const pathOf = new Map<string, string[]>();
  for (const [entity, memberOf] of byEntity) {
    // Levels run from 0 without gaps (every community but the coarsest has a parent); stop at one that does not.
    const path: string[] = [];
    for (const community of memberOf) {
      if (community.level === path.length) path.push(community.id);
      else if (community.level > path.length) break;
    }
    pathOf.set(entity, path);
  }
  return { ordered, levels: [...new Set(ordered.map((community) => community.level))], byEntity, pathOf };
}

function communityView(community: CommunityRow, report: ReportRecord | undefined): CommunityView {
  return {
    id: community.id,
    level: community.level,
    parent: community.parent,
    children: community.children,
    title: community.title,
    size: community.size,
    report:
      report === undefined
        ? undefined
        : {
            title: report.title,
            summary: report.summary,
            rating: report.rating,
            ratingExplanation: report.ratingExplanation,
            findings: report.findings,
            fullContent: report.fullContent,
            generatedBy: report.generatedBy,
          },
  };
}

/**
 * The graph browser over a store's published index (see {@link GraphBrowser}). Name search, neighbourhoods,
 * slices and community memberships run over tables kept in memory per index generation (names, the relations
 * without their text, community members), so suggest-as-you-type costs a scan of a few thousand names rather
 * than a read of the entities table; texts (descriptions, passages, reports) are read per call.
 */
export function createGraphBrowser(store: Store): GraphBrowser {
  const memo = createGenerationMemo<{ names: NameTable; edges: EdgeTable; communities: CommunityTable; layouts: LayoutCache }>(store, {
    names: () => loadNames(store),
    edges: () => loadEdges(store),
    communities: () => loadCommunities(store),
    layouts: () => Promise.resolve(new Map()),
  });

  const nodeOf = (entity: NamedEntity, depth: number, communities: CommunityTable): GraphNode => ({
    ...summaryOf(entity),
    depth,
    communities: communities.pathOf.get(entity.id) ?? [],
  });

  const reportsOf = async (communityIds: readonly string[]): Promise<Map<string, ReportRecord>> =>
    new Map((await store.table('reports').get(communityIds)).map((report) => [report.communityId, report]));

  /** Edges among `nodes`, heaviest first, and whether `maxEdges` cut them. */
  const edgesAmong = async (edges: EdgeTable, nodes: ReadonlySet<string>, maxEdges: number): Promise<{ edges: GraphEdge[]; truncated: boolean }> => {
    const inside = new Set<number>();
    for (const node of nodes) {
      for (const edge of edges.incident.get(node) ?? []) {
        if (nodes.has(edges.source[edge] ?? '') && nodes.has(edges.target[edge] ?? '')) inside.add(edge);
      }
    }
    const ranked = [...inside].sort(heaviestFirst(edges));
    const kept = ranked.slice(0, maxEdges);
    const descriptions = new Map(
      (await store.table('relations').pick(['id', 'description'], { column: 'id', values: kept.map((edge) => edges.ids[edge]) })).map((row) => [row.id, row.description]),
    );
    const listed: GraphEdge[] = [];
    for (const edge of kept) {
      const id = edges.ids[edge] ?? '';
      const description = descriptions.get(id);
      // A relation gone from the newest index (published since the edge table was read) is not shown.
      if (description === undefined) continue;
      listed.push({ id, source: edges.source[edge] ?? '', target: edges.target[edge] ?? '', description, weight: edges.weight[edge] ?? 0 });
    }
    return { edges: listed, truncated: ranked.length > kept.length };
  };

  return {
    async searchEntities(query, options = {}) {
      const limit = integerOption('limit', options.limit, graphBrowserLimits.searchLimit);
      const wanted = foldLabel(query);
      if (wanted.length === 0 || query.length > maxSearchQueryLength) {
        throw new KgragError(wanted.length === 0 ? 'the entity search query is empty' : `the entity search query is longer than ${maxSearchQueryLength} characters`, {
          code: 'GRAPH_BAD_QUERY',
          category: 'input',
          hint: 'pass a name or part of one, e.g. "kester weir"',
        });
      }
      const type = options.type === undefined ? undefined : foldLabel(options.type);
      const names = await memo.get('names');
      const named: Array<{ entity: NamedEntity; rank: number; alias: string | undefined }> = [];
      for (const entity of names.entities) {
        if (type !== undefined && entity.foldedType !== type) continue;
        let rank = -1;
        let alias: string | undefined;
        entity.names.forEach((name, index) => {
          const nameRank = nameMatchRank(name, wanted);
          if (nameRank >= 0 && (rank < 0 || nameRank < rank)) {
            rank = nameRank;
            alias = index === 0 ? undefined : entity.aliases[index - 1];
          }
        });
        if (rank >= 0) named.push({ entity, rank, alias });
      }
      named.sort((a, b) => a.rank - b.rank || b.entity.degree - a.entity.degree || byIdOrder(a.entity.title, b.entity.title) || byIdOrder(a.entity.id, b.entity.id));
      const matches: EntityMatch[] = named.slice(0, limit).map(({ entity, rank, alias }) => ({
        ...summaryOf(entity),
        match: nameMatchKinds[rank] ?? 'contains',
        ...(alias === undefined ? {} : { alias }),
      }));
      const terms = queryTerms(query);
      if (matches.length >= limit || terms.length === 0) return matches;
      // Hits of other types, and names already listed, take places among the top k: ask for enough.
      const k = named.length + (type === undefined ? limit : limit * 10);
      const seen = new Set(named.map(({ entity }) => entity.id));
      for (const hit of await store.searchText('entities', terms, k)) {
        const entity = names.byId.get(hit.id);
        if (entity === undefined || seen.has(entity.id) || (type !== undefined && entity.foldedType !== type)) continue;
        matches.push({ ...summaryOf(entity), match: 'text' });
        if (matches.length >= limit) break;
      }
      return matches;
    },

    async aliasMerges(options = {}) {
      const limit = integerOption('limit', options.limit, graphBrowserLimits.mergeLimit);
      const names = await memo.get('names');
      const titles = new Set((await store.table('documents').pick(['title'])).map((document) => foldLabel(titleAsName(document.title))));
      const merges: AliasMerge[] = [];
      for (const entity of [...names.entities].sort((a, b) => b.degree - a.degree || byIdOrder(a.title, b.title))) {
        const words = entity.title.split(/\s+/);
        const last = words.length < 2 ? undefined : foldLabel(words[words.length - 1] as string);
        for (const alias of entity.aliases) {
          const folded = foldLabel(alias);
          // A title written as another spelling of the entity's own name ("Bopha!" for "Bopha") is no merge.
          const kind = !/\s/.test(alias) && folded === last ? 'short name' : titles.has(folded) && phraseKeyOfName(alias) !== phraseKeyOfName(entity.title) ? 'document title' : undefined;
          if (kind !== undefined) merges.push({ name: alias, kind, entityId: entity.id, title: entity.title, frequency: entity.frequency });
        }
        if (merges.length >= limit) break;
      }
      return merges.slice(0, limit);
    },

    async entity(id, options = {}) {
      const maxSources = integerOption('maxSources', options.maxSources, graphBrowserLimits.maxSources);
      const [entity] = await store.table('entities').get([id]);
      if (entity === undefined) return undefined;
      const sourceIds = entity.chunkIds.slice(0, maxSources);
      const chunks = new Map((await store.table('chunks').get(sourceIds)).map((chunk) => [chunk.id, chunk]));
      const documentIds = [...new Set([...chunks.values()].map((chunk) => chunk.documentId))];
      const titles = new Map((await store.table('documents').pick(['id', 'title'], { column: 'id', values: documentIds })).map((document) => [document.id, document.title]));
      const sources: SourcePassage[] = [];
      for (const chunkId of sourceIds) {
        const chunk = chunks.get(chunkId);
        if (chunk) sources.push({ chunkId, documentId: chunk.documentId, documentTitle: titles.get(chunk.documentId) ?? '', text: chunk.text });
      }
      const memberOf = (await memo.get('communities')).byEntity.get(id) ?? [];
      const reports = await reportsOf(memberOf.map((community) => community.id));
      const communities: EntityCommunity[] = memberOf.map((community) => ({
        id: community.id,
        level: community.level,
        title: community.title,
        reportTitle: reports.get(community.id)?.title,
      }));
      return {
        id: entity.id,
        title: entity.title,
        type: entity.type,
        degree: entity.degree,
        frequency: entity.frequency,
        description: entity.description,
        aliases: entity.aliases,
        chunkIds: entity.chunkIds,
        sources,
        communities,
      };
    },

    async neighbours(id, options = {}) {
      const depth = integerOption('depth', options.depth, graphBrowserLimits.depth);
      const limit = integerOption('limit', options.limit, graphBrowserLimits.neighbourLimit);
      const maxEdges = integerOption('maxEdges', options.maxEdges, graphBrowserLimits.neighbourMaxEdges);
      const names = await memo.get('names');
      if (!names.byId.has(id)) return undefined;
      const edges = await memo.get('edges');
      const depths = new Map<string, number>([[id, 0]]);
      let frontier = [id];
      let truncated = false;
      for (let hop = 1; hop <= depth && frontier.length > 0; hop++) {
        // Each entity one hop further, with the weight of its strongest edge from the frontier.
        const reached = new Map<string, number>();
        for (const node of frontier) {
          for (const edge of edges.incident.get(node) ?? []) {
            const other = edges.source[edge] === node ? edges.target[edge] : edges.source[edge];
            if (other === undefined || depths.has(other) || !names.byId.has(other)) continue;
            const weight = edges.weight[edge] ?? 0;
            if ((reached.get(other) ?? -Infinity) < weight) reached.set(other, weight);
          }
        }
        const ranked = [...reached].sort((a, b) => b[1] - a[1] || byIdOrder(a[0], b[0])).map(([node]) => node);
        const room = limit - depths.size;
        if (ranked.length > room) truncated = true;
        frontier = ranked.slice(0, room);
        for (const node of frontier) depths.set(node, hop);
      }
      const among = await edgesAmong(edges, new Set(depths.keys()), maxEdges);
      const communities = await memo.get('communities');
      const nodes: GraphNode[] = [];
      for (const [node, hops] of depths) {
        const entity = names.byId.get(node);
        if (entity) nodes.push(nodeOf(entity, hops, communities));
      }
      return { nodes, edges: among.edges, truncated: truncated || among.truncated };
    },

    async communities(options = {}) {
      const limit = integerOption('limit', options.limit, graphBrowserLimits.communityLimit);
      const offset = integerOption('offset', options.offset, { default: 0, min: 0, max: Number.MAX_SAFE_INTEGER });
      const level = options.level === undefined ? undefined : integerOption('level', options.level, { default: 0, min: 0, max: Number.MAX_SAFE_INTEGER });
      const table = await memo.get('communities');
      const chosen = level === undefined ? table.ordered : table.ordered.filter((community) => community.level === level);
      const page = chosen.slice(offset, offset + limit);
      const reports = await reportsOf(page.map((community) => community.id));
      return { total: chosen.length, levels: table.levels, communities: page.map((community) => communityView(community, reports.get(community.id))) };
    },

    async community(id) {
      const [community] = await store.table('communities').get([id]);
      if (community === undefined) return undefined;
      return { ...communityView(community, (await reportsOf([id])).get(id)), entityIds: community.entityIds };
    },

    async chunk(id) {
      const [chunk] = await store.table('chunks').get([id]);
      if (chunk === undefined) return undefined;
      const [document] = await store.table('documents').pick(['id', 'title', 'source', 'createdAt'], { column: 'id', values: [chunk.documentId] });
      if (document === undefined) return undefined;
      return {
        id: chunk.id,
        ordinal: chunk.ordinal,
        text: chunk.text,
        nTokens: chunk.nTokens,
        start: chunk.start,
        end: chunk.end,
        document: { id: document.id, title: document.title, source: document.source, createdAt: document.createdAt },
      };
    },

    async slice(options = {}) {
      const top = integerOption('top', options.top, graphBrowserLimits.sliceTop);
      const maxEdges = integerOption('maxEdges', options.maxEdges, graphBrowserLimits.sliceMaxEdges);
      const type = options.type === undefined ? undefined : foldLabel(options.type);
      const build = async (): Promise<GraphSlice> => {
        const names = await memo.get('names');
        const candidates = type === undefined ? names.entities : names.entities.filter((entity) => entity.foldedType === type);
        const chosen = [...candidates].sort((a, b) => b.degree - a.degree || byIdOrder(a.id, b.id)).slice(0, top);
        const among = await edgesAmong(await memo.get('edges'), new Set(chosen.map((entity) => entity.id)), maxEdges);
        const communities = await memo.get('communities');
        return {
          nodes: chosen.map((entity) => nodeOf(entity, 0, communities)),
          edges: among.edges,
          truncated: candidates.length > chosen.length || among.truncated,
        };
      };
      if (options.layout !== true) return build();
      // The cache is taken before the slice is read: a slice of a newer generation then lands in the older
      // generation's cache, which is dropped, rather than the other way round.
      const layouts = await memo.get('layouts');
      const key = JSON.stringify([top, maxEdges, type ?? null]);
      const kept = layouts.get(key);
      if (kept) return kept;
      const laidOut = build().then((slice) => {
        const positions = forceAtlas2Layout({
          nodes: slice.nodes.map((node) => node.id),
          groups: slice.nodes.map((node) => node.communities[0]),
          edges: slice.edges,
        });
        slice.nodes.forEach((node, index) => Object.assign(node, positions[index]));
        return slice;
      });
      layouts.set(key, laidOut);
      laidOut.catch(() => layouts.delete(key));
      return laidOut;
    },
  };
}
