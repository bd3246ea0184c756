import { basename, isAbsolute, join, relative, sep } from 'node:path';
import type { Context } from 'hono';
import { z } from 'zod';
import type { UploadedFile } from '../../store/shared-job-store.js';
import { detectText } from '../../text/load/detect-text.js';
import { fileFormatOf } from '../../text/load/file-format.js';
import { labelApiSources } from '../api-document-sources.js';
import { defineRoute, type ServerEnv } from '../api-route.js';
import { httpError } from '../http-problem.js';
import { uploadSourcePrefix } from '../job-runner.js';
import { addDocumentsSchema, deleteDocumentQuery, idParams, looseObject } from '../request-schemas.js';
import { documentDetailSchema, documentSchema, jobResponseSchema, problemResponse } from '../response-schemas.js';
import { sanitizeFileName } from '../sanitize-file-name.js';
import type { ServedWorkspace } from '../workspace-registry.js';
import { supportedFileTypesText } from '../../text/load/file-format.js';


/**
 * The uploaded file a document's source names in this server's uploads folder, if any (only such files are the
 * server's to delete): `upload:<name>`, or the file's path itself for a document an older kgrag stored.
 */
export function uploadedFileOf(workspace: ServedWorkspace, source: string): string | undefined {
  if (source.startsWith(uploadSourcePrefix)) {
    const name = source.slice(uploadSourcePrefix.length).split('#')[0] ?? '';
    const path = join(workspace.uploads, name);
    return name.length > 0 && basename(path) === name && isUpload(workspace, path) ? path : undefined;
  }
  return isUpload(workspace, source) ? source : undefined;
}

/** Whether `path` lies inside the workspace's uploads folder. */
function isUpload(workspace: ServedWorkspace, path: string): boolean {
  if (!isAbsolute(path)) return false;
  const rest = relative(workspace.uploads, path);
  return rest.length > 0 && !rest.startsWith('..') && !rest.includes(`..${sep}`) && !rest.startsWith(sep);
}

/** How many leading bytes decide whether a file is text (what the loaders' binary test reads). */
const sniffBytes = 8192;

/**
 * The 415 problem of a file kgrag cannot read, or undefined: a known office format, or bytes that are not text under a
 * name read as text (a `.exe`, an image named `.txt`). PDF and Word files are checked by their loaders.
 */
function unreadableUpload(name: string, bytes: Uint8Array): Error | undefined {
  const format = fileFormatOf(name);
  if (format.kind === 'unsupported') {
    return httpError(415, 'SERVER_UNSUPPORTED_FILE', `"${name}" is ${format.description}, which kgrag cannot read`, 'convert it to PDF, DOCX, Markdown, HTML or plain text first');
  }
  if (format.kind === 'pdf' || format.kind === 'docx' || (format.kind === 'unknown' && new TextDecoder().decode(bytes.subarray(0, 5)) === '%PDF-')) return undefined;
  if (detectText(bytes.subarray(0, sniffBytes), name).kind !== 'binary') return undefined;
  return httpError(415, 'SERVER_UNSUPPORTED_FILE', `"${name}" is binary data, not text, which kgrag cannot read`, 'upload the document as PDF, DOCX, Markdown, HTML or plain text');
}

/**
 * The uploaded files of a multipart body. Every file is checked before any is stored: one that kgrag cannot read
 * refuses the whole upload with 415.
 */
async function readUploads(c: Context<ServerEnv>): Promise<UploadedFile[]> {
  let form: FormData;
  try {
    form = await c.req.formData();
  } catch {
    throw httpError(400, 'SERVER_INVALID_MULTIPART', 'the multipart body could not be read', 'send files as multipart/form-data fields named "file"');
  }
  const files = [...form.values()].filter((value): value is File => typeof value !== 'string');
  if (files.length === 0) throw httpError(400, 'SERVER_NO_FILES', 'the upload holds no file', 'send each file as a multipart/form-data field named "file"');
  const names = new Set<string>();
  const prepared = await Promise.all(
    files.map(async (file) => {
      const name = sanitizeFileName(file.name);
      if (names.has(name)) throw httpError(400, 'SERVER_DUPLICATE_FILE', `two uploaded files are both named "${name}"`, 'give each file of one upload its own name');
      names.add(name);
      const bytes = new Uint8Array(await file.arrayBuffer());
      const refused = unreadableUpload(name, bytes);
      if (refused) throw refused;
      return { name, bytes };
    }),
  );
  return prepared;
}

