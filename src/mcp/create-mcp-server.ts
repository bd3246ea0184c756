import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { z } from 'zod';
import type { Kgrag } from '../api/create-kgrag.js';
import type { CommunityView, EntityDetail, GraphSlice } from '../api/graph-browser.js';
import { KgragError } from '../core/errors.js';
import { formatErrorLine } from '../core/format-error-line.js';
import { withSurfaceHint } from '../core/surface-hint.js';
import { packageVersion } from '../core/package-version.js';
import type { QueryResult } from '../methods/query-engine.js';
import type { InputDocument } from '../pipeline/pipeline-step.js';
import {
  addDocumentsInput,
  communityReportInput,
  communityReportOutput,
  deleteDocumentsInput,
  deleteDocumentsOutput,
  documentsChangedOutput,
  getEntityInput,
  getEntityOutput,
  jobStatusInput,
  jobStatusOutput,
  listDocumentsInput,
  listDocumentsOutput,
  listJobsInput,
  listJobsOutput,
  neighboursInput,
  neighboursOutput,
  queryInput,
  queryOutput,
  searchEntitiesInput,
  searchEntitiesOutput,
} from './tool-schemas.js';

/** What an MCP server serves: a workspace, and how documents are added to it and deleted from it. */
export interface McpTarget {
  /** The workspace: `query()`, `graph` (the graph browser), `config`. */
  kgrag: Kgrag;
  /** Adds documents and brings the index up to date; the HTTP server passes one that queues an index job. */
  addDocuments(documents: InputDocument[]): Promise<{ message: string; jobId?: string }>;
  /** Deletes documents by id and brings the index up to date; the HTTP server queues a delete job. */
  deleteDocuments(ids: string[]): Promise<{ message: string; jobId?: string }>;
  /** The server's jobs, where documents are added and deleted by jobs (`kgrag serve`); absent over stdio. */
  jobs?: { get(id: string): Promise<McpJob | undefined>; list(): Promise<McpJob[]> };
}

/** What the job tools read of a server's job (the server's `JobView` has these and more, all returned as structured content). */
export interface McpJob {
  id: string;
  kind: string;
  status: string;
  input: { documents: string[]; files: string[]; selectors: string[] };
  steps: ReadonlyArray<{ status: string }>;
  warnings: string[];
  error: { message: string } | null;
}

const instructions = [
  'kgrag answers questions over an indexed collection of documents, with citations, and lets you browse the knowledge graph built from them.',
  'Ask questions with `query`. To explore, find entities with `search_entities`, then read one with `get_entity`, walk its relations with `neighbours`, and read summaries of the topics it belongs to with `community_report`.',
  'Ids come from earlier results; never guess them.',
].join(' ');

/** A tool's successful result: text for the model, and the same data as structured content for programs. */
function success(text: string, structuredContent: Record<string, unknown>): CallToolResult {
  return { content: [{ type: 'text', text }], structuredContent };
}

/** A tool as {@link createMcpServer} registers it. */
interface ToolDefinition<Input extends z.ZodType> {
  title: string;
  /** For the agent: what the tool returns and when to use it. */
  description: string;
  inputSchema: Input;
  /** The shape of its `structuredContent`. */
  outputSchema: z.ZodType;
  /** Whether the tool changes the workspace. @default false */
  writes?: boolean;
  /** Whether what it changes is gone (a deletion). @default false */
  destructive?: boolean;
  run(input: z.output<Input>, signal: AbortSignal): Promise<CallToolResult>;
}

/** The fix through these tools of errors whose own hint names the command line (`kgrag index <paths>`, `--context-only`; {@link withSurfaceHint}). */
const mcpHints: Readonly<Record<string, string>> = {
  STORE_NO_INDEX: 'add documents first with add_documents',
  QUERY_NO_INDEX: 'add documents first with add_documents',
  QUERY_INDEX_NOT_READY: 'the index is still being built: ask again when its job ends (job_status over HTTP)',
  QUERY_METHOD_NOT_BUILT: 'choose a method the index was built for (the error lists them)',
  QUERY_GRAPH_NOT_BUILT: 'query with params {"graph": [...]} naming the kinds the index has (the error lists them); others need methods.kgp.indexGraphs in the server\'s configuration and an index job',
  QUERY_CONTEXT_ONLY_UNSUPPORTED: 'call query with contextOnly false, or choose a method whose context needs no LLM',
  QUERY_NEEDS_LLM: 'configure a chat model for the server (KGRAG_LLM_BASE_URL, or OPENAI_API_KEY), or query with a method that answers without one (local, basic, ppr, kgp)',
};

