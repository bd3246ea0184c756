import type { KgragConfig } from '../core/config/config-schema.js';
import { KgragError } from '../core/errors.js';
import type { StoreExtensions } from '../store/store-extensions.js';
import type { WorkspaceStorage } from '../store/workspace-storage.js';
import { builtInStores, type WorkspaceStorageOpener } from './built-in-stores.js';

/** The storage `store.backend` names, among the workspace's backends (the built-in SQLite and Postgres by default). */
export async function openWorkspaceStorage(config: KgragConfig, workspace: string, stores: Readonly<Record<string, WorkspaceStorageOpener>> = builtInStores, extensions: StoreExtensions = {}): Promise<WorkspaceStorage> {
  const open = Object.hasOwn(stores, config.store.backend) ? stores[config.store.backend] : undefined;
  if (open === undefined) {
    throw new KgragError(`store.backend "${config.store.backend}" names no storage backend of this workspace (${Object.keys(stores).join(', ')})`, {
      code: 'CONFIG_UNKNOWN_STORE',
      category: 'config',
      hint: `set store.backend to one of ${Object.keys(stores).join(', ')}, or pass the backend to createKgrag({ stores: { ...builtInStores, ${config.store.backend}: open } })`,
      details: { backend: config.store.backend },
    });
  }
  return open(config, workspace, extensions);
}
