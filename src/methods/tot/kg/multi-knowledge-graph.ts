import { errorMessage } from '../../../core/error-message.js';
import { KgragError } from '../../../core/errors.js';
import { mapWithConcurrency } from '../../../core/map-with-concurrency.js';
import { maxOf, minOf } from '../../../core/max-of.js';
import type { KgCallOptions, KgEdge, KgEdgeList, KgEntity, KgRelation, KgRelationList, KnowledgeGraph } from './knowledge-graph.js';

/*
 * Several knowledge graphs walked as one: Tree-of-Traversals' Wikidata + MusicBrainz setting
 * (amazon-science/tree-of-traversals `wiki_x_music.py`, `musicbrainz/`), generalised to any graphs that implement `KnowledgeGraph`.
 *
 * Every entity the multi graph hands out is linked into the other graphs when it is first seen
 * (`other.linkEntity`, which honours explicit ids in `sameAs` before labels), and the links are kept in
 * `sameAs` (graph name → that graph's own id). A thing found in several graphs is one entity: the first
 * graph to return it owns it (graphs are registered in the order given), the others are in its `sameAs`.
 * Relations are offered for the selected entities and their linked counterparts, and `getEdges` runs in the
 * graph that offered the relation, with the selection translated through `sameAs` and edges translated back
 * to the ids the caller holds — so the index's "Brennard Technical College" offers its Wikidata item's
 * properties, and a Wikidata edge into an item linked to an index entity lands on that index entity.
 *
 * Id collisions. Ids are what the LLM types back, so they stay as the member graphs wrote them (`E12`,
 * `Q42`, `P31`). When two graphs use the same id for different things, the one seen second is namespaced
 * with its graph's name (`musicbrainz:Q42`) rather than failing the walk; relation ids likewise. An id never
 * changes once handed out, so callers can keep it; which of two colliding graphs keeps the plain id depends
 * on which one the walk reached first.
 *
 * Errors of a member graph are rethrown as a `KgragError` naming the graph and the operation (an aborted
 * call is rethrown unchanged), except while linking: an entity that could not be linked into a graph (that
 * graph is down, or rate-limits) stays unlinked there rather than failing a walk that may not need it. Its
 * link is tried again when it is selected (`getRelations`), and if that fails too the relation list says
 * which entity's relations are missing and why.
 */

/** Options of {@link createMultiKnowledgeGraph}. */
export interface MultiKnowledgeGraphOptions {
  /** @default 'multi' */
  name?: string;
  /** Most `linkEntity` calls in flight while linking newly seen entities. @default 4 */
  linkConcurrency?: number;
}

type Operation = 'searchEntities' | 'getEntities' | 'getRelations' | 'getEdges' | 'linkEntity';

/** An entity the multi graph has handed out. */
interface KnownEntity {
  /** The id callers see: the owner's id, or `owner:id` after a collision. */
  id: string;
  owner: KnowledgeGraph;
  /** The id in the owner graph. */
  localId: string;
  label: string;
  description: string;
  /** Graph name → id there: links found in member graphs and explicit links to graphs outside this one. */
  sameAs: Record<string, string>;
  /** The entity as its owner returned it, explicit links included: what linking offers the other graphs. */
  found: KgEntity;
  /** Graph name → why linking into it failed (tried again on selection). */
  linkErrors: Record<string, string>;
}

/**
 * One {@link KnowledgeGraph} over `graphs` (at least one, with distinct names). Entities and relations keep
 * their member graph's name in `graph`; see the file header for linking and id collisions.
 */
