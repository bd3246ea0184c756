import assert from 'node:assert/strict';
import { chmod, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { minimalDocx } from '../../../test/fixtures/text/minimal-docx.js';
import { minimalPdf } from '../../../test/fixtures/text/minimal-pdf.js';
import { inputConfigSchema } from '../../core/config/config-schema.js';
import { type LoadDocumentsOptions, type LoadEvent, loadDocuments } from './load-documents.js';
import type { LoadedDocument, LoadWarning } from './load-types.js';

const defaults: LoadDocumentsOptions = {
  include: ['**/*.{txt,md,markdown,html,htm,pdf,json,jsonl,ndjson,csv}'],
  exclude: ['**/node_modules/**', '**/.git/**', '**/.*/**'],
  maxFileMegabytes: 512,
};

async function collect(paths: string[], options: Partial<LoadDocumentsOptions> = {}): Promise<LoadEvent[]> {
  const events: LoadEvent[] = [];
  for await (const event of loadDocuments(paths, { ...defaults, ...options })) events.push(event);
  return events;
}

const documentsOf = (events: LoadEvent[]): LoadedDocument[] =>
  events.flatMap((event) => (event.type === 'document' ? [event.document] : []));
const warningsOf = (events: LoadEvent[]): LoadWarning[] =>
  events.flatMap((event) => (event.type === 'warning' ? [event.warning] : []));

describe('loadDocuments', () => {
  let root: string;
  let corpus: string;

  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'kgrag-load-'));
    corpus = join(root, 'corpus');
    const files: Record<string, string | Uint8Array> = {
      'b-notes.md': '---\ntitle: Notes\n---\n# Heading\n\nBody text.',
      'a-intro.txt': 'Introduction text.\r\n',
      'sub/page.html': '<html><head><title>Page</title></head><body><main><p>Main text.</p></main></body></html>',
      'sub/paper.pdf': minimalPdf([['PDF text.']]),
      'sub/data.jsonl': '{"id": 1, "text": "Record one."}\n{"id": 2, "text": "Record two."}\n',
      'sub/drafts/draft.md': 'Draft text.',
      'sub/ignored.rst': 'Not included by the globs.',
      '.hidden/secret.md': 'Hidden text.',
      'node_modules/pkg/readme.md': 'Dependency text.',
      'broken/empty.txt': '',
      'broken/image.txt': new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d, 0x49, 0x48, 0x44, 0x52]),
      'broken/latin1.txt': new Uint8Array([0x63, 0x61, 0x66, 0xe9]),
      'broken/utf16.txt': new Uint8Array([0xff, 0xfe, 0x68, 0x00, 0x69, 0x00]),
    };
    for (const [path, content] of Object.entries(files)) {
      await mkdir(join(corpus, path, '..'), { recursive: true });
      await writeFile(join(corpus, path), content);
    }
    await symlink(corpus, join(corpus, 'sub', 'loop'));
    await symlink(join(corpus, 'a-intro.txt'), join(corpus, 'sub', 'intro-link.txt'));
    await symlink(join(corpus, 'missing.txt'), join(corpus, 'sub', 'dangling.txt'));
    await writeFile(join(root, 'README'), 'Explicit file without extension.');
    await writeFile(join(root, 'report.pptx'), new Uint8Array([0x50, 0x4b, 0x03, 0x04, 0x14, 0x00]));
    await writeFile(join(root, 'blob.bin'), new Uint8Array([0x00, 0x01, 0x02, 0x03]));
  });

  after(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('walks folders in sorted order, honours include and exclude globs, and skips dot folders', async () => {
    const events = await collect([corpus], { exclude: [...defaults.exclude, '**/drafts/**'] });
    const sources = documentsOf(events).map((document) => document.source.slice(root.length + 1));
    assert.deepEqual(sources, [
      'corpus/a-intro.txt',
      'corpus/b-notes.md',
      'corpus/broken/latin1.txt',
      'corpus/broken/utf16.txt',
      'corpus/sub/data.jsonl#1',
      'corpus/sub/data.jsonl#2',
      'corpus/sub/page.html',
      'corpus/sub/paper.pdf',
    ]);
    const texts = Object.fromEntries(documentsOf(events).map((document) => [document.source.slice(corpus.length + 1), document.text]));
    assert.equal(texts['a-intro.txt'], 'Introduction text.');
    assert.equal(texts['broken/latin1.txt'], 'café');
    assert.equal(texts['broken/utf16.txt'], 'hi');
    assert.equal(texts['sub/paper.pdf'], 'PDF text.');
    assert.deepEqual(
      warningsOf(events).map((warning) => [warning.code, warning.source.slice(corpus.length + 1)]),
      [
        ['empty', 'broken/empty.txt'],
        ['binary', 'broken/image.txt'],
        ['invalid-utf8', 'broken/latin1.txt'],
        ['not-found', 'sub/dangling.txt'],
      ],
    );
  });

  it('with the default globs, a folder\'s .tsv and .docx are loaded and office files kgrag cannot read each get a warning', async () => {
    const folder = join(root, 'office');
    await mkdir(folder, { recursive: true });
    await writeFile(join(folder, 'people.tsv'), 'title\ttext\nAda Marsh\tShe designed the bridge, in 1936.\n');
    await writeFile(join(folder, 'report.docx'), minimalDocx('<w:p><w:r><w:t>Report text.</w:t></w:r></w:p>', { title: 'Report' }));
    await writeFile(join(folder, 'old.doc'), new Uint8Array([0xd0, 0xcf, 0x11, 0xe0]));
    await writeFile(join(folder, 'sheet.xlsx'), new Uint8Array([0x50, 0x4b, 0x03, 0x04]));
    await writeFile(join(folder, 'server.key'), 'not a Keynote file');
    const { include, exclude, maxFileMegabytes } = inputConfigSchema.parse({});
    const events = await collect([folder], { include, exclude, maxFileMegabytes });
    assert.deepEqual(
      documentsOf(events).map((document) => [document.source.slice(folder.length + 1), document.title, document.text]),
      [
        ['people.tsv#1', 'Ada Marsh', 'She designed the bridge, in 1936.'],
        ['report.docx', 'Report', 'Report text.'],
      ],
    );
    assert.deepEqual(
      warningsOf(events).map((warning) => [warning.code, warning.source.slice(folder.length + 1)]),
      [
        ['unsupported-type', 'old.doc'],
        ['unsupported-type', 'sheet.xlsx'],
      ],
    );
    assert.match(warningsOf(events)[0]?.message ?? '', /old\.doc is a Word 97–2003 document, which kgrag cannot read, so it was skipped; save it as PDF, Markdown \(\.md\) or plain text \(\.txt\)/);
  });

  it('uses the path as given, joined with /, in sources', async () => {
    const relative = await collect([`${corpus}/sub/`], { include: ['*.html'] });
    assert.deepEqual(
      documentsOf(relative).map((document) => document.source),
      [`${corpus}/sub/page.html`],
    );
  });

  it('loads an explicitly named file whatever its extension, if it is text', async () => {
    const events = await collect([join(root, 'README'), join(root, 'blob.bin'), join(root, 'report.pptx')]);
    assert.deepEqual(
      documentsOf(events).map((document) => [document.title, document.text]),
      [['README', 'Explicit file without extension.']],
    );
    assert.deepEqual(
      warningsOf(events).map((warning) => warning.code),
      ['binary', 'unsupported-type'],
    );
  });

  it('warns about a missing path with a hint about the current directory', async () => {
    const events = await collect(['no/such/folder']);
    const warning = warningsOf(events)[0];
    assert.equal(warning?.code, 'not-found');
    assert.equal(warning?.source, 'no/such/folder');
    assert.match(warning?.message ?? '', /no\/such\/folder.*current directory/);
  });

  it('skips files over the size limit', async () => {
    const events = await collect([join(corpus, 'a-intro.txt')], { maxFileMegabytes: 0.00001 });
    assert.deepEqual(documentsOf(events), []);
    assert.equal(warningsOf(events)[0]?.code, 'too-large');
    assert.match(warningsOf(events)[0]?.message ?? '', /input\.maxFileMegabytes/);
  });

  it('follows links but visits each file and folder once, so link loops end', async () => {
    const events = await collect([join(corpus, 'sub'), join(corpus, 'a-intro.txt'), join(corpus, 'sub')], { include: ['**/*.txt'] });
    const sources = documentsOf(events).map((document) => document.source.slice(corpus.length + 1));
    assert.deepEqual(sources, ['sub/intro-link.txt', 'sub/loop/broken/latin1.txt', 'sub/loop/broken/utf16.txt']);
  });

  it('reports progress per file up to the totals', async () => {
    const events = await collect([corpus]);
    const progress = events.flatMap((event) => (event.type === 'progress' ? [event] : []));
    assert.ok(progress.length > 5);
    for (const [index, event] of progress.entries()) {
      assert.equal(event.files, index + 1);
      assert.equal(event.totalFiles, progress.length);
      assert.ok(event.bytes <= event.totalBytes);
    }
    assert.equal(progress.at(-1)?.bytes, progress.at(-1)?.totalBytes);
  });

  it('gives the same events on every run', async () => {
    assert.deepEqual(await collect([corpus, root]), await collect([corpus, root]));
  });

  it('loads a multi-megabyte text file', async () => {
    const big = join(root, 'big.txt');
    await writeFile(big, 'The graph has nodes and edges. '.repeat(100_000));
    const events = await collect([big]);
    assert.equal(documentsOf(events)[0]?.text.length, 'The graph has nodes and edges. '.length * 100_000 - 1);
    assert.equal(events.at(-1)?.type, 'progress');
  });

  it('stops when the signal is aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    await assert.rejects(collect([corpus], { signal: controller.signal }), { name: 'AbortError' });
  });

  it('cuts metadata nested past 32 levels with one warning per file, and loads every document', async () => {
    const folder = join(root, 'nested');
    await mkdir(folder, { recursive: true });
    const deepJson = `${'['.repeat(5_000)}1${']'.repeat(5_000)}`;
    await writeFile(join(folder, 'front.md'), `---\ntitle: Front\nkeep: 1\nlevels: ${'['.repeat(40)}1${']'.repeat(40)}\n---\nBody text.`);
    await writeFile(
      join(folder, 'records.json'),
      JSON.stringify([{ id: 'a', text: 'Shallow.' }, { id: 'b', text: 'Deep.', m: 0 }, { id: 'c', text: 'Deep too.', m: 0 }]).replaceAll('"m":0', `"m":${deepJson}`),
    );
    const events = await collect([folder]);
    assert.deepEqual(
      documentsOf(events).map((document) => document.source.slice(folder.length + 1)),
      ['front.md', 'records.json#a', 'records.json#b', 'records.json#c'],
    );
    for (const document of documentsOf(events)) assert.ok(JSON.stringify(document.metadata).length < 400, document.source);
    assert.equal(documentsOf(events)[0]?.metadata['keep'], 1);
    assert.deepEqual(
      warningsOf(events).map((warning) => [warning.code, warning.message]),
      [
        ['too-deep', `${folder}/front.md: its metadata nests deeper than 32 levels, so the deeper values were replaced by null and the rest was indexed; flatten those fields if you need it whole.`],
        ['too-deep', `${folder}/records.json: the metadata of records #b, #c nest deeper than 32 levels, so the deeper values were replaced by null and the rest was indexed; flatten those fields if you need them whole.`],
      ],
    );
  });

  it('skips a file nested too deeply to read, saying so, and loads the others', async () => {
    const folder = join(root, 'deep-html');
    await mkdir(folder, { recursive: true });
    await writeFile(join(folder, 'deep.html'), `<html><body>${'<div>'.repeat(5_000)}Deep text.${'</div>'.repeat(5_000)}</body></html>`);
    await writeFile(join(folder, 'plain.txt'), 'Plain text.');
    const events = await collect([folder]);
    assert.deepEqual(documentsOf(events).map((document) => document.text), ['Plain text.']);
    assert.deepEqual(
      warningsOf(events).map((warning) => [warning.code, warning.message]),
      [['parse-error', `${folder}/deep.html nests too deeply to be read (thousands of levels of elements or fields), so it was skipped; flatten its structure.`]],
    );
  });

  it('warns about unreadable files', { skip: process.getuid?.() === 0 ? 'root can read any file' : false }, async () => {
    const locked = join(root, 'locked.txt');
    await writeFile(locked, 'secret');
    await chmod(locked, 0o000);
    const events = await collect([locked]);
    assert.equal(warningsOf(events)[0]?.code, 'unreadable');
  });
});
