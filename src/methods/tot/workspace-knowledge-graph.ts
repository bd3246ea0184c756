import { appendAll } from '../../core/append-all.js';
import type { KgCallOptions, KgEdge, KgEdgeList, KgEntity, KgRelation, KgRelationList, KnowledgeGraph } from './kg/knowledge-graph.js';
import type { Store } from '../../store/store.js';
import { shortenText } from '../../text/shorten-text.js';
import { queryTerms } from '../../text/word-tokens.js';
import { entityIndexOf, loadTypedRelationGraph, nameKey, type TypedRelationGraph } from './typed-relation-graph.js';

/*
 * The workspace index seen as a Tree-of-Traversals knowledge graph (amazon-science/tree-of-traversals `wikidata/`).
 *
 * Ids. An entity is `E{hid}`, its row's integer id: short, stable for the life of the index, and never a
 * prefix problem once selections are parsed as whole tokens. Relation types are `R1, R2, …`, numbered by
 * sorted label over the whole index (typed-relation-graph.ts explains how untyped GraphRAG relations get types:
 * keywords, else OpenIE predicates joining the two entities, else the undirected `related to`).
 *
 * Direction. For a directed type, `forward` means the selected entity is the source (subject) and
 * `backward` that it is the target. `related to` is symmetric, so it is offered only as `forward`, from
 * either end; asking for it `backward` gives the same edges.
 *
 * Evidence. Each edge's `attributes` carries a short form of its relation's description, ` (Clara Ivesley
 * studied at …)`, so the LLM reads why two entities are linked, not just that they are.
 *
 * Cost. The typed graph (entity names, relation endpoints, triple predicates; no text columns) is loaded once
 * per instance, or once per index when the caller passes a shared loader (`typedRelationGraph(context)`); descriptions are read per
 * call for the rows shown, and search goes through the store's full-text index.
 */

/** Options of {@link createWorkspaceKnowledgeGraph}. */
export interface WorkspaceKnowledgeGraphOptions {
  /** The graph's name, the key of `sameAs` in other graphs. @default 'index' */
  name?: string;
  /** Most relations returned by `getRelations` and edges by `getEdges` before `truncated` is set. @default 100 */
  limit?: number;
  /** Entity descriptions are cut to this many characters for prompts. @default 200 */
  descriptionLength?: number;
  /** Relation descriptions shown as edge attributes are cut to this many characters. @default 160 */
  attributeLength?: number;
  /**
   * Loads the typed graph, e.g. `() => typedRelationGraph(context)` to share it with the other users of one index
   * until it changes; without it the instance loads its own on first use.
   */
  load?: () => Promise<TypedRelationGraph>;
}

const relationIdPattern = /^R(\d+)$/;

/** The workspace graph's name: in `methods.tot.graphs`, in `KgEntity.graph`, and as the `sameAs` key. */
export const indexGraphName = 'index';

