import type {
  ChunkView,
  CommunityDetail,
  CommunityPage,
  DeletePreview,
  DocumentDetail,
  DocumentInfo,
  EntityDetail,
  EntityEdit,
  EntityEditRequest,
  EntityMatch,
  GraphSlice,
  JobView,
  MethodList,
  Problem,
  QueryRequest,
  QueryResult,
  Workspaces,
  WorkspaceStats,
} from './api-types';

/** An error response of the API, with its problem document. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly problem: Problem,
  ) {
    super(problem.detail ?? problem.title ?? `HTTP ${status}`);
  }
}

/** One server-sent event. */
export interface ServerEvent {
  event: string;
  data: string;
}

/**
 * Reads server-sent events from a streamed response body. `fetch` rather than `EventSource`, because the
 * EventSource API cannot send the `Authorization` header.
 */
export async function* readServerEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<ServerEvent> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true }).replace(/\r\n?/g, '\n');
    let end = buffer.indexOf('\n\n');
    while (end >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      let event = 'message';
      const data: string[] = [];
      for (const line of block.split('\n')) {
        if (line.startsWith('event:')) event = line.slice(6).trim();
        else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
      }
      if (data.length > 0) yield { event, data: data.join('\n') };
      end = buffer.indexOf('\n\n');
    }
  }
}

/** Events of a streamed query, in order: text deltas and progress, then the result (or an error). */
export interface QueryStreamHandlers {
  onText?: (delta: string) => void;
  onProgress?: (event: Record<string, unknown>) => void;
}

const apiKeyStorage = 'kgrag.apiKey';

/** The API key the user gave (kept in this browser only), or undefined. */
export function storedApiKey(): string | undefined {
  return localStorage.getItem(apiKeyStorage) ?? undefined;
}

export function storeApiKey(key: string | undefined): void {
  if (key) localStorage.setItem(apiKeyStorage, key);
  else localStorage.removeItem(apiKeyStorage);
}

/**
 * The explorer's client of one workspace's API: `/v1` on a single-workspace server, `/v1/workspaces/{name}` on a
 * server of a workspace folder.
 */
export class ApiClient {
  constructor(readonly base: string) {}

  /** The client for the workspaces the server serves: `name` undefined on a single-workspace server. */
  static forWorkspace(name: string | undefined): ApiClient {
    return new ApiClient(name === undefined ? '/v1' : `/v1/workspaces/${encodeURIComponent(name)}`);
  }

  static async workspaces(): Promise<Workspaces> {
    return request('/v1/workspaces');
  }

  stats(): Promise<WorkspaceStats> {
    return request(`${this.base}/stats`);
  }

  methods(): Promise<MethodList> {
    return request(`${this.base}/methods`);
  }

  searchEntities(q: string, options: { limit?: number; type?: string } = {}): Promise<{ entities: EntityMatch[] }> {
    return request(`${this.base}/entities${queryString({ q, ...options })}`);
  }

  entity(id: string, maxSources = 5): Promise<EntityDetail> {
    return request(`${this.base}/entities/${encodeURIComponent(id)}${queryString({ maxSources })}`);
  }

