import { basename, join } from 'node:path';
import type { Store } from '../store/store.js';

/** One file an export wrote: its name in the export folder, and what it holds (e.g. "373 nodes, 765 edges"). */
export interface ExportedFile {
  name: string;
  holds: string;
}

/** An export format of `Kgrag.export`: writes the published index as another tool reads it. */
export interface IndexExporter {
  /** The name `--format` and `ExportOptions.format` use. */
  readonly format: string;
  readonly description: string;
  /** Writes the files of the index in `store` into `folder` (empty; moved into place whole when this resolves). */
  write(store: Store, folder: string, options: { signal?: AbortSignal }): Promise<ExportedFile[]>;
}

/** The export formats kgrag ships: the default of `createKgrag({ exporters })`. Each loads its writer when used. */
export const builtInExporters: readonly IndexExporter[] = [
  {
    format: 'graphrag',
    description: 'GraphRAG 2.x parquet tables',
    async write(store, folder) {
      const { writeGraphragOutput } = await import('../interop/graphrag/write-graphrag-output.js');
      const written = await writeGraphragOutput(store, folder);
      return written.files.map((file) => ({ name: basename(file.file), holds: `${file.rows} rows` }));
    },
  },
  {
    format: 'graphml',
    description: 'GraphML for Gephi, Cytoscape and networkx',
    async write(store, folder, options) {
      const { writeGraphml } = await import('../interop/graphml/write-graphml.js');
      const written = await writeGraphml(store, join(folder, 'graph.graphml'), options);
      return [{ name: 'graph.graphml', holds: `${written.nodes} nodes, ${written.edges} edges, ${written.levels} community levels` }];
    },
  },
  {
    format: 'neo4j',
    description: 'CSV files for neo4j-admin database import and a Cypher script',
    async write(store, folder, options) {
      const { writeNeo4jImport } = await import('../interop/neo4j/write-neo4j-import.js');
      const written = await writeNeo4jImport(store, folder, options);
      return [
        ...written.files.map((file) => ({ name: file.file, holds: `${file.rows} ${file.name} ${file.kind === 'nodes' ? 'nodes' : 'relationships'}` })),
        { name: written.script, holds: 'constraints and LOAD CSV statements' },
        { name: written.readme, holds: 'the neo4j-admin and cypher-shell command lines' },
      ];
    },
  },
];
