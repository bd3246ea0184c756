import type { Dirent, Stats } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { basename, join, sep } from 'node:path';
import picomatch from 'picomatch';
import type { LoadWarning } from './load-types.js';
import { errorMessage } from '../../core/error-message.js';

/** A file to load. */
export interface InputFile {
  /** Path for the file system, relative to the current directory or absolute, as derived from the input. */
  path: string;
  /** Source of its documents: the input path joined with `/` to the path inside the folder. */
  source: string;
  fileName: string;
  bytes: number;
}

/** One step of the input, in load order: a file to load or a warning about a path that cannot be loaded. */
export type InputEntry = { type: 'file'; file: InputFile } | { type: 'warning'; warning: LoadWarning };

/** Options of {@link collectInputFiles}. */
export interface CollectInputFilesOptions {
  /** Globs, relative to each input folder, of the files to load from it. Explicitly named files skip them. */
  include: readonly string[];
  /** Globs, relative to each input folder, of files and folders to skip. */
  exclude: readonly string[];
  /** Files larger than this many MiB get a `too-large` warning instead of being loaded. */
  maxFileMegabytes: number;
  signal?: AbortSignal | undefined;
}

/**
 * Lists the files behind input paths, in a deterministic order: the paths in the order given, and each folder
 * walked depth-first with entries sorted by name (code-unit order, independent of locale). Files in folders
 * must match an `include` glob and no `exclude` glob; folders matching an exclude glob (`**\/node_modules/**`)
 * are not entered. Symbolic links are followed, but every file and folder is visited once (by device and
 * inode), so link loops end. Problems become warnings: `not-found`, `unreadable`, `too-large`, and
 * `path-too-long` for a file or folder nested deeper than the system's longest path (PATH_MAX).
 */
export async function collectInputFiles(paths: readonly string[], options: CollectInputFilesOptions): Promise<InputEntry[]> {
  const walker = new InputWalker(options);
  for (const path of paths) {
    options.signal?.throwIfAborted();
    await walker.addPath(path);
  }
  return walker.entries;
}

class InputWalker {
  readonly entries: InputEntry[] = [];
  private readonly visited = new Set<string>();
  private readonly included: (path: string) => boolean;
  private readonly excluded: (path: string) => boolean;
  private readonly excludedFolder: (path: string) => boolean;
  private readonly maxBytes: number;

  constructor(private readonly options: CollectInputFilesOptions) {
    const globOptions = { dot: true, nocase: true };
    this.included = picomatch([...options.include], globOptions);
    this.excluded = options.exclude.length > 0 ? picomatch([...options.exclude], globOptions) : () => false;
    // NOTE: a folder whose path matches `P` has every file inside matching `P/**`, so it need not be entered.
    const folderPatterns = options.exclude.filter((pattern) => pattern.endsWith('/**')).map((pattern) => pattern.slice(0, -3));
    this.excludedFolder = folderPatterns.length > 0 ? picomatch(folderPatterns, globOptions) : () => false;
    this.maxBytes = options.maxFileMegabytes * 1024 * 1024;
  }

  async addPath(path: string): Promise<void> {
    const source = toSlashes(path);
    let stats: Stats;
    try {
      stats = await stat(path);
    } catch (error) {
      this.warnAboutPath(path, source, error);
      return;
    }
    if (!this.firstVisit(stats)) return;
    if (stats.isDirectory()) {
      await this.walkFolder(path, source.replace(/\/+$/, ''), '');
    } else if (stats.isFile()) {
      this.addFile(path, source, stats);
    } else {
      this.warn(source, 'unreadable', `${source} is not a regular file or folder, so it was skipped; pass files or folders only.`);
    }
  }

