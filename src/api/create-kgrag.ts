import type { KgragConfig } from '../core/config/config-schema.js';
import type { AnyQueryMethod } from '../methods/query-method.js';
import type { builtInMethods } from './built-in-methods.js';
import { createGraphBrowser } from './create-graph-browser.js';
import { deleteDocuments, estimateDelete } from './delete-service.js';
import { editEntities, listEntityEdits } from './entity-edit-service.js';
import { discardDraft, estimateIndex, indexDocuments, indexStats, publishedDocuments } from './index-service.js';
import { exportPublished, importGraphrag, importOpenie } from './interop-service.js';
import type { Kgrag, KgragOptions } from './kgrag.js';
import { createWorkspaceQueryEngine } from './query-service.js';
import { workOnShards } from './worker-service.js';
import { openWorkspaceSession } from './workspace-session.js';

export type {
  DeleteDryRun,
  DeleteOptions,
  DeleteSummary,
  EntityEditSummary,
  EstimateIndexOptions,
  ImportOpenieOptions,
  IndexedDocument,
  IndexOptions,
  IndexStats,
  StatisticsDrift,
  Kgrag,
  KgragOptions,
  OpenieImportSummary,
  WorkOptions,
  WorkSummary,
} from './kgrag.js';
export type { CancellableWriteOptions, WriterLockOptions } from './write-options.js';

/**
 * Opens a workspace: resolves the configuration (defaults < kgrag.yaml < KGRAG_* < options), opens the
 * store, and builds the providers. Nothing is indexed or called until `index` or `query`. The facade only wires
 * the workspace's session to its services (index, delete, query, interop, workers).
 */
export async function createKgrag<const Methods extends readonly AnyQueryMethod[] = typeof builtInMethods>(options: KgragOptions<Methods> = {}): Promise<Kgrag<Methods>> {
  const session = await openWorkspaceSession(options);
  const engine = createWorkspaceQueryEngine(session);
  return {
    workspace: session.workspace,
    // The loader validated each section with the schema of the same methods: the sections are those `Methods` type.
    config: session.config as KgragConfig<Methods>,
    store: session.store,
    graph: createGraphBrowser(session.store),
    engine,
    llm: session.llm,
    prompts: session.prompts,
    warnings: session.warnings,
    status: () => session.storage.status(),
    discardDraft: (lock = {}) => discardDraft(session, lock),
    index: (inputs, indexOptions = {}) => indexDocuments(session, engine, inputs, indexOptions),
    estimateIndex: (inputs, estimateOptions = {}) => estimateIndex(session, inputs, estimateOptions),
    query: (question, queryOptions = {}) => engine.query({ ...queryOptions, question }),
    retrieve: (question, retrieveOptions = {}) => engine.retrieve({ ...retrieveOptions, question }),
    work: (workOptions = {}) => workOnShards(session, workOptions),
    usage: () => session.meter.snapshot(),
    storeConnections: () => session.storage.connections?.(),
    sharedJobs: () => session.storage.jobs,
    stats: () => indexStats(session),
    importOpenie: (file, importOptions = {}) => importOpenie(session, engine, file, importOptions),
    importGraphrag: (directory, importOptions = {}) => importGraphrag(session, engine, directory, importOptions),
    export: (exportOptions) => exportPublished(session, exportOptions),
    documents: (ids) => publishedDocuments(session, ids),
    delete: (selectors, deleteOptions = {}) => deleteDocuments(session, engine, selectors, deleteOptions),
    estimateDelete: (selectors, estimateOptions = {}) => estimateDelete(session, selectors, estimateOptions),
    editEntities: (edit, editOptions = {}) => editEntities(session, engine, edit, editOptions),
    entityEdits: () => listEntityEdits(session),
    async close() {
      await session.storage.close();
      if (session.givenStore) await session.givenStore.close();
    },
  };
}
