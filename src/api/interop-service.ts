import { KgragError } from '../core/errors.js';
import { assignOpenieDocs } from '../extract/triples/assign-openie-docs.js';
import { parseOpenieFile } from '../extract/triples/parse-openie-file.js';
import type { QueryEngine } from '../methods/query-engine.js';
import type { ExportOptions, ExportSummary } from './export-index.js';
import type { GraphragImportSummary, ImportGraphragOptions } from './import-graphrag.js';
import type { ImportOpenieOptions, OpenieImportSummary } from './kgrag.js';
import { runIndex, runSteps } from './run-index.js';
import type { WorkspaceSession } from './workspace-session.js';
import { writeWorkspace } from './write-workspace.js';

/**
 * Refuses, before anything is stored, an OpenIE file that holds no usable passage, or none of whose
 * passages matches a document of an indexed workspace: storing it would replace a useful import by one
 * that changes nothing. A workspace with no index yet keeps the file for the corpus indexed later.
 */
async function refuseUnusableImport(session: WorkspaceSession, file: string, parsed: Awaited<ReturnType<typeof parseOpenieFile>>): Promise<void> {
  const { workspace } = session;
  if (parsed.docs.length === 0) {
    const [first] = parsed.skipped;
    throw new KgragError(
      `OpenIE file ${file} holds no usable passage${parsed.skipped.length === 0 ? ': its "docs" list is empty' : `: all ${parsed.skipped.length} records were skipped (docs[${first?.index}]: ${first?.problem})`}`,
      { code: 'OPENIE_NO_PASSAGES', category: 'input', hint: 'pass the openie_*_results_ner_*.json file HippoRAG wrote, whose docs have "passage", "extracted_entities" and "extracted_triples"', details: { file, skipped: parsed.skipped.length } },
    );
  }
  const snapshot = await session.storage.snapshot();
  if (snapshot === undefined) return;
  try {
    const documents = await snapshot.store.table('documents').pick(['id', 'title', 'text']);
    if (documents.length === 0) return;
    const assignment = assignOpenieDocs(parsed.docs, documents, await snapshot.store.table('chunks').pick(['id', 'documentId', 'ordinal', 'text']));
    if (assignment.matched > 0) return;
    const passages = parsed.docs.slice(0, 2).map((doc) => `docs[${doc.index}] "${doc.title ?? doc.passage.split('\n', 1)[0] ?? ''}"`);
    const titles = documents.slice(0, 2).map((document) => `"${document.title}"`);
    throw new KgragError(
      `0 of the ${parsed.docs.length} passages of OpenIE file ${file} match one of the ${documents.length} documents of ${workspace} (passages: ${passages.join(', ')}${parsed.docs.length > 2 ? ', …' : ''}; documents: ${titles.join(', ')}${documents.length > 2 ? ', …' : ''}), so nothing was imported`,
      {
        code: 'OPENIE_NOTHING_MATCHED',
        category: 'input',
        hint: 'a passage matches a document whose title, a line break and text (or whose text) equal it, spacing aside: import the file into the workspace of the corpus it was made from (check --workspace), or index that corpus with the same titles and texts',
        details: { file, passages: parsed.docs.length, documents: documents.length },
      },
    );
  } finally {
    snapshot.release();
  }
}

/** Imports a HippoRAG OpenIE file into the workspace, then brings the index up to date (`Kgrag.importOpenie`). */
export async function importOpenie(session: WorkspaceSession, engine: QueryEngine, file: string, options: ImportOpenieOptions): Promise<OpenieImportSummary> {
  const parsed = await parseOpenieFile(file);
  await refuseUnusableImport(session, file, parsed);
  const imported = await writeWorkspace(session, { ...options, command: options.command ?? 'import openie' }, async (draft, embedder, currentStep) => {
    const { saveOpenieImport } = await import('../pipeline/steps/triples-step.js');
    const { changed } = await saveOpenieImport(draft.store, parsed, file);
    const hasDocuments = (await draft.store.table('documents').count()) > 0;
    const indexed = options.index !== false && hasDocuments ? await runIndex(session, draft.store, embedder, { paths: [], documents: [] }, options, currentStep) : undefined;
    return { changed: changed || indexed?.changed === true, importChanged: changed, indexed };
  });
  engine.invalidate();
  const snapshot = await session.storage.snapshot();
  const published = snapshot?.store ?? session.store;
  try {
    const assignment = assignOpenieDocs(
      parsed.docs,
      await published.table('documents').pick(['id', 'title', 'text']),
      await published.table('chunks').pick(['id', 'documentId', 'ordinal', 'text']),
    );
    return {
      docs: parsed.docs.length,
      matched: assignment.matched,
      unmatched: assignment.unmatched.length,
      triples: assignment.triples,
      entities: assignment.entities,
      unmatchedDocs: assignment.unmatched.slice(0, 10).map((doc) => ({ index: doc.index, title: doc.title ?? doc.passage.split('\n', 1)[0] ?? '' })),
      skipped: parsed.skipped,
      droppedTriples: parsed.droppedTriples,
      droppedEntities: parsed.droppedEntities,
      changed: imported.importChanged,
      indexed: imported.indexed,
    };
  } finally {
    snapshot?.release();
  }
}

/** Imports a GraphRAG output folder as the workspace's index (`Kgrag.importGraphrag`). */
export async function importGraphrag(session: WorkspaceSession, engine: QueryEngine, directory: string, options: ImportGraphragOptions): Promise<GraphragImportSummary> {
  const { importGraphragInto } = await import('./import-graphrag.js');
  try {
    return await writeWorkspace(session, { ...options, command: options.command ?? 'import graphrag' }, (draft, embedder, currentStep) =>
      importGraphragInto(draft.store, directory, {
        config: session.config,
        methods: session.methods,
        methodConfigs: session.methodConfigs,
        hasLlm: session.llm !== undefined,
        countTokens: (text) => session.tokenizer.count(text),
        embedderId: embedder.id,
        run: (steps) => runSteps(session, draft.store, embedder, steps, options, currentStep),
      }),
    );
  } finally {
    engine.invalidate();
  }
}

/** Writes the published index in another tool's format (`Kgrag.export`). */
export async function exportPublished(session: WorkspaceSession, options: ExportOptions): Promise<ExportSummary> {
  const snapshot = await session.storage.snapshot();
  if (!snapshot) {
    throw new KgragError(`${session.workspace} holds no index to export`, { code: 'EXPORT_NO_INDEX', category: 'input', hint: 'index documents first (`kgrag index <paths>`) or import one (`kgrag import graphrag <dir>`)' });
  }
  try {
    const { exportIndex } = await import('./export-index.js');
    return await exportIndex(snapshot.store, options, session.options.exporters);
  } finally {
    snapshot.release();
  }
}
