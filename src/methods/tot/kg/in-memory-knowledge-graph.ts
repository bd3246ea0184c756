import { foldLabel } from '../../../text/fold-label.js';
import type { KgCallOptions, KgEdge, KgEdgeList, KgEntity, KgRelation, KgRelationList, KnowledgeGraph } from './knowledge-graph.js';

/** A statement of an {@link createInMemoryKnowledgeGraph} graph: `object` is an entity id or, with `value`, a literal. */
export interface InMemoryStatement {
  subject: string;
  property: string;
  object?: string;
  value?: string;
  attributes?: string;
}

/** Contents of an in-memory graph. */
export interface InMemoryGraphData {
  name: string;
  entities: ReadonlyArray<Omit<KgEntity, 'graph'> & { aliases?: readonly string[] }>;
  /** Property id → label. */
  properties: Readonly<Record<string, string>>;
  statements: readonly InMemoryStatement[];
  /** Largest number of relations or edges returned before `truncated` is set. @default 100 */
  limit?: number;
  /** Called before every operation; throw to simulate an endpoint error. */
  onCall?: (operation: 'searchEntities' | 'getEntities' | 'getRelations' | 'getEdges' | 'linkEntity', argument: unknown) => void;
}

/** An in-memory graph that records every call: the test fake of {@link KnowledgeGraph}. */
export interface InMemoryKnowledgeGraph extends KnowledgeGraph {
  readonly calls: Array<{ operation: string; argument: unknown }>;
}

/**
 * A small knowledge graph held in memory, for tests and examples: exact (case-insensitive) label and alias
 * search, then labels containing the text; relations sorted by property id like the SPARQL graph.
 */
export function createInMemoryKnowledgeGraph(data: InMemoryGraphData): InMemoryKnowledgeGraph {
  const limit = data.limit ?? 100;
  const entities = new Map(data.entities.map((entity) => [entity.id, entity]));
  const calls: InMemoryKnowledgeGraph['calls'] = [];
  const record = (operation: Parameters<NonNullable<InMemoryGraphData['onCall']>>[0], argument: unknown): void => {
    calls.push({ operation, argument });
    data.onCall?.(operation, argument);
  };
  const toEntity = (id: string): KgEntity | undefined => {
    const entity = entities.get(id);
    if (!entity) return undefined;
    const { aliases: _aliases, ...rest } = entity;
    return { ...rest, graph: data.name };
  };
  const relation = (property: string, direction: KgRelation['direction']): KgRelation => ({ id: property, label: data.properties[property] ?? property, direction, graph: data.name });
  const byPropertyNumber = (a: string, b: string): number => Number(a.replace(/\D/g, '')) - Number(b.replace(/\D/g, '')) || a.localeCompare(b);

  return {
    name: data.name,
    calls,
    async searchEntities(text: string, options: KgCallOptions & { limit?: number } = {}): Promise<KgEntity[]> {
      record('searchEntities', text);
      const wanted = foldLabel(text);
      // Like the real graphs, an empty mention finds nothing (every name would contain it).
      if (wanted.length === 0) return [];
      const exact: string[] = [];
      const partial: string[] = [];
      for (const entity of data.entities) {
        const names = [entity.label, ...(entity.aliases ?? [])].map(foldLabel);
        if (names.includes(wanted)) exact.push(entity.id);
        else if (names.some((name) => name.includes(wanted) || wanted.includes(name))) partial.push(entity.id);
      }
      return [...exact, ...partial].slice(0, options.limit ?? 10).map((id) => toEntity(id) as KgEntity);
    },
    async getEntities(ids: readonly string[]): Promise<KgEntity[]> {
      record('getEntities', ids);
      return ids.flatMap((id) => toEntity(id) ?? []);
    },
    async getRelations(selected: readonly string[]): Promise<KgRelationList> {
      record('getRelations', selected);
      const set = new Set(selected);
      const forward = new Set<string>();
      const backward = new Set<string>();
      for (const statement of data.statements) {
        if (set.has(statement.subject)) forward.add(statement.property);
        if (statement.object !== undefined && set.has(statement.object)) backward.add(statement.property);
      }
      const all = [...[...forward].sort(byPropertyNumber).map((p) => relation(p, 'forward')), ...[...backward].sort(byPropertyNumber).map((p) => relation(p, 'backward'))];
      return { relations: all.slice(0, limit), truncated: all.length > limit, ...(all.length > limit ? { limit } : {}) };
    },
    async getEdges(selected: readonly string[], chosen: KgRelation): Promise<KgEdgeList> {
      record('getEdges', { entities: selected, relation: chosen });
      const set = new Set(selected);
      const edges: KgEdge[] = [];
      const reached = new Set<string>();
      for (const statement of data.statements) {
        if (statement.property !== chosen.id) continue;
        const forward = chosen.direction === 'forward' && set.has(statement.subject);
        const backward = chosen.direction === 'backward' && statement.object !== undefined && set.has(statement.object);
        if (!forward && !backward) continue;
        const source = forward ? statement.subject : (statement.object as string);
        const other = forward ? statement.object : statement.subject;
        const edge: KgEdge = { source, relation: relation(chosen.id, chosen.direction) };
        if (other !== undefined && entities.has(other)) {
          edge.target = other;
          reached.add(other);
        } else edge.value = statement.value ?? other ?? '';
        if (statement.attributes) edge.attributes = statement.attributes;
        edges.push(edge);
      }
      const kept = edges.slice(0, limit);
      const keptTargets = new Set(kept.flatMap((edge) => edge.target ?? []));
      return {
        edges: kept,
        entities: [...reached].filter((id) => keptTargets.has(id)).map((id) => toEntity(id) as KgEntity),
        truncated: edges.length > limit,
        ...(edges.length > limit ? { limit } : {}),
      };
    },
    async linkEntity(entity: KgEntity): Promise<KgEntity | undefined> {
      record('linkEntity', entity.id);
      const explicit = entity.sameAs?.[data.name];
      if (explicit !== undefined) return toEntity(explicit);
      const wanted = foldLabel(entity.label);
      const match = data.entities.find((candidate) => [candidate.label, ...(candidate.aliases ?? [])].some((name) => foldLabel(name) === wanted));
      return match ? toEntity(match.id) : undefined;
    },
  };
}
