import type { EntityMerge, ResolutionEntity } from '../entity-resolution/resolution-types.js';
import { UnionFind } from '../entity-resolution/union-find.js';
import type { EntityEditRules } from './entity-edit-rules.js';
import { positionsOf } from '../../core/positions-of.js';

/**
 * Entity resolution's merges with a person's edits applied (standard mode; `keyOf` is the extraction's name key): a
 * name kept apart leaves the merge resolution put it in, and a name merged into another joins that name's merge,
 * whose canonical entity is then the one merged into. Merges keep the order of the first member of each in
 * `entities`, as resolution's own do not depend on it.
 */
export function mergesWithEdits(merges: readonly EntityMerge[], entities: readonly ResolutionEntity[], rules: EntityEditRules, keyOf: (name: string) => string): EntityMerge[] {
  if (rules.sameAs.size === 0 && rules.keepApart.size === 0) return [...merges];
  const index = new Map(entities.map((entity, at) => [entity.id, at]));
  const keys = entities.map((entity) => keyOf(entity.title));
  const byKey = positionsOf(keys);
  const sets = new UnionFind(entities.length);
  const preferred = new Map<number, number>();
  for (const merge of merges) {
    const members = merge.members.flatMap((id) => {
      const at = index.get(id);
      return at === undefined || rules.keepApart.has(keys[at] as string) ? [] : [at];
    });
    if (members.length < 2) continue;
    for (const member of members) sets.union(members[0] as number, member);
    const canonical = index.get(merge.canonical);
    if (canonical !== undefined && members.includes(canonical)) preferred.set(canonical, 1);
  }
  const targets = new Set<number>();
  keys.forEach((key, at) => {
    const target = byKey.get(rules.sameAs.get(key) ?? '');
    if (target === undefined || target === at) return;
    sets.union(at, target);
    targets.add(target);
  });
  const components = new Map<number, number[]>();
  entities.forEach((_entity, at) => {
    const root = sets.find(at);
    const members = components.get(root);
    if (members) members.push(at);
    else components.set(root, [at]);
  });
  const result: EntityMerge[] = [];
  for (const members of components.values()) {
    if (members.length < 2) continue;
    const canonical = members.find((at) => targets.has(at)) ?? members.find((at) => preferred.has(at)) ?? (members[0] as number);
    result.push({ canonical: (entities[canonical] as ResolutionEntity).id, members: members.map((at) => (entities[at] as ResolutionEntity).id) });
  }
  return result;
}
