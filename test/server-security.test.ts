// `kgrag serve`'s security model over real loopback HTTP: what a server without a key accepts (this machine's
// names, same-origin writes), what keys must look like beyond loopback, workspace folders that stay inside their
// folder, JSON sources that are labels, uploads kgrag cannot read, files that cannot be written, and the headers of
// every response.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import pino from 'pino';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createKgrag } from '../src/api/create-kgrag.js';
import { serveCommand } from '../src/cli/commands/serve-command.js';
import { configSchema } from '../src/core/config/config-schema.js';
import { loadConfig } from '../src/core/config/load-config.js';
import { serveWorkspaces, type ServedWorkspaces } from '../src/server/serve-workspaces.js';
import { readEvents, startTestServer } from './helpers/test-server.js';

interface Job {
  id: string;
  status: string;
  warnings: string[];
  error: { code: string; message: string } | null;
}

interface Problem {
  status: number;
  code: string;
  detail: string;
}

interface ListedDocument {
  id: string;
  title: string;
  source: string;
  status: string;
}

/** An empty workspace folder: with {@link basicOnly}, a job over a few documents takes a fraction of a second. */
function emptyWorkspace(): string {
  return mkdtempSync(join(tmpdir(), 'kgrag-security-'));
}

/** Workspaces built for the basic method only: what these tests add need not pay for every method's steps. */
const basicOnly = { config: { index: { mode: 'fast' as const }, pipeline: { methods: ['basic'] } } };

async function body<T>(response: Response): Promise<T> {
  return (await response.json()) as T;
}

async function waitForJob(base: string, id: string, headers: Record<string, string> = {}): Promise<Job> {
  const events = await readEvents(await fetch(`${base}/jobs/${id}/events`, { headers }));
  assert.equal(events.at(-1)?.event, 'end');
  return JSON.parse(events.at(-1)!.data) as Job;
}

/** A request with headers exactly as given (fetch sets Host itself). */
function rawRequest(url: string, path: string, headers: Record<string, string>, method = 'GET'): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const sent = httpRequest({ host: hostname, port, path, method, headers }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: text }));
    });
    sent.on('error', reject);
    sent.end();
  });
}

function uploadForm(name: string, content: string | Uint8Array<ArrayBuffer>): FormData {
  const form = new FormData();
  form.append('file', new Blob([content]), name);
  return form;
}

const jsonDocuments = (documents: Array<{ title: string; text: string; source?: string }>): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ documents }),
});

/** The server's config section with `changes`, without the schema's checks (as a program embedding the server could pass it). */
function serverConfig(changes: Partial<ReturnType<typeof configSchema.parse>['server']>) {
  return { ...configSchema.parse({ server: { port: 0 } }).server, ...changes };
}

/** `kgrag serve` of one workspace, opened with `env` as its environment (what the CLI passes). */
function serveWith(directory: string, changes: Parameters<typeof serverConfig>[0], env: Record<string, string> = {}): Promise<ServedWorkspaces> {
  return serveWorkspaces({
    layout: 'single',
    directory,
    config: serverConfig(changes),
    version: 'test',
    logger: pino({ level: 'silent' }),
    openKgrag: (workspace) => createKgrag({ workspace, env, ...basicOnly }),
  });
}

