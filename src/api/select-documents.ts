import { isAbsolute, resolve } from 'node:path';
import picomatch from 'picomatch';
import { lowerBound } from '../core/lower-bound.js';

/** What a selector is compared with: a document's id, title and source. */
export interface SelectableDocument {
  id: string;
  title: string;
  source: string;
}

/** Which documents each selector chose. */
export interface DocumentSelection<Document extends SelectableDocument> {
  /** The chosen documents, each once, in index order. */
  documents: Document[];
  /** Selectors that chose no document. */
  unmatched: string[];
}

const globCharacters = /[*?[\]{}]/;
/** Fewest characters of an id prefix: shorter ones would choose documents by accident. */
const minimumIdPrefix = 8;

/**
 * Chooses documents by selectors, as `kgrag delete` takes them: a document id (or a prefix of one, at least 8
 * characters, that only one document has), a source (a file path as indexed, or relative to `cwd`; a folder chooses
 * every document under it, a data file every record of it), a title, or a glob over sources (`**\/drafts/*.md`;
 * a glob without a slash matches file names anywhere). A selector may choose several documents; each is chosen once.
 */
export function selectDocuments<Document extends SelectableDocument>(
  documents: readonly Document[],
  selectors: readonly string[],
  cwd: string = process.cwd(),
): DocumentSelection<Document> {
  const exactly = exactLookup(documents);
  const chosen = new Set<string>();
  const unmatched: string[] = [];
  for (const selector of selectors) {
    // A title or source may hold glob characters ("Notes [draft]"): what a selector names exactly comes first.
    const exact = exactly(selector, cwd);
    const matches = exact.size > 0 || !globCharacters.test(selector) ? exact : new Set(documents.filter(globMatcherOf(selector)).map((document) => document.id));
    if (matches.size === 0) unmatched.push(selector);
    for (const id of matches) chosen.add(id);
  }
  return { documents: documents.filter((document) => chosen.has(document.id)), unmatched };
}

/**
 * The ids of the documents a selector names exactly, looked up instead of compared with every document: a watched
 * folder or `--prune` deletes thousands of files at once, and comparing each with each of 100,000 documents took
 * seconds. A path names a document when it is its source or a prefix of it ending before a `/` or `#` (a folder, a
 * data file); both are keys of the source.
 */
function exactLookup(documents: readonly SelectableDocument[]): (selector: string, cwd: string) => Set<string> {
  const byTitle = new Map<string, string[]>();
  const byPath = new Map<string, string[]>();
  const add = (map: Map<string, string[]>, key: string, id: string): void => {
    const ids = map.get(key);
    if (ids === undefined) map.set(key, [id]);
    else if (ids.at(-1) !== id) ids.push(id);
  };
  for (const { id, title, source } of documents) {
    add(byTitle, title, id);
    add(byPath, source, id);
    for (let at = 1; at < source.length; at++) if (source[at] === '/' || source[at] === '#') add(byPath, source.slice(0, at), id);
  }
  const ids = documents.map((document) => document.id).sort();
  const known = new Set(ids);
  return (selector, cwd) => {
    const found = new Set<string>(byTitle.get(selector));
    if (known.has(selector)) found.add(selector);
    // A prefix of one id only: sorted, the ids it starts are together from where it would go.
    if (selector.length >= minimumIdPrefix) {
      const first = lowerBound(ids, selector);
      const [id, next] = [ids[first], ids[first + 1]];
      if (id?.startsWith(selector) === true && next?.startsWith(selector) !== true) found.add(id);
    }
    const slashed = selector.replaceAll('\\', '/');
    for (const path of new Set([slashed.replace(/\/+$/, ''), resolve(cwd, selector).replaceAll('\\', '/').replace(/\/+$/, '')])) {
      if (path.length > 0) for (const id of byPath.get(path) ?? []) found.add(id);
    }
    return found;
  };
}

function globMatcherOf(selector: string): (document: SelectableDocument) => boolean {
  const slashed = selector.replaceAll('\\', '/');
  const relative = !isAbsolute(selector) && !slashed.startsWith('**');
  const pattern = slashed.includes('/') && relative ? `**/${slashed.replace(/^\.\//, '')}` : slashed;
  const matches = picomatch(pattern, { dot: true, basename: !slashed.includes('/') });
  return (document) => matches(fileOf(document.source)) || matches(document.source);
}

/** The file part of a source: `data.jsonl#17` → `data.jsonl`. */
function fileOf(source: string): string {
  const hash = source.lastIndexOf('#');
  return hash < 0 ? source : source.slice(0, hash);
}