/** Registers a tool whose every failure becomes a tool error with one line that says what to do: never a crash. */
function registerTool<Input extends z.ZodType>(server: McpServer, name: string, tool: ToolDefinition<Input>): void {
  const annotations = tool.writes ? { readOnlyHint: false, destructiveHint: tool.destructive === true, idempotentHint: true, openWorldHint: false } : { readOnlyHint: true, openWorldHint: false };
  // The SDK has parsed the input with this schema before the callback runs; it types the input by the schema it is given.
  const inputSchema: z.ZodType = tool.inputSchema;
  const outputSchema: z.ZodType = tool.outputSchema;
  server.registerTool(name, { title: tool.title, description: tool.description, inputSchema, outputSchema, annotations }, async (input, extra) => {
    try {
      return await tool.run(input as z.output<Input>, extra.signal);
    } catch (error) {
      return { isError: true, content: [{ type: 'text', text: formatErrorLine(withSurfaceHint(error, mcpHints)) }] };
    }
  });
}

/** One line about a job: id, kind, status, what it was asked, and how it ended. */
function formatJob(job: McpJob): string {
  const asked = [...job.input.documents, ...job.input.files, ...job.input.selectors].slice(0, 5).join(', ');
  const ended = job.error ? `: ${job.error.message}` : job.status === 'running' ? ` (${job.steps.filter((step) => step.status === 'done').length} of ${job.steps.length} steps done)` : '';
  return `${job.id} ${job.kind} ${job.status}${asked ? ` [${asked}]` : ''}${ended}${job.warnings.length > 0 ? ` (${job.warnings.length} warning(s))` : ''}`;
}

function notFound(what: string, id: string, hint: string): KgragError {
  return new KgragError(`there is no ${what} with id "${id}" in the index`, { code: 'MCP_NOT_FOUND', category: 'input', hint, details: { what, id } });
}

function formatQuery(result: QueryResult): string {
  const method = result.variant ? `${result.method}:${result.variant}` : result.method;
  const lines: string[] = [];
  if (result.answer.kind === 'none') lines.push(result.context.text);
  else {
    lines.push(result.answer.text);
    if (result.citations.length > 0) {
      lines.push('', 'Citations:');
      for (const citation of result.citations) {
        const quote = citation.quote ? ` — "${citation.quote}"` : '';
        lines.push(`[${citation.dataset} ${citation.hid}] ${citation.title}${quote}`);
      }
    }
  }
  for (const warning of result.warnings) lines.push('', `Note: ${warning}`);
  lines.push('', `(method ${method}, index generation ${result.index.generation}${result.answer.label ? `, ${result.answer.label}` : ''})`);
  return lines.join('\n');
}

function formatEntity(entity: EntityDetail): string {
  const lines = [`${entity.title} (${entity.type}; id ${entity.id}; ${entity.degree} relations; mentioned in ${entity.frequency} passages)`];
  if (entity.aliases.length > 0) lines.push(`Also called: ${entity.aliases.join(', ')}`);
  if (entity.description) lines.push('', entity.description);
  if (entity.communities.length > 0) {
    lines.push('', 'Communities (community_report reads their reports):');
    for (const community of entity.communities) lines.push(`- level ${community.level}: ${community.reportTitle ?? community.title} (id ${community.id})`);
  }
  if (entity.sources.length > 0) {
    lines.push('', `Passages mentioning it (${entity.sources.length} of ${entity.chunkIds.length}):`);
    for (const source of entity.sources) lines.push('', `[${source.documentTitle}]`, source.text);
  }
  return lines.join('\n');
}

