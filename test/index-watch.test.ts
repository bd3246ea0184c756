import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, readdirSync, renameSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { createKgrag } from '../src/api/create-kgrag.js';
import { watchPaths } from '../src/core/watch-paths.js';
import { defaultWatchDebounceMs, watchDebounceMs } from '../src/cli/watch-debounce-ms.js';
import { nodeScriptArgs } from './helpers/node-script.js';
import { temporaryFolders, writeNote } from './helpers/watched-notes.js';

/*
 * `kgrag index <folder> --watch` (issue 38): after the first run it follows the folder and runs one update per quiet
 * period, pruning what is gone. These tests use real files, Node's recursive fs.watch and a real CLI child process.
 */

const cli = new URL('../src/cli/main.ts', import.meta.url).pathname;
const folders = temporaryFolders();
after(() => folders.removeAll());
const temporary = (prefix: string): string => folders.make(prefix);

describe('a renamed file', () => {
  it('keeps its document, which takes the new source (it used to keep the old, missing path)', async () => {
    const workspace = temporary('kgrag-rename-');
    const docs = join(workspace, 'docs');
    mkdirSync(docs);
    writeNote(docs, 'a.md', 'Weir', 'The weir at Kestermouth was rebuilt in 1911 after the flood.');
    writeNote(docs, 'b.md', 'Ferry', 'The ferry crossed the Kester until the bridge opened.');
    const kgrag = await createKgrag({ workspace, env: {}, config: { pipeline: { methods: ['basic'] } } });
    try {
      await kgrag.index([docs], { prune: true });
      const [before] = (await kgrag.documents()).filter((document) => document.title === 'Weir');
      renameSync(join(docs, 'a.md'), join(docs, 'renamed.md'));
      const summary = await kgrag.index([docs], { prune: true });
      const documents = await kgrag.documents();
      assert.deepEqual(documents.map((document) => document.source).sort(), [join(docs, 'b.md'), join(docs, 'renamed.md')]);
      const [moved] = documents.filter((document) => document.title === 'Weir');
      assert.equal(moved?.id, before?.id, 'the same title and text are the same document');
      assert.equal(summary.counts['load']?.['moved'], 1);
      assert.ok(!summary.ran.includes('chunk'), 'a move changes no chunk: the steps after load are up to date');
    } finally {
      await kgrag.close();
    }
  });
});