/** A {@link KnowledgeGraph} over the workspace index's entities, relations and triples. */
export function createWorkspaceKnowledgeGraph(store: Store, options: WorkspaceKnowledgeGraphOptions = {}): KnowledgeGraph {
  const name = options.name ?? indexGraphName;
  const limit = options.limit ?? 100;
  const descriptionLength = options.descriptionLength ?? 200;
  const attributeLength = options.attributeLength ?? 160;
  /** Row id → shortened description (entities) or evidence (relations): keyed by row, not position, so a reloaded graph cannot mislabel. */
  const descriptions = new Map<string, string>();
  const evidence = new Map<string, string>();
  /** `cache` filled with the shortened descriptions of `ids` of `table`, each row read once. */
  const shortenedDescriptions = async (table: 'entities' | 'relations', cache: Map<string, string>, ids: readonly string[], length: number): Promise<Map<string, string>> => {
    const missing = [...new Set(ids)].filter((id) => !cache.has(id));
    if (missing.length > 0) for (const row of await store.table(table).get(missing)) cache.set(row.id, shortenText(row.description, length));
    return cache;
  };

  let loading: Promise<TypedRelationGraph> | undefined;
  const graph = (): Promise<TypedRelationGraph> => {
    if (options.load) return options.load();
    // A failed load is forgotten so that the next call tries again.
    loading ??= loadTypedRelationGraph(store).catch((error: unknown) => {
      loading = undefined;
      throw error;
    });
    return loading;
  };

  /** Entities at `indices`, in that order, with their descriptions (read once per entity). */
  const toEntities = async (kg: TypedRelationGraph, indices: readonly number[]): Promise<KgEntity[]> => {
    await shortenedDescriptions('entities', descriptions, indices.map((index) => kg.entityIds[index] as string), descriptionLength);
    return indices.map((index) => ({
      id: `E${kg.entityHids[index] as number}`,
      label: kg.entityTitles[index] as string,
      description: descriptions.get(kg.entityIds[index] as string) ?? '',
      graph: name,
    }));
  };

  const relationOf = (kg: TypedRelationGraph, type: number, direction: KgRelation['direction']): KgRelation => {
    const entry = kg.types[type] as TypedRelationGraph['types'][number];
    return { id: entry.id, label: entry.label, direction, graph: name };
  };

  return {
    name,

    async searchEntities(text: string, callOptions: KgCallOptions & { limit?: number } = {}): Promise<KgEntity[]> {
      callOptions.signal?.throwIfAborted();
      const kg = await graph();
      const wanted = callOptions.limit ?? 10;
      const key = nameKey(text);
      if (wanted <= 0 || key.length === 0) return [];
      const found: number[] = [];
      const seen = new Set<number>();
      const take = (indices: Iterable<number>): void => {
        for (const index of indices) {
          if (seen.has(index)) continue;
          seen.add(index);
          found.push(index);
        }
      };
      const byRank = (a: number, b: number): number => (kg.entityRank[a] as number) - (kg.entityRank[b] as number);
      // 1. The exact name; 2. names containing the mention as whole words; 3. names the mention contains.
      take(kg.byName.get(key) ?? []);
      const padded = ` ${key} `;
      const containing: number[] = [];
      const contained: number[] = [];
      for (const entry of kg.names) {
        if (entry.key === key) continue;
        if (entry.padded.includes(padded)) appendAll(containing, entry.entities);
        else if (padded.includes(entry.padded)) appendAll(contained, entry.entities);
      }
      take([...new Set(containing)].sort(byRank));
      take([...new Set(contained)].sort(byRank));
      // 4. Full-text matches of title and description (BM25), for mentions no name contains.
      if (found.length < wanted) {
        const hits = await store.searchText('entities', queryTerms(text), wanted + found.length);
        take(hits.flatMap((hit) => kg.byId.get(hit.id) ?? []));
      }
      return toEntities(kg, found.slice(0, wanted));
    },

    async getEntities(ids: readonly string[], callOptions: KgCallOptions = {}): Promise<KgEntity[]> {
      callOptions.signal?.throwIfAborted();
      const kg = await graph();
      return toEntities(kg, ids.flatMap((id) => entityIndexOf(kg, id) ?? []));
    },

    async getRelations(entities: readonly string[], callOptions: KgCallOptions = {}): Promise<KgRelationList> {
      callOptions.signal?.throwIfAborted();
      const kg = await graph();
      const forward = new Set<number>();
      const backward = new Set<number>();
      for (const id of entities) {
        const index = entityIndexOf(kg, id);
        if (index === undefined) continue;
        for (const edge of kg.outgoing.get(index) ?? []) forward.add(kg.edgeType[edge] as number);
        for (const edge of kg.incoming.get(index) ?? []) backward.add(kg.edgeType[edge] as number);
      }
      const all = [
        ...[...forward].sort((a, b) => a - b).map((type) => relationOf(kg, type, 'forward')),
        ...[...backward].sort((a, b) => a - b).map((type) => relationOf(kg, type, 'backward')),
      ];
      const truncated = all.length > limit;
      return { relations: all.slice(0, limit), truncated, ...(truncated ? { limit } : {}) };
    },

    async getEdges(entities: readonly string[], relation: KgRelation, callOptions: KgCallOptions = {}): Promise<KgEdgeList> {
      callOptions.signal?.throwIfAborted();
      const kg = await graph();
      const typeNumber = relationIdPattern.exec(relation.id.trim().replace(/^~/, ''))?.[1];
      const type = typeNumber === undefined ? -1 : Number(typeNumber) - 1;
      const typeEntry = kg.types[type];
      if (typeEntry === undefined) return { edges: [], entities: [], truncated: false };
      const backward = relation.direction === 'backward' && typeEntry.directed;

      const found: Array<{ source: number; sourceOrder: number; target: number; edge: number }> = [];
      const seen = new Set<string>();
      const selected = [...new Set(entities.flatMap((id) => entityIndexOf(kg, id) ?? []))];
      selected.forEach((source, sourceOrder) => {
        for (const edge of (backward ? kg.incoming : kg.outgoing).get(source) ?? []) {
          if (kg.edgeType[edge] !== type) continue;
          const from = kg.edgeFrom[edge] as number;
          const to = kg.edgeTo[edge] as number;
          const target = backward ? from : from === source ? to : from;
          const key = `${source}\u0000${target}`;
          if (seen.has(key)) continue;
          seen.add(key);
          found.push({ source, sourceOrder, target, edge });
        }
      });
      // The strongest relations survive truncation; ties keep the caller's entity order, then the target's hid.
      found.sort(
        (a, b) =>
          (kg.edgeWeight[b.edge] as number) - (kg.edgeWeight[a.edge] as number) ||
          a.sourceOrder - b.sourceOrder ||
          (kg.entityHids[a.target] as number) - (kg.entityHids[b.target] as number),
      );
      const kept = found.slice(0, limit);
      await shortenedDescriptions('relations', evidence, kept.map((item) => kg.edgeRelation[item.edge] as string), attributeLength);
      const shown = relationOf(kg, type, backward ? 'backward' : 'forward');
      const edges = kept.map((item): KgEdge => {
        const description = evidence.get(kg.edgeRelation[item.edge] as string) ?? '';
        return {
          source: `E${kg.entityHids[item.source] as number}`,
          relation: shown,
          target: `E${kg.entityHids[item.target] as number}`,
          ...(description.length > 0 ? { attributes: ` (${description})` } : {}),
        };
      });
      const reached = [...new Set(kept.map((item) => item.target))];
      const truncated = found.length > limit;
      return { edges, entities: await toEntities(kg, reached), truncated, ...(truncated ? { limit } : {}) };
    },

    async linkEntity(entity: KgEntity, callOptions: KgCallOptions = {}): Promise<KgEntity | undefined> {
      callOptions.signal?.throwIfAborted();
      const kg = await graph();
      const explicit = entity.sameAs?.[name];
      if (explicit !== undefined) {
        const index = entityIndexOf(kg, explicit);
        if (index !== undefined) return (await toEntities(kg, [index]))[0];
      }
      const key = nameKey(entity.label);
      const match = key.length === 0 ? undefined : kg.byName.get(key)?.[0];
      return match === undefined ? undefined : (await toEntities(kg, [match]))[0];
    },
  };
}
