import { basename, resolve } from 'node:path';
import type { KgragConfig } from '../core/config/config-schema.js';

/** The name of a workspace in a Postgres database: `store.workspace`, else the workspace folder's name. */
export function postgresWorkspaceName(config: KgragConfig, workspace: string): string {
  return config.store.workspace ?? basename(resolve(workspace));
}
