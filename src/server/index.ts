/*
 * `kgrag/server`: the service layer for programs that embed it — start `kgrag serve` in-process, or mount its hono app
 * or the MCP handler in a server of their own. Kept apart from the package entry so that `import 'kgrag'` does not
 * load hono, pino and the MCP SDK.
 */
export { serveWorkspaces } from './serve-workspaces.js';
export type { ServedWorkspaces, ServeWorkspacesOptions } from './serve-workspaces.js';
export { createServerApp } from './create-server-app.js';
export { buildOpenApiDocument } from './build-openapi-document.js';
export type { ServerApp, ServerAppOptions } from './create-server-app.js';
export { createWorkspaceRegistry } from './workspace-registry.js';
export type { ServedWorkspace, WorkspaceRegistry, WorkspaceRegistryOptions } from './workspace-registry.js';
export type { IndexJobQueue, JobEvent, JobRequest, JobStatus, JobStep, JobView } from './index-job-queue.js';
export type { RunningServer } from './start-server.js';
export type { Problem } from './http-problem.js';
export { createMcpServer } from '../mcp/create-mcp-server.js';
export type { McpTarget } from '../mcp/create-mcp-server.js';
export { createMcpHttpHandler } from '../mcp/mcp-http-handler.js';
