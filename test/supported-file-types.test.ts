import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileFormatOf, supportedFileTypes, supportedFileTypesText } from '../src/text/load/file-format.js';
import { runCliCaptured } from './helpers/run-cli-captured.js';

// Issue 41: the file types kgrag reads are listed the same everywhere.
test('every surface lists the same file types, and each of them is one kgrag reads', async () => {
  for (const type of supportedFileTypes) {
    const format = fileFormatOf(`document.${type}`);
    assert.ok(format.kind !== 'unsupported' && format.kind !== 'unknown', type);
  }
  // The explorer cannot import src/: its drop zone's list is held to this one here.
  const dropZone = readFileSync(new URL('../web/src/components/documents-drop-zone.tsx', import.meta.url), 'utf8');
  const listed = /export const uploadFormats = \[([^\]]*)\]/.exec(dropZone)?.[1]?.match(/'([a-z]+)'/g)?.map((quoted) => quoted.slice(1, -1));
  assert.deepEqual(listed, [...supportedFileTypes]);
  const help = await runCliCaptured(['index', '--help'], { cwd: process.cwd() });
  assert.ok(help.stdout.includes(`(${supportedFileTypesText})`), help.stdout);
  const scratch = mkdtempSync(join(tmpdir(), 'kgrag-file-types-'));
  try {
    const nothing = await runCliCaptured(['index', join(scratch, 'no-such-file.md'), '-w', join(scratch, 'ws')], { cwd: scratch });
    assert.match(nothing.stderr, new RegExp(`kgrag reads ${supportedFileTypesText} files`));
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
});
