import { resolve } from 'node:path';
import { sanitizeForTerminal } from '../../core/sanitize-for-terminal.js';
import type { ExportFormat } from '../../api/export-index.js';
import { type CliIo, writeLine } from '../cli-io.js';
import { openWorkspace } from '../open-workspace.js';
import { type GlobalOptions, workspaceOptions } from '../workspace-options.js';

/** Options of `kgrag export`. */
export interface ExportCommandOptions {
  format: ExportFormat;
  overwrite?: boolean;
  json?: boolean;
}

/** `kgrag export --format <format> <dir>`: writes the published index in another tool's format; the files written to stdout. */
export async function exportCommand(directory: string, options: ExportCommandOptions, global: GlobalOptions, io: CliIo): Promise<void> {
  const kgrag = await openWorkspace(workspaceOptions(global, io, {}), io);
  try {
    const summary = await kgrag.export({ format: options.format, directory: resolve(io.cwd, directory), overwrite: options.overwrite === true });
    if (options.json) {
      writeLine(io.stdout, JSON.stringify({ workspace: kgrag.workspace, ...summary }, null, 2));
      return;
    }
    for (const file of summary.files) writeLine(io.stdout, `${sanitizeForTerminal(file.file)}\t${file.holds}`);
  } finally {
    await kgrag.close();
  }
}
