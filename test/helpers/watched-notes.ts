import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Temporary folders of a test file, removed together by `removeAll` (in its `after`). */
export function temporaryFolders(): { make(prefix: string): string; removeAll(): void } {
  const folders: string[] = [];
  return {
    make(prefix) {
      const folder = mkdtempSync(join(tmpdir(), prefix));
      folders.push(folder);
      return folder;
    },
    removeAll() {
      for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
    },
  };
}

/** Writes a markdown note `# title` with one paragraph: the files the watch tests add, edit, rename and delete. */
export function writeNote(folder: string, name: string, title: string, text: string): void {
  writeFileSync(join(folder, name), `# ${title}\n\n${text}\n`);
}