describe('watchPaths', () => {
  it('hands out a burst of a thousand file events as one batch, and leaves out ignored paths', async () => {
    const folder = temporary('kgrag-watch-');
    const stop = new AbortController();
    const batches = watchPaths([folder], { debounceMs: 300, signal: stop.signal, ignore: (path) => path.endsWith('.ignored') });
    const first = batches.next();
    // Watching starts when the generator first runs.
    await new Promise((resolve) => setTimeout(resolve, 100));
    writeFileSync(join(folder, 'x.ignored'), 'not a change');
    for (let file = 0; file < 500; file++) writeFileSync(join(folder, `note-${file}.txt`), `note ${file}`);
    for (let file = 0; file < 500; file++) writeFileSync(join(folder, `note-${file}.txt`), `note ${file}, edited`);
    const batch = await first;
    assert.equal(batch.done, false);
    assert.equal(batch.value?.paths.length, 500, 'one batch names each file once');
    assert.ok((batch.value?.events ?? 0) >= 500, `at least one event per file (${batch.value?.events}; Linux merges events of a file written twice in a row)`);
    assert.ok(!batch.value?.paths.some((path) => path.endsWith('.ignored')));
    stop.abort();
    assert.equal((await batches.next()).done, true, 'an abort ends the watch');
  });

  it("hands out an editor's save as one batch with the default quiet period, which is half a second", async () => {
    assert.equal(watchDebounceMs(undefined), defaultWatchDebounceMs);
    assert.equal(defaultWatchDebounceMs, 500, 'an update waits half a second after a save, not two');
    const folder = temporary('kgrag-watch-');
    writeFileSync(join(folder, 'notes.md'), 'first draft');
    const stop = new AbortController();
    let watching!: () => void;
    const ready = new Promise<void>((resolve) => (watching = resolve));
    const batches = watchPaths([folder], { debounceMs: defaultWatchDebounceMs, signal: stop.signal, onWatching: () => watching() });
    const first = batches.next();
    await ready;
    // Node's recursive watch on Linux takes its first events a moment after it is set up (as in the test above).
    await new Promise((resolve) => setTimeout(resolve, 100));
    // A safe save: a backup copy, the new text written to a temporary file and renamed over the file, its time set.
    writeFileSync(join(folder, 'notes.md~'), 'first draft');
    writeFileSync(join(folder, '.notes.md.tmp'), 'second draft');
    renameSync(join(folder, '.notes.md.tmp'), join(folder, 'notes.md'));
    utimesSync(join(folder, 'notes.md'), new Date(), new Date());
    rmSync(join(folder, 'notes.md~'));
    const batch = await first;
    // The temporary files may be gone before Node's watcher looks at them; the saved file is the change.
    assert.ok(batch.value?.paths.includes(join(folder, 'notes.md')), JSON.stringify(batch.value));
    const second = batches.next();
    const quiet = await Promise.race([second.then(() => 'another batch'), new Promise((resolve) => setTimeout(() => resolve('quiet'), 2 * defaultWatchDebounceMs))]);
    assert.equal(quiet, 'quiet', 'the save was one batch');
    stop.abort();
    assert.equal((await second).done, true);
  });

  it('follows a watched folder that is deleted and made again (a checkout of a branch without it, a build that recreates it)', { timeout: 20_000 }, async () => {
    const parent = join(temporary('kgrag-watch-'), 'notes');
    const folder = join(parent, 'docs');
    mkdirSync(join(folder, 'sub'), { recursive: true });
    const stop = new AbortController();
    let watching!: () => void;
    const ready = new Promise<void>((resolve) => (watching = resolve));
    const batches = watchPaths([folder], { debounceMs: 200, signal: stop.signal, onWatching: () => watching() });
    const first = batches.next();
    try {
      await ready;
      await new Promise((resolve) => setTimeout(resolve, 100));
      rmSync(folder, { recursive: true });
      assert.ok((await first).value?.paths.includes(folder), 'the folder gone is a change of the folder');
      const second = batches.next();
      mkdirSync(folder);
      writeNote(folder, 'back.md', 'Back', 'The notes came back.');
      const back = await Promise.race([second, new Promise<'missed'>((resolve) => setTimeout(() => resolve('missed'), 5_000))]);
      assert.notEqual(back, 'missed', 'the folder made again is seen');
      const paths: string[] = back === 'missed' ? [] : (back.value?.paths ?? []);
      assert.ok(paths.some((path) => path === folder || path.startsWith(`${folder}/`)), JSON.stringify(back));
      // And watched as before: a file written into it is a change.
      const third = batches.next();
      await new Promise((resolve) => setTimeout(resolve, 300));
      writeNote(folder, 'later.md', 'Later', 'Written after the folder came back.');
      const later = await Promise.race([third, new Promise<'missed'>((resolve) => setTimeout(() => resolve('missed'), 5_000))]);
      assert.ok(later !== 'missed' && later.value?.paths.includes(join(folder, 'later.md')), JSON.stringify(later));
      // Its parent deleted too, then both made again: followed down, folder by folder.
      const fourth = batches.next();
      rmSync(parent, { recursive: true });
      assert.ok((await fourth).value?.paths.includes(folder));
      const fifth = batches.next();
      await new Promise((resolve) => setTimeout(resolve, 100));
      mkdirSync(parent);
      await new Promise((resolve) => setTimeout(resolve, 100));
      mkdirSync(folder);
      writeNote(folder, 'again.md', 'Again', 'Back once more.');
      const again = await Promise.race([fifth, new Promise<'missed'>((resolve) => setTimeout(() => resolve('missed'), 5_000))]);
      assert.notEqual(again, 'missed', 'the folder made again under a parent made again is seen');
    } finally {
      // A generator left waiting keeps its watchers, and the test process, alive.
      stop.abort();
      await batches.return(undefined);
    }
  });

  it('says which path cannot be watched', async () => {
    const missing = join(temporary('kgrag-watch-'), 'nowhere');
    await assert.rejects(watchPaths([missing], { debounceMs: 10 }).next(), (error: Error & { code?: string }) => error.code === 'WATCH_PATH_MISSING' && error.message.includes(missing));
  });
});

