/**
 * Entity edits a person made — merges and splits from the explorer's entity panel, `kgrag entities merge|split`, or
 * `POST /v1/entities/edits` — kept with the index as a log, each undoable. The graph steps read the log's active
 * edits as two rules over names: `sameAs` (a name is another entity's name) and `keepApart` (a name is its own
 * entity). Rules are kept by name, not id, because ids are the graph's output: the same rule gives the same graph on
 * a fresh build of the same documents, in either mode.
 */

/** One recorded edit. */
export interface EntityEdit {
  /** `edit-1`, `edit-2`, … in the order they were made. */
  id: string;
  /**
   * `merge`: the entities of `names` (each the name its id was made from) became `entity`; `split`: the alias
   * `names[0]` left `entity` and is its own entity.
   */
  kind: 'merge' | 'split';
  /**
   * The entity the names were merged into, or the one an alias was split from, as it was at the edit; `name` is the
   * one of its names its id is made from (fast mode titles "Charles Babbage" by its most used form, "Babbage").
   */
  entity: { id: string; title: string; name: string };
  names: string[];
  /** ISO time of the edit. */
  at: string;
  /** ISO time it was undone; an undone edit no longer applies and stays in the log. */
  undoneAt?: string;
}

/** What a caller asks: merge entities (ids or names) into one, split an alias off an entity, or undo an edit. */
export type EntityEditRequest = { merge: string[]; into: string } | { split: string; from: string } | { undo: string };

/** The active edits as rules over name keys (a mode's own normalization of a name). */
export interface EntityEditRules {
  /** A name's key → the key of the name it is merged into, followed to the end of the chain. */
  sameAs: ReadonlyMap<string, string>;
  keepApart: ReadonlySet<string>;
}

/** Rules that change nothing: no edit made. */
export const noEntityEditRules: EntityEditRules = { sameAs: new Map(), keepApart: new Set() };

/**
 * The rules of the edits not undone, in the order they were made: a merge maps each name to the entity's name (and
 * takes it out of `keepApart`); a split takes the alias out of the merges and keeps it apart. `keyOf` is the mode's
 * name normalization (fast mode's phrase key, standard mode's entity-name key).
 */
export function entityEditRules(edits: readonly EntityEdit[], keyOf: (name: string) => string): EntityEditRules {
  const direct = new Map<string, string>();
  const keepApart = new Set<string>();
  for (const edit of edits) {
    if (edit.undoneAt !== undefined) continue;
    const target = keyOf(edit.entity.name);
    // The entity merged into is the one that stays: it maps nowhere else.
    if (edit.kind === 'merge') direct.delete(target);
    for (const name of edit.names) {
      const key = keyOf(name);
      if (key === '' || key === target) continue;
      if (edit.kind === 'merge') {
        direct.set(key, target);
        keepApart.delete(key);
      } else {
        direct.delete(key);
        keepApart.add(key);
      }
    }
  }
  const sameAs = new Map<string, string>();
  for (const key of direct.keys()) {
    // A name merged into a name that was merged on ends at the last; a chain that comes back (never made by the
    // merges above) ends where it would repeat.
    const seen = new Set([key]);
    let end = direct.get(key) as string;
    while (direct.has(end) && !seen.has(end)) {
      seen.add(end);
      end = direct.get(end) as string;
    }
    if (end !== key) sameAs.set(key, end);
  }
  return { sameAs, keepApart };
}

/** The edits that still apply. */
export function activeEntityEdits(edits: readonly EntityEdit[]): EntityEdit[] {
  return edits.filter((edit) => edit.undoneAt === undefined);
}
