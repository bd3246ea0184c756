import { contentId } from '../../core/ids.js';
import { KgragError } from '../../core/errors.js';
import type { EntityRecord } from '../../core/types.js';
import { extractedEntityId } from '../../extract/merge-extracted-graphs.js';
import { phraseEntityId } from '../../extract/nlp-graph/build-noun-graph.js';
import { phraseKeyOfName } from '../../extract/nlp-graph/graph-mentions.js';
import { type EntityEdit, type EntityEditRequest, activeEntityEdits } from '../../extract/entity-edits/entity-edit-rules.js';
import type { Store } from '../../store/store.js';
import type { PipelineStep } from '../pipeline-step.js';

/** Meta key of the entity edits' log (`EntityEdit[]`, oldest first). */
export const entityEditsKey = 'entity-edits';

/** The edits recorded in `store`, oldest first, undone ones included. */
export async function readEntityEdits(store: Store): Promise<EntityEdit[]> {
  return (await store.getMeta<EntityEdit[]>(entityEditsKey)) ?? [];
}

/**
 * Records the entity edit a run was asked for (`IndexInputs.entityEdit`) in the index's log, naming the entities as
 * the graph has them now, and versions the edits that apply: the graph steps (`nlp-extract`, `resolve-entities`) read
 * it and build the graph with them, so an edit costs what a change of those steps' settings costs, and the same log
 * gives the same graph on a fresh build. Asked again (a resumed run), the same edit is recorded once.
 */
export const entityEditsStep: PipelineStep = {
  name: 'entity-edits',
  version: 1,
  reads: [],
  settings: () => ({}),
  mustRun: (context) => context.inputs.entityEdit !== undefined,

  async run(context) {
    const { store, inputs } = context;
    const log = await readEntityEdits(store);
    const next = inputs.entityEdit === undefined ? log : await withEdit(store, log, inputs.entityEdit);
    const active = activeEntityEdits(next);
    return {
      counts: { edits: next.length, active: active.length },
      outputVersion: contentId('entity-edits', JSON.stringify(active.map((edit) => [edit.kind, edit.entity.title, edit.names]))),
      // Undoing an edit that changes nothing still records the undo.
      changedRecords: next !== log,
      async write(tx) {
        if (next !== log) await tx.setMeta(entityEditsKey, next);
      },
    };
  },
};

/** `log` with `request` carried out; `log` itself when the request is already in it (the run resumed). */
async function withEdit(store: Store, log: readonly EntityEdit[], request: EntityEditRequest): Promise<EntityEdit[] | readonly EntityEdit[]> {
  const at = new Date().toISOString();
  const id = `edit-${log.length + 1}`;
  if ('undo' in request) {
    const edit = log.find((recorded) => recorded.id === request.undo);
    if (edit === undefined) {
      throw new KgragError(`there is no entity edit "${request.undo}" to undo`, {
        code: 'ENTITY_EDIT_NOT_FOUND',
        category: 'input',
        hint: `the recorded edits are ${log.map((recorded) => recorded.id).join(', ') || 'none'}`,
      });
    }
    if (edit.undoneAt !== undefined) return log;
    return log.map((recorded) => (recorded === edit ? { ...recorded, undoneAt: at } : recorded));
  }
  const entities = await store.table('entities').pick(['id', 'title', 'aliases', 'degree']);
  const find = entityFinder(entities);
  if ('merge' in request) {
    const into = find(request.into, 'into');
    const merged = request.merge.map((name) => find(name, 'merge')).filter((entity) => entity.id !== into.id);
    const names = [...new Set(merged.map(idName))];
    if (names.length === 0) {
      throw new KgragError(`nothing to merge into "${into.title}": every entity named is that entity`, {
        code: 'ENTITY_EDIT_NOTHING_TO_MERGE',
        category: 'input',
        hint: 'name at least one other entity to merge into it',
      });
    }
    const repeated = log.at(-1);
    if (repeated?.kind === 'merge' && repeated.undoneAt === undefined && repeated.entity.id === into.id && sameNames(repeated.names, names)) return log;
    return [...log, { id, kind: 'merge', entity: { id: into.id, title: into.title, name: idName(into) }, names, at }];
  }
  const from = find(request.from, 'from');
  // Any of its names but the one its id is made from: fast mode may title an entity by a short form it merged.
  const own = idName(from);
  const others = [from.title, ...from.aliases].filter((name) => name !== own);
  const alias = others.find((name) => name.toLowerCase() === request.split.trim().toLowerCase());
  if (alias === undefined) {
    const listed = others.length === 0 ? 'it has no other name' : `its other names are ${others.map((name) => `"${name}"`).join(', ')}`;
    const isOwn = own.toLowerCase() === request.split.trim().toLowerCase();
    throw new KgragError(isOwn ? `"${own}" is the name "${from.title}" is known by: it cannot be split from itself` : `"${request.split}" is not a name of "${from.title}"`, {
      code: 'ENTITY_EDIT_NOT_AN_ALIAS',
      category: 'input',
      hint: `split one of its other names; ${listed}`,
    });
  }
  const repeated = log.at(-1);
  if (repeated?.kind === 'split' && repeated.undoneAt === undefined && repeated.entity.id === from.id && sameNames(repeated.names, [alias])) return log;
  return [...log, { id, kind: 'split', entity: { id: from.id, title: from.title, name: idName(from) }, names: [alias], at }];
}

/**
 * The one of an entity's names its id is made from, by fast mode's phrase key or the LLM graph's name key: what the
 * rules map. Its title when none is (an imported entity).
 */
function idName(entity: FoundEntity): string {
  const names = [entity.title, ...entity.aliases];
  return names.find((name) => phraseEntityId(phraseKeyOfName(name)) === entity.id || extractedEntityId(name) === entity.id) ?? entity.title;
}

function sameNames(left: readonly string[], right: readonly string[]): boolean {
  return left.length === right.length && left.every((name, index) => name === right[index]);
}

type FoundEntity = Pick<EntityRecord, 'id' | 'title' | 'aliases' | 'degree'>;

/** Finds an entity by id, title (case ignored) or alias, the best-connected first when several share a name. */
function entityFinder(entities: readonly FoundEntity[]): (name: string, field: string) => FoundEntity {
  const byId = new Map(entities.map((entity) => [entity.id, entity]));
  const byName = new Map<string, FoundEntity>();
  const byAlias = new Map<string, FoundEntity>();
  const better = (held: FoundEntity | undefined, entity: FoundEntity): boolean => held === undefined || entity.degree > held.degree;
  for (const entity of entities) {
    const title = entity.title.toLowerCase();
    if (better(byName.get(title), entity)) byName.set(title, entity);
    for (const alias of entity.aliases) if (better(byAlias.get(alias.toLowerCase()), entity)) byAlias.set(alias.toLowerCase(), entity);
  }
  return (name, field) => {
    const folded = name.trim().toLowerCase();
    const found = byId.get(name.trim()) ?? byName.get(folded) ?? byAlias.get(folded);
    if (found === undefined) {
      throw new KgragError(`no entity is named "${name}" (${field})`, {
        code: 'ENTITY_EDIT_UNKNOWN_ENTITY',
        category: 'input',
        hint: "give the entity's id, its exact name, or one of its aliases",
      });
    }
    return found;
  };
}
