import type { KgEdge, KgEntity, KgRelation, KgRelationList } from './kg/knowledge-graph.js';

/**
 * States of the action state machine (amazon-science/tree-of-traversals, `Status` in `treeoftraversals.py`).
 * The reference keeps DONE unused and marks terminal nodes instead; we set it on an answered state too.
 */
export type ActionState = 'DEFAULT' | 'SELECTING_ENTITIES' | 'SELECTING_RELATION' | 'DONE';

/** One edge of the local subgraph: `target` is an entity id, or `value` a literal. */
export interface TraversalEdge {
  source: string;
  /** `P57` or `~P57`. */
  relation: string;
  target?: string;
  value?: string;
  attributes: string;
}

/** What makes two edges one: source, relation key and object (an entity, or a literal value). */
export function traversalEdgeKey(edge: Pick<TraversalEdge, 'source' | 'relation' | 'target' | 'value'>): string {
  const object = edge.target !== undefined ? `entity:${edge.target}` : `value:${edge.value ?? ''}`;
  return `${edge.source}\u0000${edge.relation}\u0000${object}`;
}

/** `P57` for a forward relation, `~P57` for a backward one: the key the LLM sees and types. */
export function relationKey(relation: Pick<KgRelation, 'id' | 'direction'>): string {
  return relation.direction === 'backward' ? `~${relation.id}` : relation.id;
}

/** `has director` / `is director of` (`select_relation_sub_action`). */
export function relationPhrase(relation: Pick<KgRelation, 'label' | 'direction'>): string {
  return relation.direction === 'backward' ? `is ${relation.label} of` : `has ${relation.label}`;
}

/**
 * What one node of the search knows (`WikidataTreeState`): its trajectory, the local subgraph (entities in
 * insertion order with labels, descriptions and cross-graph links; edges grouped by source and relation;
 * relation phrases), the action state, and the selection cache of an expansion in progress (the selected
 * entities, then their relation options). A child starts as {@link clone} of its parent and is changed
 * only while its action is applied, so a node's state never changes once it is in the tree.
 */
export class TraversalState {
  private readonly trajectoryLines: string[];
  private readonly entityMap: Map<string, KgEntity>;
  /** source → relation key → edges, in first-seen order, as the reference's `edge_dict`. */
  private readonly edgeGroups: Map<string, Map<string, TraversalEdge[]>>;
  private readonly edgeKeys: Set<string>;
  private readonly relationPhrases: Map<string, string>;
  private state: ActionState;
  private selected: string[];
  private options: KgRelationList | undefined;

  private constructor(source?: TraversalState) {
    this.trajectoryLines = source ? [...source.trajectoryLines] : [];
    this.entityMap = new Map(source?.entityMap);
    this.edgeGroups = new Map([...(source?.edgeGroups ?? [])].map(([from, groups]) => [from, new Map([...groups].map(([key, edges]) => [key, [...edges]]))]));
    this.edgeKeys = new Set(source?.edgeKeys);
    this.relationPhrases = new Map(source?.relationPhrases);
    this.state = source?.state ?? 'DEFAULT';
    this.selected = source ? [...source.selected] : [];
    this.options = source?.options;
  }

  /** The root state: the matched question entities, nothing else. */
  static initial(entities: readonly KgEntity[]): TraversalState {
    const state = new TraversalState();
    for (const entity of entities) state.addEntity(entity);
    return state;
  }

  /** A copy to apply a child's action to (`make_copy`). */
  clone(): TraversalState {
    return new TraversalState(this);
  }

  get trajectory(): readonly string[] {
    return this.trajectoryLines;
  }

  get actionState(): ActionState {
    return this.state;
  }

  /** Entities in insertion order. */
  get entities(): readonly KgEntity[] {
    return [...this.entityMap.values()];
  }

  get edges(): readonly TraversalEdge[] {
    return [...this.edgeGroups.values()].flatMap((groups) => [...groups.values()].flat());
  }

  /** The entities chosen in SELECTING_ENTITIES, for the relation step. */
  get selectedEntities(): readonly string[] {
    return this.selected;
  }