  /** Starts an index job, e.g. for a method the index is not built for. */
  startJob(body: { methods?: string[]; mode?: 'fast' | 'standard' }): Promise<{ job: JobView }> {
    return request(`${this.base}/jobs`, { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
  }

  /** The entity merges and splits people made, oldest first, undone ones included. */
  entityEdits(): Promise<{ edits: EntityEdit[] }> {
    return request(`${this.base}/entities/edits`);
  }

  /** Starts the job that merges entities, splits a name off one, or undoes an edit. */
  editEntities(edit: EntityEditRequest): Promise<{ job: JobView }> {
    return request(`${this.base}/entities/edits`, { method: 'POST', body: JSON.stringify(edit), headers: { 'content-type': 'application/json' } });
  }

  neighbours(id: string, options: { depth?: number; limit?: number; maxEdges?: number } = {}): Promise<GraphSlice> {
    return request(`${this.base}/entities/${encodeURIComponent(id)}/neighbours${queryString(options)}`);
  }

  communities(options: { level?: number; limit?: number; offset?: number } = {}): Promise<CommunityPage> {
    return request(`${this.base}/communities${queryString(options)}`);
  }

  community(id: string): Promise<CommunityDetail> {
    return request(`${this.base}/communities/${encodeURIComponent(id)}`);
  }

  chunk(id: string): Promise<ChunkView> {
    return request(`${this.base}/chunks/${encodeURIComponent(id)}`);
  }

  graph(options: { top?: number; maxEdges?: number; type?: string; layout?: boolean } = {}): Promise<GraphSlice> {
    return request(`${this.base}/graph${queryString(options)}`);
  }

  /** Runs a query as a stream: text deltas as the LLM writes them, then the whole result. */
  async query(body: QueryRequest, handlers: QueryStreamHandlers = {}, signal?: AbortSignal): Promise<QueryResult> {
    const response = await send(`${this.base}/query`, { method: 'POST', body: JSON.stringify({ ...body, stream: true }), headers: { 'content-type': 'application/json' }, ...(signal ? { signal } : {}) });
    if (!response.body) throw new Error('the server sent no event stream');
    for await (const { event, data } of readServerEvents(response.body)) {
      if (event === 'text') handlers.onText?.((JSON.parse(data) as { delta: string }).delta);
      else if (event === 'progress') handlers.onProgress?.(JSON.parse(data) as Record<string, unknown>);
      else if (event === 'result') return JSON.parse(data) as QueryResult;
      else if (event === 'error') {
        const problem = JSON.parse(data) as Problem;
        throw new ApiError(problem.status, problem);
      }
    }
    throw new Error('the query stream ended without a result');
  }

  documents(): Promise<{ documents: DocumentInfo[] }> {
    return request(`${this.base}/documents`);
  }

  document(id: string): Promise<DocumentDetail> {
    return request(`${this.base}/documents/${encodeURIComponent(id)}`);
  }

  /** Uploads files (multipart) and queues the index job that adds them. */
  async uploadDocuments(files: readonly File[]): Promise<{ job: JobView }> {
    const form = new FormData();
    for (const file of files) form.append('file', file, file.name);
    return (await send(`${this.base}/documents`, { method: 'POST', body: form })).json() as Promise<{ job: JobView }>;
  }

  /** What deleting a document would remove, without deleting it. */
  deletePreview(id: string): Promise<DeletePreview> {
    return request(`${this.base}/documents/${encodeURIComponent(id)}${queryString({ dryRun: 'true' })}`, { method: 'DELETE' });
  }

  /** Queues the job that deletes a document. */
  deleteDocument(id: string): Promise<{ job: JobView }> {
    return request(`${this.base}/documents/${encodeURIComponent(id)}`, { method: 'DELETE' });
  }

  jobs(): Promise<{ jobs: JobView[] }> {
    return request(`${this.base}/jobs`);
  }

  cancelJob(id: string): Promise<{ job: JobView }> {
    return request(`${this.base}/jobs/${encodeURIComponent(id)}`, { method: 'DELETE' });
  }

  job(id: string): Promise<{ job: JobView }> {
    return request(`${this.base}/jobs/${encodeURIComponent(id)}`);
  }

  /**
   * Follows a job until it ends: `onUpdate` receives its state at the start, after progress (read again at most
   * every `refreshMs`, since progress events come by the hundred) and at the end; resolves with the final state.
   */
  async followJob(id: string, onUpdate: (job: JobView) => void, options: { signal?: AbortSignal; refreshMs?: number } = {}): Promise<JobView | undefined> {
    const response = await send(`${this.base}/jobs/${encodeURIComponent(id)}/events`, options.signal ? { signal: options.signal } : {});
    if (!response.body) throw new Error('the server sent no event stream');
    let last: JobView | undefined;
    let refresh: Promise<void> | undefined;
    let lastRefresh = 0;
    for await (const { event, data } of readServerEvents(response.body)) {
      if (event === 'job' || event === 'end') {
        last = JSON.parse(data) as JobView;
        onUpdate(last);
        if (event === 'end') break;
      } else if (refresh === undefined && performance.now() - lastRefresh >= (options.refreshMs ?? 250)) {
        lastRefresh = performance.now();
        refresh = this.job(id)
          .then(({ job }) => {
            if (last?.endedAt == null) {
              last = job;
              onUpdate(job);
            }
          })
          .catch(() => undefined)
          .finally(() => {
            refresh = undefined;
          });
      }
    }
    return last;
  }
}

function queryString(options: Record<string, string | number | boolean | undefined>): string {
  const entries = Object.entries(options).filter((entry): entry is [string, string | number | boolean] => entry[1] !== undefined);
  return entries.length === 0 ? '' : `?${new URLSearchParams(entries.map(([key, value]) => [key, String(value)])).toString()}`;
}

/** Listeners told when the API refuses the key (or asks for one), so the app can ask the user for it. */
const unauthorizedListeners = new Set<() => void>();

export function onUnauthorized(listener: () => void): () => void {
  unauthorizedListeners.add(listener);
  return () => unauthorizedListeners.delete(listener);
}

async function send(path: string, init: RequestInit = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  const key = storedApiKey();
  if (key) headers.set('authorization', `Bearer ${key}`);
  const response = await fetch(path, { ...init, headers });
  if (response.ok) return response;
  let problem: Problem = { status: response.status, title: response.statusText };
  try {
    problem = (await response.json()) as Problem;
  } catch {
    // Not a problem document (a proxy's error page): the status line says enough.
  }
  if (response.status === 401 || response.status === 403) for (const listener of unauthorizedListeners) listener();
  throw new ApiError(response.status, problem);
}

async function request<T>(path: string, init: RequestInit = {}): Promise<T> {
  return (await send(path, init)).json() as Promise<T>;
}