describe('kgrag serve without an API key: this machine only', () => {
  let server: ServedWorkspaces;
  let directory: string;
  let port: number;

  before(async () => {
    directory = emptyWorkspace();
    server = await startTestServer({ directory, kgrag: basicOnly });
    port = server.port;
  });
  after(async () => {
    await server.close();
  });

  test('a Host that is not a loopback name is refused (DNS rebinding), naming the Host and the fix; loopback names are served', async () => {
    for (const host of [`attacker.test:${port}`, 'attacker.test', `127.0.0.1.nip.io:${port}`, `app.localhost:${port}`, `10.0.0.5:${port}`, `localhost.:${port}`]) {
      const response = await rawRequest(server.url, '/v1/documents', { host });
      assert.equal(response.status, 403, host);
      assert.match(String(response.headers['content-type']), /application\/problem\+json/);
      const problem = JSON.parse(response.body) as Problem;
      assert.equal(problem.code, 'SERVER_HOST_NOT_ALLOWED', host);
      assert.ok(problem.detail.includes(host), problem.detail);
      assert.match(problem.detail, /API key/);
    }
    for (const host of [`localhost:${port}`, 'LOCALHOST', `127.0.0.1:${port}`, `127.1.2.3:${port}`, `[::1]:${port}`, '127.0.0.1']) {
      assert.equal((await rawRequest(server.url, '/v1/documents', { host })).status, 200, host);
    }
  });

  test('a write from another site is refused before it is stored; writes without Origin and from the same origin are accepted', async () => {
    const own = `http://127.0.0.1:${port}`;
    const crossSite: Array<Record<string, string>> = [
      { origin: 'http://evil.example.com' },
      { origin: 'null' },
      { origin: `http://127.0.0.1:${port + 1}` },
      { 'sec-fetch-site': 'cross-site' },
      { 'sec-fetch-site': 'same-site', origin: `http://localhost:${port}` },
    ];
    for (const headers of crossSite) {
      const refused = await fetch(`${server.url}/v1/documents`, { method: 'POST', headers, body: uploadForm('report.txt', 'Forged report') });
      assert.equal(refused.status, 403, JSON.stringify(headers));
      const problem = await body<Problem>(refused);
      assert.equal(problem.code, 'SERVER_CROSS_SITE_WRITE');
      assert.match(problem.detail, /API key/);
    }
    assert.equal(existsSync(join(directory, 'uploads', 'report.txt')), false);
    const query = await fetch(`${server.url}/v1/query`, { method: 'POST', headers: { origin: 'http://evil.example.com', 'content-type': 'text/plain' }, body: JSON.stringify({ question: 'Who designed the Kester Weir Bridge?', method: 'basic' }) });
    assert.equal(query.status, 403);
    const deleted = await fetch(`${server.url}/v1/jobs/job-000001`, { method: 'DELETE', headers: { origin: 'http://evil.example.com' } });
    assert.equal(deleted.status, 403);
    // Reading is not a write: the browser keeps the answer from the other site (no CORS header).
    const read = await fetch(`${server.url}/v1/stats`, { headers: { origin: 'http://evil.example.com' } });
    assert.equal(read.status, 200);
    assert.equal(read.headers.get('access-control-allow-origin'), null);

    const fromPage = await fetch(`${server.url}/v1/documents`, { method: 'POST', headers: { origin: own, 'sec-fetch-site': 'same-origin' }, body: uploadForm('page.txt', 'Uploaded from the explorer page.') });
    assert.equal(fromPage.status, 202);
    const fromCurl = await fetch(`${server.url}/v1/documents`, { method: 'POST', body: uploadForm('curl.txt', 'Uploaded with curl.') });
    assert.equal(fromCurl.status, 202);
    await waitForJob(`${server.url}/v1`, (await body<{ job: Job }>(fromCurl)).job.id);
  });

  test('no address beyond loopback without a key, and --insecure only says to set one', async () => {
    const other = emptyWorkspace();
    for (const host of ['0.0.0.0', '::', '192.0.2.10']) {
      await assert.rejects(serveWith(other, { host }), (error: Error & { code?: string; hint?: string }) => {
        assert.equal(error.code, 'SERVER_INSECURE_BIND');
        assert.doesNotMatch(`${error.message} ${error.hint}`, /--insecure/);
        return true;
      });
    }
    const stderr = new PassThrough();
    const io = { stdout: new PassThrough(), stderr, env: {}, cwd: other };
    await assert.rejects(serveCommand({ insecure: true, host: '0.0.0.0', port: 0 }, { workspace: other }, io), (error: Error & { code?: string; hint?: string }) => {
      assert.equal(error.code, 'CLI_SERVE_INSECURE_REMOVED');
      assert.match(`${error.message} ${error.hint}`, /KGRAG_API_KEYS/);
      return true;
    });
  });
});

