import { KgragError } from '../core/errors.js';
import type { EntityEdit, EntityEditRequest } from '../extract/entity-edits/entity-edit-rules.js';
import type { QueryEngine } from '../methods/query-engine.js';
import { readEntityEdits } from '../pipeline/steps/entity-edits-step.js';
import { indexDocuments } from './index-service.js';
import type { EntityEditSummary, IndexOptions } from './kgrag.js';
import type { WorkspaceSession } from './workspace-session.js';

/**
 * Records an entity merge, split or undo and brings the index up to date with it (`Kgrag.editEntities`): an index
 * run with no new documents whose graph steps read the edit, published atomically like any run.
 */
export async function editEntities(session: WorkspaceSession, engine: QueryEngine, request: EntityEditRequest, options: IndexOptions): Promise<EntityEditSummary> {
  const run = await indexDocuments(session, engine, { paths: [], documents: [], entityEdit: request }, options);
  const edits = await readEntityEdits(session.store);
  const edit = 'undo' in request ? edits.find((recorded) => recorded.id === request.undo) : edits.at(-1);
  if (edit === undefined) throw new Error('the entity edit was not recorded by its run');
  return { edit, run };
}

/** The published index's entity edits, oldest first, undone ones included; none before the first index. */
export async function listEntityEdits(session: WorkspaceSession): Promise<EntityEdit[]> {
  try {
    return await readEntityEdits(session.store);
  } catch (error) {
    if (KgragError.isInstance(error) && error.code === 'STORE_NO_INDEX') return [];
    throw error;
  }
}
