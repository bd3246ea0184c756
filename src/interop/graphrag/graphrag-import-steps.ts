import { contentId } from '../../core/ids.js';
import type { ExternalIdRecord, ExternalRecordKind } from '../../core/types.js';
import type { PipelineStep, StepName, StepOutput } from '../../pipeline/pipeline-step.js';
import type { TableName, TableRows } from '../../store/schema.js';
import type { Store } from '../../store/store.js';
import { appendToGroup } from '../shared/append-to-group.js';
import type { ImportedGraph } from './graphrag-to-records.js';
import { importedIndexKey, type ImportedIndexSource } from './imported-index-source.js';

/** Bumped when the mapping of GraphRAG's rows to kgrag records changes. */
const mappingVersion = 1;

interface ImportedTable<T extends TableName = TableName> {
  table: T;
  rows: ReadonlyArray<TableRows[T]>;
}

async function replaceTable<T extends TableName>(tx: Store, { table, rows }: ImportedTable<T>): Promise<void> {
  await tx.table(table).clear();
  await tx.table(table).upsert(rows);
}

/**
 * The pipeline steps whose output an import supplies: each writes its part of the imported index (replacing what a
 * previous import of the folder wrote) and records the step as done, so that the steps kgrag adds (vectors,
 * triples, the methods' graphs) run after them as after an index run, and a second import of unchanged files skips
 * them. The names are those of the standard pipeline's steps (GraphRAG's index is an LLM-built graph): `load`,
 * `chunk`, `llm-extract` (entities and relations), `resolve-entities` and `summarize` (already done by GraphRAG:
 * they pass the graph on), `claims`, `communities` and `reports` when the output has them.
 */
export function graphragImportSteps(graph: ImportedGraph, source: ImportedIndexSource): Map<StepName, PipelineStep> {
  const filesHash = contentId('graphrag-files', Object.entries(source.files).map(([table, hash]) => `${table}=${hash}`).sort());
  const byKind = new Map<ExternalRecordKind, ExternalIdRecord[]>();
  for (const row of graph.externalIds) appendToGroup(byKind, row.kind, row);
  const kinds = (kind: ExternalRecordKind): ExternalIdRecord[] => byKind.get(kind) ?? [];
  const step = (name: StepName, reads: StepName[], tables: ImportedTable[], externalKinds: ExternalRecordKind[], counts: Record<string, number>, extra?: (tx: Store) => Promise<void>): PipelineStep => ({
    name,
    version: mappingVersion,
    reads,
    settings: () => ({ imported: source.system, files: filesHash }),
    run: async (): Promise<StepOutput> => ({
      counts,
      outputVersion: contentId('imported', name, filesHash),
      async write(tx) {
        for (const table of tables) await replaceTable(tx, table);
        if (externalKinds.length > 0) {
          await tx.table('externalIds').deleteWhere('kind', externalKinds);
          await tx.table('externalIds').upsert(externalKinds.flatMap(kinds));
        }
        await extra?.(tx);
      },
    }),
  });
  const steps = new Map<StepName, PipelineStep>();
  const add = (each: PipelineStep): void => {
    steps.set(each.name, each);
  };
  add(step('load', [], [{ table: 'documents', rows: graph.documents }], ['document'], { documents: graph.documents.length }, (tx) => tx.setMeta(importedIndexKey, source)));
  add(step('chunk', ['load'], [{ table: 'chunks', rows: graph.chunks }], ['chunk'], { chunks: graph.chunks.length }));
  add(
    step(
      'llm-extract',
      ['chunk'],
      [
        { table: 'entities', rows: graph.entities },
        { table: 'relations', rows: graph.relations },
      ],
      ['entity', 'relation'],
      { entities: graph.entities.length, relations: graph.relations.length, relationshipRows: graph.accounting.relationships.rows, mergedRelationshipRows: graph.mergedRelationshipRows },
    ),
  );
  add(step('resolve-entities', ['llm-extract'], [], [], {}));
  add(step('summarize', ['resolve-entities'], [], [], {}));
  if (graph.claims !== undefined) add(step('claims', ['summarize'], [{ table: 'claims', rows: graph.claims }], ['claim'], { claims: graph.claims.length }));
  if (graph.communities !== undefined) {
    add(step('communities', ['summarize'], [{ table: 'communities', rows: graph.communities }], ['community'], { communities: graph.communities.length }));
    if (graph.reports !== undefined) {
      add(step('reports', ['communities', 'summarize', ...(graph.claims === undefined ? [] : (['claims'] as const))], [{ table: 'reports', rows: graph.reports }], ['report'], { reports: graph.reports.length }));
    }
  }
  return steps;
}
