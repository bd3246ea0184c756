import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { runCliCaptured } from './helpers/run-cli-captured.js';

/*
 * Issue 16, hostile inputs: file names that carry terminal escapes and line breaks, a folder nested past
 * PATH_MAX, malformed and ragged CSV rows, a workspace that is a file, and key paths that reach a prototype.
 * One folder holds the hostile files; one index run and a query check what is printed and what is kept.
 */

const root = mkdtempSync(join(tmpdir(), 'kgrag-reliability-input-'));
// rm walks folders relative to each other; Node's rmSync would need the over-long absolute paths.
after(() => spawnSync('rm', ['-rf', root]));
const corpus = join(root, 'corpus');
const workspace = join(root, 'ws');

/** ESC ] 0 ; … BEL sets the terminal's title; ESC [ 31 m turns the text red; the line break splits a line. */
const evilName = 'river\u001b]0;pwned\u0007\nnotes.txt';
const evilEmptyName = 'empty\u001b[31mred\u202e.txt';
const longName = 'd'.repeat(250);
/** 17 folders of 250 characters: deeper than Linux's 4096-byte PATH_MAX wherever the test runs. */
const depth = 17;

interface IndexSummary {
  documents: number;
  warnings: Array<{ file?: string; step: string; code: string; message: string }>;
}

/** Builds the folder chain with relative paths in a child process: no absolute path may be that long. */
function makeDeepTree(parent: string): void {
  const script = `const fs = require('node:fs');
for (let level = 0; level < ${depth}; level++) { fs.mkdirSync(${JSON.stringify(longName)}); process.chdir(${JSON.stringify(longName)}); }
fs.writeFileSync('deep.txt', 'The deepest note mentions the Zanthor caves.');`;
  const result = spawnSync(process.execPath, ['-e', script], { cwd: parent, encoding: 'utf8' });
  assert.equal(result.status, 0, result.stderr);
}

let index: { code: number; stdout: string; stderr: string };
let summary: IndexSummary;

before(async () => {
  mkdirSync(join(corpus, 'deep'), { recursive: true });
  writeFileSync(join(corpus, evilName), 'The Zorblax river flows north through Quenton.\n');
  writeFileSync(join(corpus, evilEmptyName), '');
  writeFileSync(join(corpus, 'plain.txt'), 'Quenton is a market town on the Zorblax river.\n');
  writeFileSync(
    join(corpus, 'people.csv'),
    [
      'id,title,text',
      '1,Ada,Ada keeps the Quenton lighthouse.',
      '2,Bram,Bram sells rope, nets and lamps,in the harbour',
      '3,Cleo',
      '4,Dov,"Dov rows the ferry across the Zorblax.',
      '5,Eve,Eve is swallowed by the open quote above.',
      '',
    ].join('\n'),
  );
  makeDeepTree(join(corpus, 'deep'));
  index = await runCliCaptured(['index', corpus, '-w', workspace, '--json'], { cwd: root });
  assert.equal(index.code, 0, index.stderr);
  summary = JSON.parse(index.stdout) as IndexSummary;
});

