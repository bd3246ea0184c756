import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { KgragError } from '../core/errors.js';
import type { Store } from '../store/store.js';
import { builtInExporters, type IndexExporter } from './index-exporter.js';

/** The formats `kgrag export` writes (the built-in exporters'). */
export const exportFormats = ['graphrag', 'graphml', 'neo4j'] as const;

/** A format of {@link exportFormats}, or of an exporter given to `createKgrag({ exporters })`. */
export type ExportFormat = (typeof exportFormats)[number] | (string & {});

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
 * Writes the index in `store` in one of the formats of `exporters` (the built-in ones by default). The whole file
 * set is written beside `directory` and moved into it when complete (`writeFileSet`), so a failed or stopped export
 * leaves none of it.
 */
export async function exportIndex(store: Store, options: ExportOptions, exporters: readonly IndexExporter[] = builtInExporters): Promise<ExportSummary> {
  refuseNonEmpty(options.directory, options.overwrite === true);
  const exporter = exporters.find((candidate) => candidate.format === options.format);
  if (exporter === undefined) {
    throw new KgragError(`unknown export format "${String(options.format)}"`, {
      code: 'EXPORT_UNKNOWN_FORMAT',
      category: 'input',
      hint: `choose one of ${exporters.map((candidate) => candidate.format).join(', ')}`,
    });
  }
  const { writeFileSet } = await import('../interop/shared/write-file-set.js');
  const signal = options.signal === undefined ? {} : { signal: options.signal };
  const files = await writeFileSet(options.directory, `the ${options.format} export`, (staging) => exporter.write(store, staging, signal));
  return { format: options.format, directory: options.directory, files: files.map((file) => ({ file: join(options.directory, file.name), holds: file.holds })) };
}
