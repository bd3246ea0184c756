import { existsSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { builtInStoresSharingPools } from '../api/built-in-stores.js';
import { loadConfig, mergeConfig } from '../core/config/load-config.js';
import { KgragError } from '../core/errors.js';
import type { CliIo } from './cli-io.js';
import { type GlobalOptions, parseSetOptions } from './workspace-options.js';

/**
 * How `kgrag serve` and `kgrag worker --role indexer` open their workspaces: one (`-w`) or every folder of a parent
 * (`--workspaces`), whose kgrag.yaml (or `-c`) is every tenant's base beneath the tenant's own file; the loaded
 * configuration of the served folder (with command-line flags), and one Postgres pool per database for all of them.
 */
export async function servedWorkspaceOptions(workspacesOption: string | undefined, flags: Record<string, unknown>, global: GlobalOptions, io: CliIo) {
  const folder = workspacesOption === undefined ? undefined : resolve(io.cwd, workspacesOption);
  const directory = folder ?? resolve(io.cwd, global.workspace ?? io.env.KGRAG_WORKSPACE ?? '.');
  if (folder !== undefined && global.workspace !== undefined) {
    throw new KgragError('give either -w (one workspace) or --workspaces (a folder of workspaces), not both', { code: 'CLI_SERVE_LAYOUT', category: 'input', hint: 'drop one of the two options' });
  }
  if (folder !== undefined && !(existsSync(folder) && statSync(folder).isDirectory())) {
    throw new KgragError(`--workspaces ${folder} is not a folder`, { code: 'CLI_SERVE_NO_FOLDER', category: 'input', hint: 'create it first (`mkdir -p …`); the server creates workspaces inside it' });
  }
  const overrides = parseSetOptions(global.set ?? []) as Record<string, unknown>;
  const loaded = await loadConfig({
    workspace: directory,
    env: io.env,
    overrides: mergeConfig(overrides, flags),
    ...(global.config === undefined ? {} : { configFile: resolve(io.cwd, global.config) }),
  });
  const opened = {
    env: io.env,
    config: overrides,
    ...(global.config === undefined || folder !== undefined ? {} : { configFile: resolve(io.cwd, global.config) }),
    ...(folder === undefined ? {} : { baseConfigFile: global.config === undefined ? join(folder, 'kgrag.yaml') : resolve(io.cwd, global.config) }),
  };
  return { folder, directory, loaded, opened, stores: builtInStoresSharingPools() };
}
