import { migrateStore } from '../../api/migrate-store.js';
import { sanitizeForTerminal } from '../../core/sanitize-for-terminal.js';
import { type CliIo, writeLine } from '../cli-io.js';
import { type GlobalOptions, workspaceOptions } from '../workspace-options.js';

/** Options of `kgrag migrate`. */
export interface MigrateCommandOptions {
  check?: boolean;
}

/**
 * `kgrag migrate [--check]`: brings the workspace's store to the schema this kgrag needs (on Postgres, as the schema's
 * owner, so that everyday roles need no CREATE privilege); `--check` changes nothing and fails when it is behind.
 */
export async function migrateCommand(options: MigrateCommandOptions, global: GlobalOptions, io: CliIo): Promise<void> {
  const result = await migrateStore(workspaceOptions(global, io), options.check === true);
  const where = sanitizeForTerminal(result.location);
  if (options.check === true) writeLine(io.stdout, `${where}: schema ${result.to}, current`);
  else if (result.migrated) writeLine(io.stdout, `${where}: migrated from schema ${result.from ?? 'none'} to ${result.to}`);
  else writeLine(io.stdout, `${where}: schema ${result.to}, current; nothing to migrate`);
}