export function createMultiKnowledgeGraph(graphs: readonly KnowledgeGraph[], options: MultiKnowledgeGraphOptions = {}): KnowledgeGraph {
  const name = options.name ?? 'multi';
  const linkConcurrency = options.linkConcurrency ?? 4;
  if (graphs.length === 0) {
    throw new KgragError('A multi knowledge graph needs at least one graph', { code: 'KG_NO_GRAPHS', category: 'config', hint: 'Configure at least one knowledge graph.' });
  }
  const graphByName = new Map<string, KnowledgeGraph>();
  for (const graph of graphs) {
    if (graphByName.has(graph.name)) {
      throw new KgragError(`Two knowledge graphs are named "${graph.name}"`, {
        code: 'KG_DUPLICATE_NAME',
        category: 'config',
        hint: 'Give every knowledge graph a distinct name: the names key the cross-graph links.',
      });
    }
    graphByName.set(graph.name, graph);
  }

  const entities = new Map<string, KnownEntity>();
  /** `graph\0local id` → the id of the entity it is (its own entry, or the entity it was linked from). */
  const entityOf = new Map<string, string>();
  const relations = new Map<string, { graph: KnowledgeGraph; localId: string }>();
  const relationOf = new Map<string, string>();
  const localKey = (graph: KnowledgeGraph, id: string): string => `${graph.name}\u0000${id}`;
  const withSignal = (signal: AbortSignal | undefined): KgCallOptions => (signal === undefined ? {} : { signal });

  /** `id` when no other graph holds it, else the graph-namespaced form (suffixed in the unlikely case that is taken too). */
  const allocate = (taken: ReadonlyMap<string, unknown>, graph: KnowledgeGraph, id: string): string => {
    if (!taken.has(id)) return id;
    let candidate = `${graph.name}:${id}`;
    for (let n = 2; taken.has(candidate); n++) candidate = `${graph.name}:${id}#${n}`;
    return candidate;
  };

  const call = async <R>(graph: KnowledgeGraph, operation: Operation, signal: AbortSignal | undefined, run: () => Promise<R>): Promise<R> => {
    try {
      return await run();
    } catch (error) {
      if (signal?.aborted) throw error;
      const inner = KgragError.isInstance(error) ? error : undefined;
      throw new KgragError(`Knowledge graph "${graph.name}" failed in ${operation}: ${errorMessage(error)}`, {
        code: inner?.code ?? 'KG_CALL_FAILED',
        category: inner?.category ?? 'provider',
        ...(inner?.hint === undefined ? {} : { hint: inner.hint }),
        details: { ...inner?.details, graph: graph.name, operation },
        cause: error,
      });
    }
  };

  const toPublic = (known: KnownEntity): KgEntity => ({
    id: known.id,
    label: known.label,
    description: known.description,
    graph: known.owner.name,
    ...(Object.keys(known.sameAs).length > 0 ? { sameAs: { ...known.sameAs } } : {}),
  });

  /**
   * Links `items` into the graphs given with each, in input order (so the result does not depend on which
   * link answered first). A failed link is recorded in `linkErrors`, not thrown; an abort is thrown.
   */
  const link = async (items: ReadonlyArray<{ known: KnownEntity; other: KnowledgeGraph }>, signal: AbortSignal | undefined): Promise<void> => {
    const links = await mapWithConcurrency(
      items,
      linkConcurrency,
      async ({ known, other }) => {
        try {
          return { linked: await other.linkEntity(known.found, withSignal(signal)) };
        } catch (error) {
          if (signal?.aborted) throw error;
          return { error: errorMessage(error) };
        }
      },
      signal,
    );
    items.forEach(({ known, other }, index) => {
      const outcome = links[index];
      if (outcome === undefined) return;
      if (outcome.error !== undefined) {
        known.linkErrors[other.name] = outcome.error;
        return;
      }
      delete known.linkErrors[other.name];
      const { linked } = outcome;
      if (linked === undefined) return;
      known.sameAs[other.name] = linked.id;
      const key = localKey(other, linked.id);
      const counterpart = entityOf.get(key);
      if (counterpart === undefined) entityOf.set(key, known.id);
      else {
        // Already handed out as an entity of its own: at least make the link visible from both sides.
        const existing = entities.get(counterpart) as KnownEntity;
        if (existing.owner === other) existing.sameAs[known.owner.name] ??= known.localId;
      }
    });
  };

  /**
   * The known entities for `found` (entities of `graph`, in its ids), registering new ones and linking them
   * into every other graph. Ids are allocated before any await, so they depend only on the order of calls.
   */
  const register = async (graph: KnowledgeGraph, found: readonly KgEntity[], signal: AbortSignal | undefined): Promise<KnownEntity[]> => {
    const result: KnownEntity[] = [];
    const fresh: KnownEntity[] = [];
    for (const entity of found) {
      const existing = entityOf.get(localKey(graph, entity.id));
      if (existing !== undefined) {
        result.push(entities.get(existing) as KnownEntity);
        continue;
      }
      const sameAs = Object.fromEntries(Object.entries(entity.sameAs ?? {}).filter(([other]) => other !== graph.name && !graphByName.has(other)));
      const known: KnownEntity = {
        id: allocate(entities, graph, entity.id),
        owner: graph,
        localId: entity.id,
        label: entity.label,
        description: entity.description,
        sameAs,
        found: { ...entity, graph: graph.name },
        linkErrors: {},
      };
      entities.set(known.id, known);
      entityOf.set(localKey(graph, entity.id), known.id);
      fresh.push(known);
      result.push(known);
    }
    const others = graphs.filter((other) => other !== graph);
    await link(
      fresh.flatMap((known) => others.map((other) => ({ known, other }))),
      signal,
    );
    return result;
  };

  /**
   * Known entities for caller ids, `undefined` for ids no graph has. An id the multi graph never handed out
   * is looked up as `graph:id` in that graph, else in each graph in turn.
   */
  const resolve = async (ids: readonly string[], signal: AbortSignal | undefined): Promise<Array<KnownEntity | undefined>> => {
    let unknown = [...new Set(ids.filter((id) => !entities.has(id)))];
    const resolved = new Map<string, KnownEntity>();
    const lookUp = async (graph: KnowledgeGraph, pairs: ReadonlyArray<{ id: string; localId: string }>): Promise<void> => {
      if (pairs.length === 0) return;
      const found = await call(graph, 'getEntities', signal, () => graph.getEntities(pairs.map((pair) => pair.localId), withSignal(signal)));
      const known = await register(graph, found, signal);
      found.forEach((entity, index) => {
        for (const pair of pairs) if (pair.localId === entity.id) resolved.set(pair.id, known[index] as KnownEntity);
      });
    };
    for (const graph of graphs) {
      const prefix = `${graph.name}:`;
      await lookUp(graph, unknown.filter((id) => id.startsWith(prefix)).map((id) => ({ id, localId: id.slice(prefix.length) })));
    }
    unknown = unknown.filter((id) => !resolved.has(id));
    for (const graph of graphs) {
      if (unknown.length === 0) break;
      await lookUp(graph, unknown.map((id) => ({ id, localId: id })));
      unknown = unknown.filter((id) => !resolved.has(id));
    }
    return ids.map((id) => entities.get(id) ?? resolved.get(id));
  };

  /** The id `known` has in `graph`: its own when it lives there, else its link. */
  const idIn = (known: KnownEntity, graph: KnowledgeGraph): string | undefined => (known.owner === graph ? known.localId : known.sameAs[graph.name]);

  const publicRelation = (graph: KnowledgeGraph, relation: KgRelation): KgRelation => {
    const key = localKey(graph, relation.id);
    let id = relationOf.get(key);
    if (id === undefined) {
      id = allocate(relations, graph, relation.id);
      relations.set(id, { graph, localId: relation.id });
      relationOf.set(key, id);
    }
    return { ...relation, id, graph: graph.name };
  };

  return {
    name,

    async searchEntities(text: string, callOptions: KgCallOptions & { limit?: number } = {}): Promise<KgEntity[]> {
      const { signal } = callOptions;
      const limit = callOptions.limit ?? 10;
      const lists = await Promise.all(
        graphs.map((graph) => call(graph, 'searchEntities', signal, () => graph.searchEntities(text, { ...withSignal(signal), limit }))),
      );
      // Registered graph by graph, so a thing several graphs return keeps the first graph's id.
      const ranked: KnownEntity[][] = [];
      for (const [index, graph] of graphs.entries()) ranked.push(await register(graph, lists[index] ?? [], signal));
      // Interleaved by rank, so every graph's best candidates come before any graph's weaker ones.
      const result: KnownEntity[] = [];
      const seen = new Set<string>();
      const depth = Math.max(0, maxOf(ranked.map((list) => list.length)));
      for (let rank = 0; rank < depth; rank++) {
        for (const list of ranked) {
          const known = list[rank];
          if (known === undefined || seen.has(known.id)) continue;
          seen.add(known.id);
          result.push(known);
        }
      }
      return result.slice(0, limit).map(toPublic);
    },

    async getEntities(ids: readonly string[], callOptions: KgCallOptions = {}): Promise<KgEntity[]> {
      return (await resolve(ids, callOptions.signal)).flatMap((known) => (known === undefined ? [] : [toPublic(known)]));
    },

    async getRelations(selected: readonly string[], callOptions: KgCallOptions = {}): Promise<KgRelationList> {
      const { signal } = callOptions;
      const known = (await resolve(selected, signal)).filter((item): item is KnownEntity => item !== undefined);
      // Links that failed when the entities were first seen are tried once more now that they are needed.
      await link(
        known.flatMap((item) => Object.keys(item.linkErrors).map((other) => ({ known: item, other: graphByName.get(other) as KnowledgeGraph }))),
        signal,
      );
      const parts = await Promise.all(
        graphs.map((graph) => {
          const local = [...new Set(known.flatMap((item) => idIn(item, graph) ?? []))];
          if (local.length === 0) return undefined;
          return call(graph, 'getRelations', signal, () => graph.getRelations(local, withSignal(signal)));
        }),
      );
      const result: KgRelation[] = [];
      const limits: number[] = [];
      const warnings: string[] = [];
      let truncated = false;
      for (const item of known) {
        for (const [other, error] of Object.entries(item.linkErrors)) {
          truncated = true;
          warnings.push(`${other}: ${item.label} (${item.id}) could not be linked, so its relations there are missing (${error})`);
        }
      }
      parts.forEach((part, index) => {
        if (part === undefined) return;
        const graph = graphs[index] as KnowledgeGraph;
        for (const relation of part.relations) result.push(publicRelation(graph, relation));
        if (part.truncated) {
          truncated = true;
          if (part.limit !== undefined) limits.push(part.limit);
        }
        for (const warning of part.warnings ?? []) warnings.push(`${graph.name}: ${warning}`);
      });
      return { relations: result, truncated, ...(limits.length > 0 ? { limit: minOf(limits) } : {}), ...(warnings.length > 0 ? { warnings } : {}) };
    },

    async getEdges(selected: readonly string[], relation: KgRelation, callOptions: KgCallOptions = {}): Promise<KgEdgeList> {
      const { signal } = callOptions;
      const owner = relations.get(relation.id);
      const graph = graphByName.get(relation.graph) ?? owner?.graph;
      if (graph === undefined) {
        throw new KgragError(`Relation ${relation.id} belongs to no graph of "${name}" (graph "${relation.graph}")`, {
          code: 'KG_UNKNOWN_RELATION',
          category: 'input',
          hint: `Use a relation returned by getRelations; the graphs are ${graphs.map((item) => item.name).join(', ')}.`,
        });
      }
      const localRelation = owner?.graph === graph ? owner.localId : relation.id.startsWith(`${graph.name}:`) ? relation.id.slice(graph.name.length + 1) : relation.id;
      // The caller's id for each local id of this graph; the first selected entity wins when two link to one.
      const callerIdOf = new Map<string, string>();
      for (const known of await resolve(selected, signal)) {
        const local = known === undefined ? undefined : idIn(known, graph);
        if (known !== undefined && local !== undefined && !callerIdOf.has(local)) callerIdOf.set(local, known.id);
      }
      if (callerIdOf.size === 0) return { edges: [], entities: [], truncated: false };
      const found = await call(graph, 'getEdges', signal, () =>
        graph.getEdges([...callerIdOf.keys()], { ...relation, id: localRelation, graph: graph.name }, withSignal(signal)),
      );
      await register(graph, found.entities, signal);
      // Targets the graph reached without describing them (it may know them from earlier calls).
      const undescribed = [...new Set(found.edges.flatMap((edge) => (edge.target !== undefined && !entityOf.has(localKey(graph, edge.target)) ? [edge.target] : [])))];
      if (undescribed.length > 0) {
        await register(graph, await call(graph, 'getEntities', signal, () => graph.getEntities(undescribed, withSignal(signal))), signal);
      }
      const shown = publicRelation(graph, { ...relation, id: localRelation });
      const reached: KnownEntity[] = [];
      const edges = found.edges.map((edge): KgEdge => {
        const { target: localTarget, ...rest } = edge;
        const source = callerIdOf.get(edge.source) ?? entityOf.get(localKey(graph, edge.source)) ?? edge.source;
        const targetId = localTarget === undefined ? undefined : entityOf.get(localKey(graph, localTarget));
        const target = targetId === undefined ? undefined : entities.get(targetId);
        if (target !== undefined && !reached.includes(target)) reached.push(target);
        // A target no graph could describe stays a literal rather than an id nobody can resolve.
        const object = target !== undefined ? { target: target.id } : localTarget !== undefined && edge.value === undefined ? { value: localTarget } : {};
        return { ...rest, source, relation: shown, ...object };
      });
      return { edges, entities: reached.map(toPublic), truncated: found.truncated, ...(found.limit === undefined ? {} : { limit: found.limit }) };
    },

    async linkEntity(entity: KgEntity, callOptions: KgCallOptions = {}): Promise<KgEntity | undefined> {
      const { signal } = callOptions;
      for (const graph of graphs) {
        if (graph.name === entity.graph) continue;
        const linked = await call(graph, 'linkEntity', signal, () => graph.linkEntity(entity, withSignal(signal)));
        if (linked !== undefined) return toPublic((await register(graph, [linked], signal))[0] as KnownEntity);
      }
      return undefined;
    },
  };
}
