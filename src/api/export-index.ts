import { existsSync, readdirSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { KgragError } from '../core/errors.js';
import type { Store } from '../store/store.js';

/** The formats `kgrag export` writes. */
export const exportFormats = ['graphrag', 'graphml', 'neo4j'] as const;

/** A format of {@link exportFormats}. */
export type ExportFormat = (typeof exportFormats)[number];

/** Options of `Kgrag.export`. */
export interface ExportOptions {
  format: ExportFormat;
  /** The folder to write (created when missing); `graphml` writes `<directory>/graph.graphml`. */
  directory: string;
  /** Write into a folder that already holds files (the export's own files are replaced, the others kept). @default false */
  overwrite?: boolean;
  /** Stops the export; the file set is moved into `directory` whole or not at all. */
  signal?: AbortSignal;
}

/** What an export wrote. */
export interface ExportSummary {
  format: ExportFormat;
  directory: string;
  /** Each file written, and what it holds (e.g. "373 nodes, 765 edges"). */
  files: Array<{ file: string; holds: string }>;
}

/** A folder that holds files the export did not write is refused: an export never mixes with other data. */
function refuseNonEmpty(directory: string, overwrite: boolean): void {
  if (!existsSync(directory)) return;
  if (!statSync(directory).isDirectory()) {
    throw new KgragError(`${directory} is a file; an export writes a folder`, {
      code: 'EXPORT_NOT_A_FOLDER',
      category: 'input',
      hint: 'pass a folder path (it is created when missing)',
      details: { directory },
    });
  }
  if (!overwrite && readdirSync(directory).length > 0) {
    throw new KgragError(`${directory} is not empty`, {
      code: 'EXPORT_FOLDER_NOT_EMPTY',
      category: 'input',
      hint: 'export into a new or empty folder, or pass --overwrite to replace the export files in it',
      details: { directory },
    });
  }
}

/**
 * Writes the index in `store` in one of the formats of {@link exportFormats}. The whole file set is written beside
 * `directory` and moved into it when complete (`writeFileSet`), so a failed or stopped export leaves none of it.
 */
export async function exportIndex(store: Store, options: ExportOptions): Promise<ExportSummary> {
  refuseNonEmpty(options.directory, options.overwrite === true);
  if (!(exportFormats as readonly string[]).includes(options.format)) {
    throw new KgragError(`unknown export format "${String(options.format)}"`, {
      code: 'EXPORT_UNKNOWN_FORMAT',
      category: 'input',
      hint: `choose one of ${exportFormats.join(', ')}`,
    });
  }
  const { writeFileSet } = await import('../interop/shared/write-file-set.js');
  const files = await writeFileSet(options.directory, `the ${options.format} export`, (staging) => writeFormat(store, options, staging));
  return { format: options.format, directory: options.directory, files: files.map((file) => ({ file: join(options.directory, file.name), holds: file.holds })) };
}

/** Writes the files of `options.format` into `folder`; each by its name in the folder and what it holds. */
async function writeFormat(store: Store, options: ExportOptions, folder: string): Promise<Array<{ name: string; holds: string }>> {
  const signal = options.signal === undefined ? {} : { signal: options.signal };
  switch (options.format) {
    case 'graphrag': {
      const { writeGraphragOutput } = await import('../interop/graphrag/write-graphrag-output.js');
      const written = await writeGraphragOutput(store, folder);
      return written.files.map((file) => ({ name: basename(file.file), holds: `${file.rows} rows` }));
    }
    case 'graphml': {
      const { writeGraphml } = await import('../interop/graphml/write-graphml.js');
      const written = await writeGraphml(store, join(folder, 'graph.graphml'), signal);
      return [{ name: 'graph.graphml', holds: `${written.nodes} nodes, ${written.edges} edges, ${written.levels} community levels` }];
    }
    case 'neo4j': {
      const { writeNeo4jImport } = await import('../interop/neo4j/write-neo4j-import.js');
      const written = await writeNeo4jImport(store, folder, signal);
      return [
        ...written.files.map((file) => ({ name: file.file, holds: `${file.rows} ${file.name} ${file.kind === 'nodes' ? 'nodes' : 'relationships'}` })),
        { name: written.script, holds: 'constraints and LOAD CSV statements' },
        { name: written.readme, holds: 'the neo4j-admin and cypher-shell command lines' },
      ];
    }
  }
}