function formatNeighbourhood(start: string, slice: GraphSlice): string {
  const titles = new Map(slice.nodes.map((node) => [node.id, node.title]));
  const lines = [`${slice.nodes.length} entities around ${titles.get(start) ?? start}${slice.truncated ? ' (cut short by the limits; raise limit or maxEdges for more)' : ''}:`];
  for (const node of slice.nodes.slice(1)) lines.push(`- ${node.title} (${node.type}; id ${node.id}; ${node.depth} ${node.depth === 1 ? 'hop' : 'hops'})`);
  if (slice.edges.length > 0) {
    lines.push('', `Relations (${slice.edges.length}, strongest first):`);
    for (const edge of slice.edges) {
      const description = edge.description ? `: ${edge.description}` : '';
      lines.push(`- ${titles.get(edge.source) ?? edge.source} — ${titles.get(edge.target) ?? edge.target} (weight ${Number(edge.weight.toPrecision(3))})${description}`);
    }
  }
  return lines.join('\n');
}

function formatReports(communities: readonly CommunityView[]): string {
  return communities
    .map((community) => {
      const heading = `Community ${community.id} (level ${community.level}, ${community.size} entities)`;
      return community.report ? `${heading}\n\n${community.report.fullContent}` : `${heading}: ${community.title}, no report was written for it`;
    })
    .join('\n\n---\n\n');
}

/**
 * The kgrag MCP server over one workspace: tools to ask questions, browse the graph and add documents. Tool inputs
 * are validated by their zod schemas (`tool-schemas.ts`); every failure comes back as a tool error (`isError`)
 * with one line saying what went wrong and what to do, never as a crash or a stack trace.
 */