describe('hostile inputs', () => {
  test('control characters in file names are escaped on the terminal and kept in --json', async () => {
    assert.doesNotMatch(index.stderr, /[\u001b\u0007\u202e]/, 'no raw escape reaches stderr');
    const warningLine = index.stderr.split('\n').find((line) => line.includes('empty')) ?? '';
    assert.match(warningLine, /^warning: .*empty\\e\[31mred\\u202e\.txt is empty/);
    const empty = summary.warnings.find((warning) => warning.code === 'empty');
    assert.equal(empty?.file, join(corpus, evilEmptyName), '--json keeps the true name');

    const answer = await runCliCaptured(['query', 'Which river flows north through Quenton?', '-w', workspace, '-m', 'basic:bm25', '-k', '1'], { cwd: root });
    assert.equal(answer.code, 0, answer.stderr);
    assert.doesNotMatch(answer.stdout, /[\u001b\u0007]/);
    const sources = answer.stdout.split('\n').slice(answer.stdout.split('\n').indexOf('Sources:') + 1);
    assert.match(sources[0] ?? '', /^ {2}\[\d+\] river\\e\]0;pwned\\x07\\nnotes \(.*river\\e\]0;pwned\\x07\\nnotes\.txt\)$/, 'one Sources line per source');
    assert.equal(sources[1], '', 'the file name did not split its line');
    const json = await runCliCaptured(['query', 'Which river flows north through Quenton?', '-w', workspace, '-m', 'basic:bm25', '-k', '1', '--json'], { cwd: root });
    const result = JSON.parse(json.stdout) as { citations: Array<{ source?: string }> };
    assert.equal(result.citations[0]?.source, join(corpus, evilName));
  });

  test('the --json summary lists every skipped file with its code and why', () => {
    assert.ok(summary.warnings.length >= 4, JSON.stringify(summary.warnings, null, 2));
    for (const warning of summary.warnings) {
      assert.ok(warning.file !== undefined && warning.file.startsWith(corpus), `names its file: ${JSON.stringify(warning)}`);
      assert.equal(warning.step, 'load');
      assert.ok(warning.message.length > 0 && warning.code.length > 0);
    }
    assert.equal(index.stderr.split('\n').filter((line) => line.startsWith('warning: ')).length, summary.warnings.length, 'one line on stderr per warning');
  });

  test('a folder nested past PATH_MAX gets one warning naming it, and the rest is indexed', () => {
    const tooDeep = summary.warnings.filter((warning) => warning.code === 'path-too-long');
    assert.equal(tooDeep.length, 1, JSON.stringify(summary.warnings.map((warning) => warning.code)));
    const folder = tooDeep[0]?.file ?? '';
    assert.ok(folder.startsWith(join(corpus, 'deep', longName)) && folder.endsWith(longName), 'names the folder');
    assert.ok(Buffer.byteLength(folder) > 4096);
    assert.match(tooDeep[0]?.message ?? '', /nested too deep: its path is \d+ bytes, longer than the system allows \(PATH_MAX\), so it and everything in it were skipped/);
  });

  test('malformed and ragged CSV rows are reported as what they are, naming the file, rows and lines', () => {
    const csv = summary.warnings.filter((warning) => warning.file === join(corpus, 'people.csv'));
    const messages = csv.map((warning) => warning.message).join('\n');
    assert.ok(csv.every((warning) => warning.code === 'parse-error'), messages);
    assert.doesNotMatch(messages, /has no text/, 'no misleading "no text" warning');
    assert.match(messages, /row 4 has a quoted field, starting on line 5, that is never closed: it runs to the end of the file \(lines 5–6\), so that row was skipped/);
    assert.match(messages, /row 2 \(line 3\) has 5 cells but the header has 3 columns, so it was skipped/);
    assert.match(messages, /row 3 \(line 4\) has 2 cells but the header has 3 columns, so its text is missing and it was skipped/);
    // plain.txt, the river notes, Ada; the deep file is out of reach.
    assert.equal(summary.documents, 3);
  });
});

describe('hostile options', () => {
  test('a workspace that is a regular file is named as such', async () => {
    const file = join(root, 'not-a-folder.txt');
    writeFileSync(file, 'text');
    const run = await runCliCaptured(['query', 'anything', '-w', file], { cwd: root });
    assert.equal(run.code, 1);
    assert.match(run.stderr, /kgrag: error: the workspace ".*not-a-folder\.txt" is a file, not a folder — pass a folder as the workspace/);
    assert.doesNotMatch(run.stderr, /invalid configuration/);
  });

  test('--set and -p refuse key paths that reach a prototype, naming the key', async () => {
    for (const [flag, pair, part] of [
      ['--set', '__proto__.x=1', '__proto__'],
      ['--set', 'constructor.prototype.polluted=1', 'constructor'],
      ['--set', 'llm.prototype=1', 'prototype'],
      ['-p', '__proto__.topK=1', '__proto__'],
    ] as const) {
      const run = await runCliCaptured(['query', 'anything', '-w', workspace, flag, pair], { cwd: root });
      assert.equal(run.code, 1, `${flag} ${pair}`);
      assert.ok(run.stderr.includes(`kgrag: error: ${flag} "${pair}": "${part}" cannot be part of a key`), run.stderr);
    }
    assert.equal(({} as Record<string, unknown>)['polluted'], undefined);
  });

  test('a __proto__ key in kgrag.yaml is an unknown key, not silently dropped', async () => {
    const folder = join(root, 'proto-yaml');
    mkdirSync(folder);
    writeFileSync(join(folder, 'kgrag.yaml'), '__proto__:\n  chunking:\n    size: 5\n');
    const run = await runCliCaptured(['query', 'anything', '-w', folder], { cwd: root });
    assert.equal(run.code, 1);
    assert.match(run.stderr, /__proto__: unknown key \(set in .*kgrag\.yaml\)/);
  });
});
