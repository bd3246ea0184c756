import { appendAll } from '../core/append-all.js';
import { KgragError } from '../core/errors.js';
import { sanitizeForTerminal } from '../core/sanitize-for-terminal.js';
import type { QueryEngine } from '../methods/query-engine.js';
import type { Store } from '../store/store.js';
import { builtMethods } from '../pipeline/built-methods.js';
import { forgetCachedCallsOfGoneChunks } from './forget-cached-calls-of-gone-chunks.js';
import { estimateIndex } from './index-service.js';
import type { DeleteDryRun, DeleteOptions, DeleteSummary, EstimateIndexOptions, IndexedDocument } from './kgrag.js';
import { listDocuments } from './list-documents.js';
import { runIndex } from './run-index.js';
import { type DocumentSelection, selectDocuments } from './select-documents.js';
import type { WorkspaceSession } from './workspace-session.js';
import { withCancelSignal, writeWorkspace } from './write-workspace.js';

function requireSelectors(selectors: readonly string[]): void {
  if (selectors.length === 0 || selectors.some((selector) => selector.trim().length === 0)) {
    throw new KgragError('no documents to delete: give document ids, source paths, titles or globs', {
      code: 'DELETE_NO_SELECTORS',
      category: 'input',
      hint: '`kgrag documents` lists the indexed documents; e.g. `kgrag delete docs/old.md` or `kgrag delete "**/drafts/*"`',
    });
  }
}

function noMatchError(unmatched: readonly string[], documents: number): KgragError {
  const names = unmatched.map((selector) => `"${sanitizeForTerminal(selector)}"`).join(', ');
  return new KgragError(`${unmatched.length === 1 ? 'selector' : 'selectors'} ${names} ${unmatched.length === 1 ? 'matches' : 'match'} none of the ${documents} indexed documents, so nothing was deleted`, {
    code: 'DELETE_NO_MATCH',
    category: 'input',
    hint: '`kgrag documents` lists ids, titles and sources; a path is matched as indexed (absolute) or relative to the current directory, and a glob (*, **) over sources',
    details: { unmatched: [...unmatched] },
  });
}

/**
 * The documents to delete: those the selectors choose in the draft (`draft`). An interrupted delete's draft has removed
 * some of them already, which the published index (`published`, as the plan read it) still names.
 */
function documentsToDelete(draft: ChosenDocuments, published: ChosenDocuments | undefined, resumed: boolean, cwd: string | undefined): IndexedDocument[] {
  const deleted = [...draft.selection.documents];
  let unmatched = draft.selection.unmatched;
  if (unmatched.length > 0 && resumed && published) {
    const earlier = selectDocuments(published.present, unmatched, cwd);
    const presentIds = new Set(draft.present.map((document) => document.id));
    appendAll(deleted, earlier.documents.filter((document) => !presentIds.has(document.id)));
    unmatched = earlier.unmatched;
  }
  if (unmatched.length > 0) throw noMatchError(unmatched, draft.present.length);
  return deleted;
}

/** The documents of an index and those the selectors choose among them. */
interface ChosenDocuments {
  present: IndexedDocument[];
  selection: DocumentSelection<IndexedDocument>;
}

async function chosenDocuments(store: Store, selectors: readonly string[], cwd: string | undefined): Promise<ChosenDocuments> {
  const present = await listDocuments(store);
  return { present, selection: selectDocuments(present, selectors, cwd) };
}

/**
 * The documents the selectors choose in the published index, chosen before the write begins so that its start record
 * names them: recorded once the draft was made, they waited for the draft's copy to reach the disk (0.2 s of a 1 %
 * deletion from 2Wiki on SQLite). A fresh draft of that generation takes the choice as it is; undefined when nothing
 * is published.
 */
async function plannedDeletion(session: WorkspaceSession, selectors: readonly string[], cwd: string | undefined): Promise<(ChosenDocuments & { generation: number }) | undefined> {
  const snapshot = await session.storage.snapshot();
  if (!snapshot) return undefined;
  try {
    return { generation: snapshot.generation, ...(await chosenDocuments(snapshot.store, selectors, cwd)) };
  } finally {
    snapshot.release();
  }
}

/** Removes the documents the selectors choose and what derives only from them, then publishes (`Kgrag.delete`). */
export async function deleteDocuments(session: WorkspaceSession, engine: QueryEngine, selectors: readonly string[], asked: DeleteOptions): Promise<DeleteSummary> {
  const options = withCancelSignal(asked);
  requireSelectors(selectors);
  const keepCache = options.keepCache === true;
  const planned = await plannedDeletion(session, selectors, options.cwd);
  // A selector choosing nothing fails the write (unless it resumes a draft): it is not recorded as deleting anything.
  const deleting = planned !== undefined && planned.selection.unmatched.length === 0 ? planned.selection.documents : [];
  const control = { ...options, command: options.command ?? 'delete', ...(deleting.length === 0 ? {} : { deleting }) };
  const result = await writeWorkspace(session, control, async (draft, embedder, currentStep) => {
    // A fresh draft of the generation the plan read holds the same documents.
    const fresh = planned !== undefined && !draft.resumed && draft.generation === planned.generation + 1;
    const deleted = documentsToDelete(fresh ? planned : await chosenDocuments(draft.store, selectors, options.cwd), planned, draft.resumed, options.cwd);
    // Before the draft changes: should this process be killed, readers are told what answers may still cite.
    await draft.recordDeletion(deleted);
    // A deletion updates the methods the index was built for and builds nothing new (its mode follows `runIndex`'s rule).
    const methods = await builtMethods(draft.store);
    const run = await runIndex(
      session,
      draft.store,
      embedder,
      { paths: [], documents: [], remove: deleted.map((document) => document.id) },
      { ...options, ...(methods === undefined ? {} : { methods }) },
      currentStep,
    );
    const removedEntries = await forgetCachedCallsOfGoneChunks(draft.store, keepCache);
    return { changed: true, deleted, run, cache: { kept: keepCache, removedEntries } };
  });
  engine.invalidate();
  // After the publish: a query answered meanwhile from the old index may have cached the deleted text again.
  if (!keepCache) await session.storage.clearQueryCache();
  return { deleted: result.deleted, run: result.run, cache: result.cache };
}

/** What `deleteDocuments` would remove and redo, and its LLM cost, changing nothing (`Kgrag.estimateDelete`). */
export async function estimateDelete(session: WorkspaceSession, selectors: readonly string[], options: EstimateIndexOptions & Pick<DeleteOptions, 'cwd'>): Promise<DeleteDryRun> {
  requireSelectors(selectors);
  const snapshot = await session.storage.snapshot();
  const [present, methods] = snapshot
    ? await Promise.all([listDocuments(snapshot.store), builtMethods(snapshot.store)]).finally(() => snapshot.release())
    : [[], undefined];
  const selection = selectDocuments(present, selectors, options.cwd);
  if (selection.unmatched.length > 0) throw noMatchError(selection.unmatched, present.length);
  const estimate = await estimateIndex(
    session,
    { paths: [], documents: [], remove: selection.documents.map((document) => document.id) },
    { ...options, ...(methods === undefined ? {} : { methods }) },
  );
  return { ...estimate, deleting: selection.documents };
}