  /** The relation options shown in SELECTING_RELATION (kept so the chosen key can be resolved). */
  get relationOptions(): KgRelationList | undefined {
    return this.options;
  }

  entity(id: string): KgEntity | undefined {
    return this.entityMap.get(id);
  }

  /** The phrase of a relation key as the subgraph text shows it (`has director`), or the key. */
  relationPhrase(key: string): string {
    return this.relationPhrases.get(key) ?? key;
  }

  /** Adds an entity unless known; true when it was new. */
  addEntity(entity: KgEntity): boolean {
    if (this.entityMap.has(entity.id)) return false;
    this.entityMap.set(entity.id, entity);
    return true;
  }

  /** Adds an edge unless the same (source, relation, object) is present; true when it was new. */
  addEdge(edge: KgEdge): boolean {
    const relation = relationKey(edge.relation);
    const added: TraversalEdge = {
      source: edge.source,
      relation,
      ...(edge.target !== undefined ? { target: edge.target } : { value: edge.value ?? '' }),
      attributes: edge.attributes ?? '',
    };
    const key = traversalEdgeKey(added);
    if (this.edgeKeys.has(key)) return false;
    this.edgeKeys.add(key);
    this.relationPhrases.set(relation, relationPhrase(edge.relation));
    let groups = this.edgeGroups.get(edge.source);
    if (!groups) {
      groups = new Map();
      this.edgeGroups.set(edge.source, groups);
    }
    let list = groups.get(relation);
    if (!list) {
      list = [];
      groups.set(relation, list);
    }
    list.push(added);
    return true;
  }

  addToTrajectory(line: string): void {
    this.trajectoryLines.push(line);
  }

  setActionState(state: ActionState): void {
    this.state = state;
  }

  /** Starts the relation step: the entities to expand. */
  selectEntities(ids: readonly string[]): void {
    this.selected = [...ids];
    this.options = undefined;
  }

  /** Keeps the relation options the relation prompt showed. */
  setRelationOptions(options: KgRelationList): void {
    this.options = options;
  }

  /** Ends an expansion: the selection cache is cleared. */
  clearSelection(): void {
    this.selected = [];
    this.options = undefined;
  }

  /** The last action, skipping observations (`get_last_action`). */
  lastAction(): string | undefined {
    for (let index = this.trajectoryLines.length - 1; index >= 0; index--) {
      const line = this.trajectoryLines[index] as string;
      if (!line.startsWith('Observation')) return line;
    }
    return undefined;
  }

  /**
   * The local subgraph as every prompt shows it (`kg_str`):
   *
   * ```
   * KG Entities:
   * 	Q100: The Lantern Keeper - film
   *
   * KG EDGES:
   * The Lantern Keeper:
   * 	has director: (count 1)
   * 		Mara Ellison
   * ```
   *
   * Objects print their label when they are known entities, else the id or literal value; the edge's
   * attribute text follows. An entity without a description prints no ` - `.
   */
  kgText(): string {
    const label = (id: string): string => this.entityMap.get(id)?.label ?? id;
    const entityLines = [...this.entityMap.values()].map((entity) => `\t${entity.id}: ${entity.label}${entity.description ? ` - ${entity.description}` : ''}\n`);
    let edgeText = '';
    for (const [source, groups] of this.edgeGroups) {
      edgeText += `${label(source)}:\n`;
      for (const [relation, edges] of groups) {
        edgeText += `\t${this.relationPhrase(relation)}: (count ${edges.length})\n`;
        for (const edge of edges) edgeText += `\t\t${edge.target !== undefined ? label(edge.target) : (edge.value ?? '')}${edge.attributes}\n`;
      }
    }
    return `KG Entities:\n${entityLines.join('')}\nKG EDGES:\n${edgeText}`.trimEnd();
  }

  /** The trajectory as the prompt shows it (`trajectory_str`). */
  trajectoryText(): string {
    return this.trajectoryLines.join('\n');
  }
}