describe('kgrag serve with API keys', () => {
  const realKey = 'c0ffee5e7f1d4b2a9e8d7c6b5a493827';

  test("the README's configuration: ${KGRAG_SERVER_KEY} in kgrag.yaml is the variable's value, and its literal text is no key", async () => {
    const directory = emptyWorkspace();
    writeFileSync(join(directory, 'kgrag.yaml'), 'server:\n  host: 127.0.0.1\n  port: 0\n  apiKeys: ["${KGRAG_SERVER_KEY}"]\n');
    await assert.rejects(loadConfig({ workspace: directory, env: {} }), /server\.apiKeys\.0: \$\{KGRAG_SERVER_KEY\}: the environment variable KGRAG_SERVER_KEY is not set/);
    const env = { KGRAG_SERVER_KEY: realKey };
    const loaded = await loadConfig({ workspace: directory, env });
    const server = await serveWith(directory, loaded.config.server, env);
    try {
      assert.equal((await fetch(`${server.url}/v1/stats`, { headers: { authorization: `Bearer ${realKey}` } })).status, 200);
      assert.equal((await fetch(`${server.url}/v1/stats`, { headers: { authorization: 'Bearer ${KGRAG_SERVER_KEY}' } })).status, 403);
    } finally {
      await server.close();
    }
  });

  test('beyond loopback, a key that looks like a placeholder or is short refuses to start, naming its position and never the key', async () => {
    const directory = emptyWorkspace();
    const weak: Array<[string[], string]> = [
      [['${KGRAG_SERVER_KEY}'], 'key-1'],
      [[realKey, '<your-api-key-here>'], 'key-2'],
      [['changeme-changeme-changeme'], 'key-1'],
      [['xxxxxxxxxxxxxxxxxxxxxxxx'], 'key-1'],
      [[realKey, realKey.replace(/./g, 'a'), 'your-key-goes-here-0123'], 'key-2'],
      [['$KGRAG_SERVER_KEY_VALUE'], 'key-1'],
      [['short-key'], 'key-1'],
    ];
    for (const [apiKeys, position] of weak) {
      await assert.rejects(serveWith(directory, { host: '0.0.0.0', apiKeys }), (error: Error & { code?: string; hint?: string }) => {
        assert.equal(error.code, 'SERVER_WEAK_API_KEY', apiKeys.join(','));
        assert.ok(error.message.includes(position), `${error.message} names ${position}`);
        for (const key of apiKeys) assert.ok(!`${error.message} ${error.hint}`.includes(key), 'the message never shows a key');
        return true;
      });
    }
    // On loopback the same keys are only a local matter; beyond it a real key starts, and any Host name may reach it.
    const local = await serveWith(directory, { apiKeys: ['changeme-changeme-changeme'] });
    await local.close();
    const open = await serveWith(directory, { host: '0.0.0.0', apiKeys: [realKey] });
    try {
      const port = open.port;
      const response = await rawRequest(`http://127.0.0.1:${port}`, '/v1/stats', { host: `kgrag.example.com:${port}`, authorization: `Bearer ${realKey}`, origin: 'https://evil.example.com' });
      assert.equal(response.status, 200);
      // Keys keep cross-origin browsers out unless corsOrigins lists them: no CORS header lets the page read this.
      assert.equal(response.headers['access-control-allow-origin'], undefined);
    } finally {
      await open.close();
    }
  });
});

describe('kgrag serve: a folder of workspaces stays inside its folder', () => {
  test('a link to a folder outside (or to another workspace) is no workspace, and nothing is written through it', async () => {
    const parent = mkdtempSync(join(tmpdir(), 'kgrag-links-'));
    const folder = join(parent, 'spaces');
    const outside = join(parent, 'etc');
    mkdirSync(join(folder, 'harbour'), { recursive: true });
    mkdirSync(outside);
    symlinkSync(outside, join(folder, 'etclink'));
    symlinkSync(join(folder, 'harbour'), join(folder, 'alias'));
    const server = await startTestServer({ directory: folder, layout: 'folder', kgrag: basicOnly });
    try {
      const base = `${server.url}/v1/workspaces`;
      assert.deepEqual(await body(await fetch(base)), { layout: 'folder', workspaces: [{ name: 'harbour' }] });
      for (const name of ['etclink', 'alias']) {
        const upload = await fetch(`${base}/${name}/documents`, { method: 'POST', body: uploadForm('notes.txt', 'Written through a link.') });
        assert.equal(upload.status, 404, name);
        assert.match((await body<Problem>(upload)).detail, /link/);
        assert.equal((await fetch(`${base}/${name}/stats`)).status, 404, name);
        assert.equal((await fetch(base, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name }) })).status, 409, name);
      }
      assert.deepEqual(readdirSync(outside), []);
      assert.equal(existsSync(join(folder, 'harbour', 'kgrag.db')), false);

      // A workspace's own uploads folder that leads outside is refused too: the server writes and deletes files there.
      const away = join(parent, 'away');
      mkdirSync(away);
      mkdirSync(join(folder, 'docks'));
      symlinkSync(away, join(folder, 'docks', 'uploads'));
      const upload = await fetch(`${base}/docks/documents`, { method: 'POST', body: uploadForm('notes.txt', 'Written through a link.') });
      assert.ok(upload.status >= 400, String(upload.status));
      assert.match((await body<Problem>(upload)).detail, /uploads.*link|link.*uploads/);
      assert.deepEqual(readdirSync(away), []);
    } finally {
      await server.close();
    }
  });
});