/** One JSON line of `kgrag index --watch --json`: an update's result. */
interface WatchedUpdate {
  documents: number;
  pruned?: Array<{ source: string }>;
  moved?: Array<{ from: string; to: string }>;
  warnings?: Array<{ file?: string }>;
}

/** `kgrag <args>` (a watch) in a child process: its updates as they are printed, and waits for them. */
function watchInChild(args: string[]): {
  child: ChildProcess;
  lines: () => WatchedUpdate[];
  updates: (count: number) => Promise<void>;
  watching: () => Promise<void>;
  stderr: () => string;
  exit: Promise<number | null>;
} {
  const child = spawn(process.execPath, [...nodeScriptArgs(cli), ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^(KGRAG|OPENAI)_/.test(name))),
  });
  let stdout = '';
  let stderr = '';
  const waiters: Array<{ count: number; resolve: () => void }> = [];
  const lines = (): WatchedUpdate[] => stdout.split('\n').filter((line) => line.trim().length > 0).map((line) => JSON.parse(line) as WatchedUpdate);
  child.stdout!.on('data', (data: Buffer) => {
    stdout += data.toString();
    for (const waiter of waiters.splice(0)) (lines().length >= waiter.count ? waiter.resolve : () => waiters.push(waiter))();
  });
  child.stderr!.on('data', (data: Buffer) => (stderr += data.toString()));
  const exit = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  const updates = (count: number): Promise<void> =>
    lines().length >= count
      ? Promise.resolve()
      : Promise.race([
          new Promise<void>((resolve) => waiters.push({ count, resolve })),
          exit.then((code) => assert.fail(`kgrag exited (${code}) after ${lines().length} results:\n${stderr}`)),
          new Promise<void>((_, reject) => setTimeout(() => reject(new Error(`no result ${count} within 40 s; stdout:\n${stdout}\nstderr:\n${stderr}`)), 40_000).unref()),
        ]);
  // Files change only once the command says it watches them (a loaded machine can take seconds to get there).
  const watching = async (): Promise<void> => {
    while (!/^watching /m.test(stderr)) {
      if (child.exitCode !== null) assert.fail(`kgrag exited (${child.exitCode}) before watching:\n${stderr}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  return { child, lines, updates, watching, stderr: () => stderr, exit };
}

describe('kgrag index --watch', () => {
  // A missed file event would leave the test waiting for an update: it fails after a minute instead of hanging the suite.
  it('picks up an add, an edit, a rename and a delete, one update each, and stops on Ctrl-C between updates', { timeout: 60_000 }, async () => {
    const workspace = temporary('kgrag-watch-cli-');
    const docs = join(workspace, 'docs');
    mkdirSync(docs);
    writeNote(docs, 'weir.md', 'Weir', 'The weir at Kestermouth was rebuilt in 1911 after the flood.');
    writeNote(docs, 'ferry.md', 'Ferry', 'The ferry crossed the Kester until the bridge opened.');
    // Skipped with a warning by every update, which reads the whole folder: printed by the first only.
    writeFileSync(join(docs, 'scan.md'), Buffer.from([0, 1, 2, 3, 0, 255, 0, 7]));
    // The index file lies inside the watched folder's parent, the workspace; its writes are not changes.
    const { child, lines, updates, watching, stderr: output, exit } = watchInChild(['index', docs, '--watch', '--debounce', '200', '--methods', 'basic', '--json', '-w', workspace]);
    const sources = (): string[] => readdirSync(docs).filter((name) => name !== 'scan.md').map((name) => join(docs, name)).sort();
    try {
      await updates(1);
      assert.equal(lines()[0]?.documents, 2);
      await watching();

      writeNote(docs, 'bridge.md', 'Bridge', 'The Kester bridge opened in 1932.');
      await updates(2);
      assert.equal(lines()[1]?.documents, 3);

      writeNote(docs, 'bridge.md', 'Bridge', 'The Kester bridge opened in 1933, a year late.');
      await updates(3);
      assert.equal(lines()[2]?.documents, 3, 'an edit replaces the document');
      assert.deepEqual(lines()[2]?.pruned, [], 'the edited file is replaced by its source, not pruned');

      renameSync(join(docs, 'ferry.md'), join(docs, 'crossing.md'));
      await updates(4);
      assert.equal(lines()[3]?.documents, 3);
      // A renamed file keeps its document (same title and text): it moved, it was not removed.
      assert.deepEqual(lines()[3]?.pruned, [], 'a renamed file is not reported removed');
      assert.deepEqual(
        lines()[3]?.moved?.map(({ from, to }) => [from, to]),
        [[join(docs, 'ferry.md'), join(docs, 'crossing.md')]],
      );
      assert.doesNotMatch(output(), /removed \(--prune\): .*ferry\.md/);
      assert.match(output(), /moved: .*ferry\.md → .*crossing\.md "Ferry"/);

      rmSync(join(docs, 'weir.md'));
      await updates(5);
      assert.equal(lines()[4]?.documents, 2);
      assert.deepEqual(lines()[4]?.pruned?.map((document) => document.source), [join(docs, 'weir.md')]);

      child.kill('SIGINT');
      const stopped = await Promise.race([exit, new Promise<'running'>((resolve) => setTimeout(() => resolve('running'), 15_000).unref())]);
      assert.equal(stopped, 0, `after Ctrl-C; stderr:\n${output()}`);
      assert.match(output(), /stopped watching/);
      assert.equal(lines().length, 5, 'one update per change, none for the index files it wrote');
      assert.equal(output().match(/warning: .*scan\.md/g)?.length, 1, `the binary file's warning once, not once per update:\n${output()}`);
      for (const line of lines()) assert.ok(line.warnings?.some((warning) => warning.file === join(docs, 'scan.md')), 'every update lists it in its JSON');
      const kgrag = await createKgrag({ workspace, env: {} });
      try {
        assert.deepEqual((await kgrag.documents()).map((document) => document.source).sort(), sources());
        const answer = await kgrag.query('When did the Kester bridge open?', { method: 'basic', contextOnly: true });
        assert.ok(answer.context.chunks.some((chunk) => chunk.text.includes('1933')), 'the edit is what the index answers from');
      } finally {
        await kgrag.close();
      }
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('keeps watching when an update fails: the watched folder deleted, then made again', { timeout: 60_000 }, async () => {
    const workspace = temporary('kgrag-watch-cli-');
    const docs = join(workspace, 'docs');
    mkdirSync(docs);
    writeNote(docs, 'weir.md', 'Weir', 'The weir at Kestermouth was rebuilt in 1911 after the flood.');
    const { child, lines, updates, watching, stderr: output, exit } = watchInChild(['index', docs, '--watch', '--debounce', '200', '--methods', 'basic', '--json', '-w', workspace]);
    try {
      await updates(1);
      await watching();
      // Pruning every document would leave the index empty: that update fails, and the index keeps what it had.
      rmSync(docs, { recursive: true });
      while (!/still watching/.test(output())) {
        if (child.exitCode !== null) assert.fail(`kgrag stopped watching (${child.exitCode}):\n${output()}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      assert.match(output(), /kgrag: error: this run would remove all 1 documents/);
      mkdirSync(docs);
      writeNote(docs, 'ferry.md', 'Ferry', 'The ferry crossed the Kester until the bridge opened.');
      await updates(2);
      assert.equal(lines()[1]?.documents, 1);
      assert.deepEqual(lines()[1]?.pruned?.map((document) => document.source), [join(docs, 'weir.md')]);
      child.kill('SIGINT');
      assert.equal(await exit, 0, output());
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('refuses --watch without paths, and with --dry-run', async () => {
    const workspace = temporary('kgrag-watch-cli-');
    for (const args of [['index', '--watch'], ['index', workspace, '--watch', '--dry-run'], ['index', workspace, '--watch', '--debounce', 'soon']]) {
      const child = spawn(process.execPath, [...nodeScriptArgs(cli), ...args, '-w', workspace], { stdio: ['ignore', 'pipe', 'pipe'] });
      let stderr = '';
      child.stderr.on('data', (data: Buffer) => (stderr += data.toString()));
      const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
      assert.notEqual(code, 0, args.join(' '));
      assert.match(stderr, /--watch|--debounce/, stderr);
    }
  });
});