  private async walkFolder(folder: string, sourceBase: string, relative: string): Promise<void> {
    this.options.signal?.throwIfAborted();
    let children: Dirent[];
    try {
      children = await readdir(folder, { withFileTypes: true });
    } catch (error) {
      this.warnAboutPath(folder, joinSource(sourceBase, relative), error);
      return;
    }
    children.sort((left, right) => (left.name < right.name ? -1 : left.name > right.name ? 1 : 0));
    for (const child of children) {
      const childRelative = relative === '' ? child.name : `${relative}/${child.name}`;
      const childPath = join(folder, child.name);
      const childSource = joinSource(sourceBase, childRelative);
      if (child.isDirectory() || child.isSymbolicLink()) {
        if (this.excludedFolder(childRelative) || this.excluded(childRelative)) continue;
      } else if (!child.isFile() || !this.wanted(childRelative)) {
        continue;
      }
      let stats: Stats;
      try {
        stats = await stat(childPath);
      } catch (error) {
        // A folder that cannot be entered (too deep for PATH_MAX, no permission) would otherwise vanish without a word.
        if (!child.isDirectory() && !this.wanted(childRelative)) continue;
        if (child.isSymbolicLink() && (error as NodeJS.ErrnoException).code === 'ENOENT') {
          this.warn(childSource, 'not-found', `${childSource} is a symbolic link to a missing file, so it was skipped; fix or remove the link.`);
        } else {
          this.warnAboutPath(childPath, childSource, error);
        }
        continue;
      }
      if (stats.isDirectory()) {
        if (this.firstVisit(stats)) await this.walkFolder(childPath, sourceBase, childRelative);
      } else if (stats.isFile() && this.wanted(childRelative) && this.firstVisit(stats)) {
        this.addFile(childPath, childSource, stats);
      }
    }
  }

  private wanted(relative: string): boolean {
    return this.included(relative) && !this.excluded(relative);
  }

  /** Marks a file or folder as seen; false if it was seen before through another path or link. */
  private firstVisit(stats: Stats): boolean {
    const key = `${stats.dev}:${stats.ino}`;
    if (this.visited.has(key)) return false;
    this.visited.add(key);
    return true;
  }

  private addFile(path: string, source: string, stats: Stats): void {
    if (stats.size > this.maxBytes) {
      const size = (stats.size / (1024 * 1024)).toFixed(1);
      this.warn(
        source,
        'too-large',
        `${source} is ${size} MB, over the ${this.options.maxFileMegabytes} MB limit, so it was skipped; raise input.maxFileMegabytes or exclude the file.`,
      );
      return;
    }
    this.entries.push({ type: 'file', file: { path, source, fileName: basename(path), bytes: stats.size } });
  }

  private warnAboutPath(path: string, source: string, error: unknown): void {
    const code = (error as NodeJS.ErrnoException | undefined)?.code;
    if (code === 'ENOENT' || code === 'ENOTDIR') {
      this.warn(
        source,
        'not-found',
        `${source} does not exist, so it was skipped; check the path, which is relative to the current directory (${process.cwd()}).`,
      );
    } else if (code === 'EACCES' || code === 'EPERM') {
      this.warn(source, 'unreadable', `${source} cannot be read (permission denied), so it was skipped; check its permissions.`);
    } else if (code === 'ELOOP') {
      this.warn(source, 'unreadable', `${source} is a symbolic link that loops, so it was skipped; fix or remove the link.`);
    } else if (code === 'ENAMETOOLONG') {
      this.warn(
        source,
        'path-too-long',
        `${source} is nested too deep: its path is ${Buffer.byteLength(path)} bytes, longer than the system allows (PATH_MAX), so it and everything in it were skipped; move it to a shallower folder or shorten the folder names.`,
      );
    } else {
      const reason = errorMessage(error);
      this.warn(source, 'unreadable', `${source} cannot be read (${reason}), so it was skipped; check the path (${path}).`);
    }
  }

  private warn(source: string, code: LoadWarning['code'], message: string): void {
    this.entries.push({ type: 'warning', warning: { source, code, message } });
  }
}

/** Input paths with the platform separator replaced by `/`, so sources look the same on every system. */
function toSlashes(path: string): string {
  return sep === '\\' ? path.replaceAll('\\', '/') : path;
}

function joinSource(base: string, relative: string): string {
  if (relative === '') return base === '' ? '/' : base;
  return `${base}/${relative}`;
}
