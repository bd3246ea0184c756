import { KgragError } from '../core/errors.js';
import type { KgragConfig } from '../core/config/config-schema.js';
import type { AnyQueryMethod } from '../methods/query-method.js';
import type { TableAccounting } from '../interop/graphrag/graphrag-to-records.js';
import { importedIndexKey, type ImportedIndexSource } from '../interop/graphrag/imported-index-source.js';
import { recordBuiltMethods } from '../pipeline/built-methods.js';
import type { PipelineEvent, PipelineStep } from '../pipeline/pipeline-step.js';
import type { PipelineSummary } from '../pipeline/run-pipeline.js';
import type { Store } from '../store/store.js';
import type { WriterLockOptions } from './write-options.js';

/** Options of `Kgrag.importGraphrag`. */
export interface ImportGraphragOptions extends WriterLockOptions {
  onEvent?: (event: PipelineEvent) => void;
  /** Stops the import now; the next import of the same folder resumes it. */
  signal?: AbortSignal;
  /** Stops the import after the step in progress (the first Ctrl-C of the command line). */
  stopAfterStep?: AbortSignal;
}

/** What an import read and made. */
export interface GraphragImportSummary {
  /** The folder the tables were read from. */
  directory: string;
  generation: '1.x' | '2.x';
  /** Per GraphRAG table: rows in the file, kgrag records made, and every row left out with its reason. */
  tables: Record<string, TableAccounting>;
  /** Relationship rows merged into the relation of their entity pair (GraphRAG keeps A→B and B→A apart). */
  mergedRelationshipRows: number;
  /** Tables the output lacks that kgrag built itself (communities, reports), and rows the reader skipped. */
  notes: string[];
  /** The embedder that made the index's vectors (GraphRAG's own embeddings are not read). */
  embedder: string;
  /** The steps run after the imported ones, with their counts. */
  indexed: PipelineSummary;
  /** False when the folder had been imported already and nothing changed. */
  changed: boolean;
}

/** What the import needs of the workspace whose write session it runs in. */
export interface GraphragImportContext {
  config: KgragConfig;
  /** The workspace's methods: the imported index is built for every one of them. */
  methods: readonly AnyQueryMethod[];
  /** Each method's parsed section of the configuration. */
  methodConfigs: ReadonlyMap<string, Record<string, unknown>>;
  hasLlm: boolean;
  countTokens(text: string): number;
  /** The embedder that will make the index's vectors, for the summary. */
  embedderId: string;
  /** Runs pipeline steps on the session's draft as an index run does. */
  run(steps: PipelineStep[]): Promise<PipelineSummary>;
}

/** Meta of an imported index, or undefined for an index kgrag built (or none). */
export function importedIndexSource(store: Store): Promise<ImportedIndexSource | undefined> {
  return store.getMeta<ImportedIndexSource>(importedIndexKey);
}

/**
 * Imports a GraphRAG output folder into the draft `store` as a standard-mode index, then builds the steps kgrag adds
 * (vectors, triples, passage and kNN graphs, keywords) over it. Runs inside the workspace's write session.
 */
export async function importGraphragInto(store: Store, directory: string, context: GraphragImportContext): Promise<GraphragImportSummary> {
  const { readGraphragOutput } = await import('../interop/graphrag/read-graphrag-output.js');
  const { graphragToRecords } = await import('../interop/graphrag/graphrag-to-records.js');
  const { graphragImportSteps } = await import('../interop/graphrag/graphrag-import-steps.js');
  const { importPipeline } = await import('./index-pipeline.js');
  const output = await readGraphragOutput(directory);
  await refuseImportOverIndex(store, output.directory);
  const graph = graphragToRecords(output.tables, { directory: output.directory, countTokens: context.countTokens, importedAt: new Date().toISOString() });
  const source: ImportedIndexSource = {
    system: 'graphrag',
    directory: output.directory,
    generation: output.generation,
    files: Object.fromEntries(Object.entries(output.files).map(([table, file]) => [table, file.sha256])),
  };
  const methodsChanged = await recordBuiltMethods(store, context.methods.map((method) => method.name));
  const imported = graphragImportSteps(graph, source);
  const indexed = await context.run(await importPipeline({ config: context.config, hasLlm: context.hasLlm, registry: context.methods, methodConfigs: context.methodConfigs, imported }));
  const notes = [...output.warnings];
  if (!imported.has('communities')) notes.push(`${output.directory} has no communities table: kgrag clustered the imported graph itself (hierarchical Leiden)`);
  if (!imported.has('reports')) notes.push(`${output.directory} has no community reports: kgrag wrote ${context.hasLlm ? 'reports with the configured LLM' : 'extractive reports (no LLM is configured)'}`);
  return {
    directory: output.directory,
    generation: output.generation,
    tables: graph.accounting,
    mergedRelationshipRows: graph.mergedRelationshipRows,
    notes,
    embedder: context.embedderId,
    indexed,
    changed: indexed.changed || methodsChanged,
  };
}

/** An index kgrag built is not overwritten by an import: the import goes to its own workspace. */
async function refuseImportOverIndex(store: Store, directory: string): Promise<void> {
  const documents = await store.table('documents').count();
  if (documents === 0) return;
  const source = await importedIndexSource(store);
  if (source === undefined) {
    throw new KgragError(`this workspace already holds an index of ${documents} documents built by kgrag; importing ${directory} would replace it`, {
      code: 'IMPORT_WORKSPACE_NOT_EMPTY',
      category: 'input',
      hint: 'import into a new workspace: `kgrag import graphrag <output-dir> -w <new-folder>`',
      details: { directory, documents },
    });
  }
}

/**
 * The error for adding to or deleting from an imported index: its graph was built by GraphRAG's LLM extraction,
 * which kgrag cannot extend without the extractions behind it.
 */
export function importedIndexUpdateError(source: ImportedIndexSource, operation: 'index' | 'delete'): KgragError {
  return new KgragError(
    `this workspace holds an index imported from GraphRAG (${source.directory}); kgrag does not ${operation === 'index' ? 'add documents to' : 'delete documents from'} an imported graph, whose extraction GraphRAG made`,
    {
      code: 'INDEX_IMPORTED',
      category: 'input',
      hint:
        operation === 'index'
          ? 'update the GraphRAG index and run `kgrag import graphrag` on its output again (unchanged tables are skipped), or index the documents into a new workspace with `kgrag index`'
          : 'remove the documents in GraphRAG and import its output again, or build the index with kgrag (`kgrag index`) in a new workspace',
      details: { directory: source.directory, operation },
    },
  );
}