/** Documents: list, get, add (JSON text or file upload: an index job), delete (a delete job, or its dry run). */
export const documentRoutes = [
  defineRoute({
    method: 'get',
    path: '/documents',
    tag: 'documents',
    summary: 'List the indexed documents with their status',
    responses: { 200: { description: 'The documents of the published index', schema: z.object({ documents: z.array(documentSchema) }) } },
    handler: async (c, { workspace }) => c.json({ documents: await workspace.kgrag.documents() }),
  }),
  defineRoute({
    method: 'post',
    path: '/documents',
    tag: 'documents',
    summary: 'Add documents (JSON text, or files as multipart/form-data) and start an index job',
    description:
      `JSON: \`{"documents": [{"title", "text", "source?", "metadata?"}]}\`; a \`source\` is a label, stored as \`api:<source>\`: a later document with the same label replaces it. Multipart: one or more fields named \`file\` (${supportedFileTypesText}, or any other name whose bytes are text); a file with the name of an earlier upload replaces its documents, and a file the job skips is removed when it ends. Answers 202 with the queued job; follow it at \`/jobs/{id}/events\`.`,
    body: addDocumentsSchema,
    multipart: true,
    responses: {
      202: { description: 'The index job that adds them', schema: jobResponseSchema },
      400: problemResponse('Invalid documents'),
      413: problemResponse('Body larger than the server accepts'),
      415: problemResponse('A file kgrag cannot read (an office format it does not load, or bytes that are not text)'),
      503: problemResponse('An upload or the job file could not be written (the job, if any, ends failed)'),
    },
    handler: async (c, { body, workspace }) => {
      const job = body
        ? await workspace.jobs.submit({ kind: 'index', documents: labelApiSources(body.documents), paths: [], ...(body.mode === undefined ? {} : { mode: body.mode }) })
        : await workspace.jobs.submit({ kind: 'index', documents: [], paths: [] }, await readUploads(c));
      c.header('location', `${c.req.path.replace(/\/documents$/, '')}/jobs/${job.id}`);
      return c.json({ job }, 202);
    },
  }),
  defineRoute({
    method: 'get',
    path: '/documents/:id',
    tag: 'documents',
    summary: 'One document with its text and chunk ids',
    params: idParams,
    responses: { 200: { description: 'The document', schema: documentDetailSchema }, 404: problemResponse('No such document') },
    handler: async (c, { params, workspace }) => {
      const [document] = await workspace.kgrag.store.table('documents').get([params.id]);
      if (!document) throw httpError(404, 'SERVER_UNKNOWN_DOCUMENT', `no document with id "${params.id}"`, 'list the documents with GET /documents');
      const chunks = await workspace.kgrag.store.table('chunks').pick(['id', 'ordinal'], { column: 'documentId', values: [params.id] });
      const [listed] = await workspace.kgrag.documents([params.id]);
      return c.json({
        id: document.id,
        title: document.title,
        source: document.source,
        metadata: document.metadata,
        indexedAt: document.createdAt,
        status: listed?.status ?? 'indexed',
        text: document.text,
        chunkIds: chunks.sort((a, b) => a.ordinal - b.ordinal).map((chunk) => chunk.id),
      });
    },
  }),
  defineRoute({
    method: 'delete',
    path: '/documents/:id',
    tag: 'documents',
    summary: 'Delete a document and everything derived only from it (a delete job), or preview it with ?dryRun=true',
    params: idParams,
    query: deleteDocumentQuery,
    responses: {
      200: { description: 'Dry run: what the delete would remove and cost', schema: looseObject },
      202: { description: 'The delete job', schema: jobResponseSchema },
      404: problemResponse('No such document'),
    },
    handler: async (c, { params, query, workspace }) => {
      const [document] = await workspace.kgrag.documents([params.id]);
      if (!document) throw httpError(404, 'SERVER_UNKNOWN_DOCUMENT', `no document with id "${params.id}"`, 'list the documents with GET /documents');
      if (query.dryRun === 'true') return c.json(await workspace.kgrag.estimateDelete([document.id]));
      const job = await workspace.jobs.submit({
        kind: 'delete',
        selectors: [document.id],
        files: [uploadedFileOf(workspace, document.source) ?? []].flat(),
        ...(query.keepCache === 'true' ? { keepCache: true } : {}),
      });
      return c.json({ job }, 202);
    },
  }),
];
