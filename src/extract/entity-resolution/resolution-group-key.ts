import { contentId } from '../../core/ids.js';

/**
 * The key of a candidate group (its entity ids in any order), by which a run remembers the groups it could not
 * decide, so that the next run asks the model about them again.
 */
export function resolutionGroupKey(group: readonly string[]): string {
  return contentId('resolution-group', group.toSorted());
}