describe('kgrag serve: documents and uploads', () => {
  let server: ServedWorkspaces;
  let directory: string;
  let base: string;

  before(async () => {
    directory = emptyWorkspace();
    server = await startTestServer({ directory, kgrag: basicOnly });
    base = `${server.url}/v1`;
  });
  after(async () => {
    await server.close();
  });

  const documents = async (): Promise<ListedDocument[]> => (await body<{ documents: ListedDocument[] }>(await fetch(`${base}/documents`))).documents;

  test("a JSON document's source is a label: it cannot replace or delete an upload, nor tell whether a server path exists", async () => {
    const uploaded = await fetch(`${base}/documents`, { method: 'POST', body: uploadForm('notes.md', '# Notes\n\nThe ferry Cormorant crosses to Skerrow at noon.') });
    assert.equal((await waitForJob(base, (await body<{ job: Job }>(uploaded)).job.id)).status, 'succeeded');
    const uploadPath = join(directory, 'uploads', 'notes.md');
    // An upload is stored as `upload:<name>`, whichever server's folder holds it.
    const upload = (await documents()).find((document) => document.source === 'upload:notes.md');
    assert.ok(upload);

    const added = await fetch(
      `${base}/documents`,
      jsonDocuments([
        { title: 'Forged', text: 'The ferry Cormorant was sold for scrap.', source: uploadPath },
        { title: 'Forged label', text: 'The ferry Cormorant was sold for parts.', source: 'upload:notes.md' },
        { title: 'Probe present', text: 'A probe for a file that exists.', source: '/etc/hostname' },
        { title: 'Probe absent', text: 'A probe for a file that does not exist.', source: '/nonexistent/secret.txt' },
      ]),
    );
    assert.equal((await waitForJob(base, (await body<{ job: Job }>(added)).job.id)).status, 'succeeded');
    const listed = await documents();
    assert.ok(listed.some((document) => document.id === upload.id && document.source === 'upload:notes.md'), 'the upload keeps its document');
    const forged = listed.find((document) => document.title === 'Forged');
    assert.equal(forged?.source, `api:${uploadPath}`);
    assert.equal(listed.find((document) => document.title === 'Forged label')?.source, 'api:upload:notes.md');
    for (const title of ['Probe present', 'Probe absent']) assert.equal(listed.find((document) => document.title === title)?.status, 'indexed', title);

    const deleted = await fetch(`${base}/documents/${forged.id}`, { method: 'DELETE' });
    assert.equal((await waitForJob(base, (await body<{ job: Job }>(deleted)).job.id)).status, 'succeeded');
    assert.ok(existsSync(uploadPath), 'deleting the forged document left the upload');
    assert.ok((await documents()).some((document) => document.id === upload.id));

    // MCP's add_documents takes the same labels.
    const client = new Client({ name: 'security-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`)));
    try {
      const result = (await client.callTool({ name: 'add_documents', arguments: { documents: [{ title: 'Via MCP', text: 'The Skerrow light is green.', source: uploadPath }] } })) as { content: Array<{ text: string }> };
      const jobId = /job-\d+/.exec(result.content[0]?.text ?? '')?.[0];
      assert.ok(jobId);
      assert.equal((await waitForJob(base, jobId)).status, 'succeeded');
    } finally {
      await client.close();
    }
    assert.equal((await documents()).find((document) => document.title === 'Via MCP')?.source, `api:${uploadPath}`);

    // Among API documents, the same label still replaces.
    for (const title of ['Tide table, first edition', 'Tide table, second edition']) {
      const response = await fetch(`${base}/documents`, jsonDocuments([{ title, text: `${title}: high water at 06:12.`, source: 'tides' }]));
      assert.equal((await waitForJob(base, (await body<{ job: Job }>(response)).job.id)).status, 'succeeded');
    }
    assert.deepEqual(
      (await documents()).filter((document) => document.source === 'api:tides').map((document) => document.title),
      ['Tide table, second edition'],
    );
  });

  test('files kgrag cannot read are refused with 415 before they are stored; text under an unknown extension is accepted', async () => {
    const executable = new Uint8Array([0x4d, 0x5a, 0x90, 0x00, 0x03, 0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00, 0xff, 0xff]);
    for (const [name, content] of [['evil.exe', executable], ['image.txt', new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0])]] as const) {
      const refused = await fetch(`${base}/documents`, { method: 'POST', body: uploadForm(name, content) });
      assert.equal(refused.status, 415, name);
      const problem = await body<Problem>(refused);
      assert.equal(problem.code, 'SERVER_UNSUPPORTED_FILE');
      assert.ok(problem.detail.includes(name), problem.detail);
      assert.equal(existsSync(join(directory, 'uploads', name)), false, name);
    }
    // Text under an extension kgrag does not know is read as text, as the CLI reads it.
    const script = await fetch(`${base}/documents`, { method: 'POST', body: uploadForm('tides.py', 'print("high water at 06:12")\n') });
    assert.equal(script.status, 202);
    assert.equal((await waitForJob(base, (await body<{ job: Job }>(script)).job.id)).status, 'succeeded');
    assert.ok(existsSync(join(directory, 'uploads', 'tides.py')));
  });

  test('an upload the job skipped (unreadable) is removed from uploads/ when the job ends', async () => {
    // The job succeeds with the readable file and skips the other with a warning.
    const form = uploadForm('agenda.md', '# Agenda\n\nThe harbour board meets on Tuesday.');
    form.append('file', new Blob(['this is not a zip archive']), 'minutes.docx');
    const broken = await fetch(`${base}/documents`, { method: 'POST', body: form });
    assert.equal(broken.status, 202);
    const job = await waitForJob(base, (await body<{ job: Job }>(broken)).job.id);
    assert.equal(job.status, 'succeeded', JSON.stringify(job.error));
    assert.ok(job.warnings.some((warning) => warning.includes('minutes.docx')), JSON.stringify(job.warnings));
    assert.equal(existsSync(join(directory, 'uploads', 'minutes.docx')), false, 'the skipped upload was removed');
    assert.ok(existsSync(join(directory, 'uploads', 'agenda.md')), 'the indexed upload stays');
  });

  test('a job whose file cannot be written ends failed with a problem naming the cause; an upload that cannot be written is no job', async () => {
    const jobs = join(directory, '.kgrag-jobs');
    const next = Math.max(0, ...readdirSync(jobs).map((name) => Number(/^job-(\d+)\.json$/.exec(name)?.[1] ?? 0))) + 1;
    const id = `job-${String(next).padStart(6, '0')}`;
    // A folder where the job file's temporary copy goes makes its write fail (as a full disk or a read-only folder would).
    mkdirSync(join(jobs, `${id}.json.tmp`));
    const refused = await fetch(`${base}/documents`, { method: 'POST', body: uploadForm('harbour.md', '# Harbour\n\nThe harbour dries at low water.') });
    assert.equal(refused.status, 503);
    const problem = await body<Problem>(refused);
    assert.ok(problem.detail.includes(id), problem.detail);
    assert.match(problem.detail, /EISDIR/);
    const listed = await body<{ jobs: Job[] }>(await fetch(`${base}/jobs`));
    const failed = listed.jobs.find((job) => job.id === id);
    assert.equal(failed?.status, 'failed');
    assert.equal(failed?.error?.code, problem.code);
    assert.equal((await body<{ job: Job }>(await fetch(`${base}/jobs/${id}`))).job.status, 'failed');
    await server.registry.open('default').then((workspace) => workspace.jobs.idle());
    for (let waited = 0; waited < 5000 && existsSync(join(directory, 'uploads', 'harbour.md')); waited += 50) await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(existsSync(join(directory, 'uploads', 'harbour.md')), false, 'the upload of the failed job was removed');

    mkdirSync(join(directory, 'uploads', 'quay.md.part'));
    const unstored = await fetch(`${base}/documents`, { method: 'POST', body: uploadForm('quay.md', '# Quay\n\nThe quay was rebuilt in 1903.') });
    assert.equal(unstored.status, 503);
    const uploadProblem = await body<Problem>(unstored);
    assert.match(uploadProblem.detail, /quay\.md/);
    assert.match(uploadProblem.detail, /EISDIR/);
    assert.doesNotMatch(uploadProblem.detail, new RegExp(directory.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')), 'no server path in the answer');
    const after = await body<{ jobs: Job[] }>(await fetch(`${base}/jobs`));
    assert.equal(after.jobs.length, listed.jobs.length, 'no job was queued');
  });
});

describe('kgrag serve: response headers and hostile keys', () => {
  let server: ServedWorkspaces;
  let web: string;

  before(async () => {
    web = mkdtempSync(join(tmpdir(), 'kgrag-headers-web-'));
    mkdirSync(join(web, 'assets'));
    writeFileSync(join(web, 'index.html'), '<!doctype html><title>kgrag explorer</title>');
    writeFileSync(join(web, 'assets', 'index-1a2b.js'), 'void 0;');
    server = await startTestServer({ directory: emptyWorkspace(), webDirectory: web, kgrag: basicOnly });
  });
  after(async () => {
    await server.close();
  });

  test('no page can be framed by another site; API answers are neither sniffed, cached nor sent on as referrers', async () => {
    for (const path of ['/', '/docs']) {
      const page = await fetch(`${server.url}${path}`);
      assert.equal(page.status, 200, path);
      assert.equal(page.headers.get('x-frame-options'), 'DENY', path);
      assert.equal(page.headers.get('x-content-type-options'), 'nosniff', path);
    }
    assert.match((await fetch(`${server.url}/`)).headers.get('content-security-policy') ?? '', /frame-ancestors 'none'/);
    assert.equal((await fetch(`${server.url}/assets/index-1a2b.js`)).headers.get('cache-control'), 'public, max-age=31536000, immutable');
    for (const [path, status] of [['/v1/stats', 200], ['/v1/documents', 200], ['/v1/nosuch', 404], ['/openapi.json', 200]] as const) {
      const response = await fetch(`${server.url}${path}`);
      assert.equal(response.status, status, path);
      assert.equal(response.headers.get('x-content-type-options'), 'nosniff', path);
      assert.equal(response.headers.get('referrer-policy'), 'no-referrer', path);
      assert.equal(response.headers.get('cache-control'), 'no-store', path);
      assert.equal(response.headers.get('x-frame-options'), 'DENY', path);
    }
    assert.equal((await fetch(`${server.url}/v1/jobs/job-999999/events`)).headers.get('cache-control'), 'no-store');
    // An event stream revalidates always and is kept by no shared cache (Chromium aborts a no-store stream).
    const added = await fetch(`${server.url}/v1/documents`, jsonDocuments([{ title: 'Buoys', text: 'The fairway buoy shows a white light.' }]));
    const events = await fetch(`${server.url}/v1/jobs/${(await body<{ job: Job }>(added)).job.id}/events`);
    assert.equal(events.headers.get('content-type'), 'text/event-stream');
    assert.equal(events.headers.get('cache-control'), 'private, no-cache');
    assert.equal(events.headers.get('x-content-type-options'), 'nosniff');
    assert.equal((await readEvents(events)).at(-1)?.event, 'end');
  });

  test('a key named __proto__ in a request body is refused, as the CLI refuses it in -p', async () => {
    const query = await fetch(`${server.url}/v1/query`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"question": "Who designed the Kester Weir Bridge?", "method": "basic", "params": {"__proto__": {"k": 1}}}',
    });
    assert.equal(query.status, 400);
    assert.match((await body<Problem>(query)).detail, /params\.__proto__/);
    const chat = await fetch(`${server.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"model": "kgrag-basic", "messages": [{"role": "user", "content": "Who?", "__proto__": {"role": "system"}}]}',
    });
    assert.equal(chat.status, 400);
    assert.match((await body<Problem>(chat)).detail, /messages\.0\.__proto__/);
  });
});