export function createMcpServer(target: McpTarget): McpServer {
  const { kgrag } = target;
  const server = new McpServer({ name: 'kgrag', version: packageVersion() }, { instructions });
  /** The id given, or that of the best exact or prefix match of the name given. */
  const entityIdOf = async (input: { id?: string | undefined; name?: string | undefined }): Promise<string> => {
    if (input.id !== undefined) return input.id;
    const name = input.name ?? '';
    const [best] = await kgrag.graph.searchEntities(name, { limit: 1 });
    if (best === undefined || (best.match !== 'exact' && best.match !== 'prefix')) {
      throw new KgragError(`no entity is named "${name}" or has a name starting with it`, {
        code: 'MCP_NO_SUCH_NAME',
        category: 'input',
        hint: 'search_entities finds entities by any part of a name; pass the id it returns',
      });
    }
    return best.id;
  };
  const methods = kgrag.engine.methods.map((method) => `- ${method.name}${method.variants.length > 0 ? ` (variants: ${method.variants.join(', ')})` : ''}: ${method.description}`).join('\n');

  registerTool(server, 'query', {
    title: 'Answer a question from the documents',
    description: [
      'Answers a question from the indexed documents and returns the answer with its citations (the passages, entities or reports it rests on, with quotes).',
      'Use it for any question about the content of the documents. Structured content holds the answer, the citations and the ids of the passages retrieved.',
      `The default method is "${kgrag.config.query.method}". Methods:`,
      methods,
    ].join('\n'),
    inputSchema: queryInput,
    outputSchema: queryOutput,
    async run(input, signal) {
      const method = input.variant === undefined ? input.method : `${input.method ?? kgrag.config.query.method.split(':')[0]}:${input.variant}`;
      const result = await kgrag.query(input.question, { method, params: input.params, topK: input.topK, contextOnly: input.contextOnly, signal });
      return success(formatQuery(result), {
        method: result.method,
        variant: result.variant ?? null,
        answer: result.answer,
        citations: result.citations,
        contextChunkIds: result.context.chunks.map((chunk) => chunk.id),
        ...(result.answer.kind === 'none' ? { context: result.context.text } : {}),
        index: result.index,
        warnings: result.warnings,
      });
    },
  });

  registerTool(server, 'search_entities', {
    title: 'Find entities by name',
    description:
      'Finds entities (people, places, organizations, things) of the knowledge graph whose name or alias contains the query, best match first (exact, prefix, word prefix, substring, then a full-text match of name or description). Returns their ids, titles, types and how many relations each has; pass an id to get_entity, neighbours or community_report.',
    inputSchema: searchEntitiesInput,
    outputSchema: searchEntitiesOutput,
    async run(input) {
      const entities = await kgrag.graph.searchEntities(input.query, { limit: input.limit, type: input.type });
      const text =
        entities.length === 0
          ? `no entity matches "${input.query}"; try a shorter part of the name, or ask with query`
          : entities.map((entity, index) => `${index + 1}. ${entity.title} (${entity.type}; id ${entity.id}; ${entity.degree} relations; ${entity.alias ? `alias "${entity.alias}", ` : ''}${entity.match} match)`).join('\n');
      return success(text, { entities });
    },
  });

  registerTool(server, 'get_entity', {
    title: 'Read an entity',
    description:
      'Returns one entity of the knowledge graph: its description, aliases, the passages that mention it (with their document titles) and the communities (topics) it belongs to. Give its id from search_entities, or a name (the best exact or prefix match of a title or alias is taken).',
    inputSchema: getEntityInput,
    outputSchema: getEntityOutput,
    async run(input) {
      const id = await entityIdOf(input);
      const entity = await kgrag.graph.entity(id, { maxSources: input.maxSources });
      if (entity === undefined) throw notFound('entity', id, 'search_entities finds entities by name and returns their ids');
      return success(formatEntity(entity), { entity });
    },
  });

  registerTool(server, 'neighbours', {
    title: 'Walk the graph around an entity',
    description:
      'Returns the entities related to one entity (by id, or by name), up to a few hops away (strongest relations first), and the relations among them with the sentences they come from. Use it to see how things are connected; `truncated` says when the limits left some out.',
    inputSchema: neighboursInput,
    outputSchema: neighboursOutput,
    async run(input) {
      const id = await entityIdOf(input);
      const slice = await kgrag.graph.neighbours(id, { depth: input.depth, limit: input.limit, maxEdges: input.maxEdges });
      if (slice === undefined) throw notFound('entity', id, 'search_entities finds entities by name and returns their ids');
      return success(formatNeighbourhood(id, slice), { ...slice });
    },
  });

  registerTool(server, 'community_report', {
    title: 'Read community reports',
    description:
      'Returns the report of a community: a summary of one topic of the documents (a cluster of related entities) with its key findings. Give a community id (get_entity lists them), or an entity id or name to read the reports of every community containing it (or only the one at `level`; 0 is the broadest).',
    inputSchema: communityReportInput,
    outputSchema: communityReportOutput,
    async run(input) {
      let communities: CommunityView[];
      if (input.communityId !== undefined) {
        const community = await kgrag.graph.community(input.communityId);
        if (community === undefined) throw notFound('community', input.communityId, 'get_entity lists the communities of an entity with their ids');
        communities = [community];
      } else {
        const entityId = await entityIdOf({ id: input.entityId, name: input.entityName });
        const entity = await kgrag.graph.entity(entityId, { maxSources: 0 });
        if (entity === undefined) throw notFound('entity', entityId, 'search_entities finds entities by name and returns their ids');
        const chosen = entity.communities.filter((community) => input.level === undefined || community.level === input.level);
        if (chosen.length === 0) {
          const levels = entity.communities.map((community) => community.level);
          throw new KgragError(
            input.level === undefined ? `${entity.title} belongs to no community` : `${entity.title} belongs to no community at level ${input.level}`,
            {
              code: 'MCP_NO_COMMUNITY',
              category: 'input',
              hint: levels.length > 0 ? `its communities are at levels ${levels.join(', ')}` : 'the index has no community reports for it; ask with query instead',
            },
          );
        }
        const views = await Promise.all(chosen.map((community) => kgrag.graph.community(community.id)));
        // The member list is for viewers; an agent reads the report.
        communities = views.filter((view) => view !== undefined).map(({ entityIds: _members, ...view }) => view);
      }
      return success(formatReports(communities), { communities });
    },
  });

  registerTool(server, 'list_documents', {
    title: 'List the indexed documents',
    description: 'Lists the documents of the index, newest first: title, id, source, chunks and status (source-missing: its file is gone). Ids are what delete_documents takes.',
    inputSchema: listDocumentsInput,
    outputSchema: listDocumentsOutput,
    async run(input) {
      const all = (await kgrag.documents()).sort((a, b) => b.indexedAt.localeCompare(a.indexedAt) || a.title.localeCompare(b.title));
      const documents = all.slice(0, input.limit ?? 100);
      const lines = documents.map((document) => `- ${document.title} (id ${document.id}; ${document.source}; ${document.chunks} chunks${document.status === 'indexed' ? '' : `; ${document.status}`})`);
      return success(`${all.length} document(s)${documents.length < all.length ? `, the ${documents.length} newest` : ''}:\n${lines.join('\n')}`, { total: all.length, documents });
    },
  });

  registerTool(server, 'delete_documents', {
    title: 'Delete documents from the index',
    description:
      'Deletes documents and everything derived only from them (passages, entities, cached LLM replies). First call it without confirm: it only previews what would go. Then, if that is what the user wants, call it again with the same ids and confirm: true.',
    inputSchema: deleteDocumentsInput,
    outputSchema: deleteDocumentsOutput,
    writes: true,
    destructive: true,
    async run(input) {
      // Ids only (a selector of the CLI may also be a path or a glob): an unknown one is named here, with this tool's fix.
      const found = new Set((await kgrag.documents(input.ids)).map((document) => document.id));
      const unknown = input.ids.filter((id) => !found.has(id));
      if (unknown.length > 0) {
        throw new KgragError(`no indexed document has the id ${unknown.map((id) => `"${id}"`).join(', ')}`, { code: 'MCP_NOT_FOUND', category: 'input', hint: 'list_documents lists the documents with their ids' });
      }
      const preview = await kgrag.estimateDelete(input.ids);
      if (input.confirm !== true) {
        const titles = preview.deleting.map((document) => `- ${document.title} (id ${document.id}; ${document.chunks} chunks)`).join('\n');
        return success(`Preview, nothing deleted: these ${preview.deleting.length} document(s) would be removed with everything derived only from them:\n${titles}\nCall delete_documents again with confirm: true to delete them.`, { preview: true, deleting: preview.deleting });
      }
      const outcome = await target.deleteDocuments(input.ids);
      return success(outcome.message, { preview: false, ...outcome });
    },
  });

  const jobs = target.jobs;
  if (jobs) {
    registerTool(server, 'job_status', {
      title: 'Follow an index or delete job',
      description: 'Returns one job of the server (add_documents and delete_documents queue them): its status (queued, running, done, failed, cancelled), steps, warnings, error and result.',
      inputSchema: jobStatusInput,
      outputSchema: jobStatusOutput,
      async run(input) {
        const job = await jobs.get(input.id);
        if (job === undefined) throw notFound('job', input.id, 'list_jobs lists the recent jobs with their ids');
        return success(formatJob(job), { job });
      },
    });
    registerTool(server, 'list_jobs', {
      title: 'List the recent jobs',
      description: "Lists the server's index and delete jobs, newest first, with their status.",
      inputSchema: listJobsInput,
      outputSchema: listJobsOutput,
      async run(input) {
        const listed = (await jobs.list()).slice(0, input.limit ?? 10);
        return success(listed.length === 0 ? 'no job yet' : listed.map(formatJob).join('\n'), { jobs: listed });
      },
    });
  }

  registerTool(server, 'add_documents', {
    title: 'Add documents to the index',
    description:
      'Adds documents (title and full text) to the collection and brings the index up to date, so that later queries can find them. A document with the same source (or, without one, the same title) as an indexed one replaces it. Returns what was done, or the id of the index job that will do it.',
    inputSchema: addDocumentsInput,
    outputSchema: documentsChangedOutput,
    writes: true,
    async run(input) {
      const documents = input.documents.map((document): InputDocument => ({ title: document.title, text: document.text, source: document.source }));
      const outcome = await target.addDocuments(documents);
      return success(outcome.message, { ...outcome });
    },
  });

  return server;
}
