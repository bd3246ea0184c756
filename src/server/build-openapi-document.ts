import { pino } from 'pino';
import { serverConfigSchema } from '../core/config/config-schema.js';
import { KgragError } from '../core/errors.js';
import { packageVersion } from '../core/package-version.js';
import { createServerApp } from './create-server-app.js';
import { servedRoutes } from './serve-workspaces.js';
import { createWorkspaceRegistry } from './workspace-registry.js';

/**
 * The OpenAPI document `kgrag serve -w <dir>` serves at `/openapi.json` (one workspace, no API keys), built from the
 * route definitions alone: nothing listens and no workspace opens. The build generates the web explorer's API types
 * from it (scripts/generate-api-types.mjs), and a program can generate a client of its own the same way.
 */
export function buildOpenApiDocument(): Record<string, unknown> {
  const registry = createWorkspaceRegistry({
    layout: 'single',
    directory: '.',
    openKgrag: () => {
      throw new KgragError('buildOpenApiDocument serves no workspace', { code: 'SERVER_NO_WORKSPACE', category: 'internal' });
    },
  });
  const app = createServerApp({ registry, config: serverConfigSchema.parse({}), version: packageVersion(), logger: pino({ enabled: false }), routes: servedRoutes });
  return app.openapi;
}
