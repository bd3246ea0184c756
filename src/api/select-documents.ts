import { isAbsolute, resolve } from 'node:path';
import picomatch from 'picomatch';

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
  const byKey = new Map<string, string[]>();
  const add = (key: string, id: string): void => {
    const ids = byKey.get(key);
    if (ids === undefined) byKey.set(key, [id]);
    else if (ids.at(-1) !== id) ids.push(id);
  };
  for (const document of documents) {
    add(`id\0${document.id}`, document.id);
    add(`title\0${document.title}`, document.id);
    const { source } = document;
    add(`path\0${source}`, document.id);
    for (let at = 1; at < source.length; at++) if (source[at] === '/' || source[at] === '#') add(`path\0${source.slice(0, at)}`, document.id);
  }
  const ids = documents.map((document) => document.id).sort();
  return (selector, cwd) => {
    const found = new Set<string>([...(byKey.get(`id\0${selector}`) ?? []), ...(byKey.get(`title\0${selector}`) ?? [])]);
    const prefixed = selector.length >= minimumIdPrefix ? idsStartingWith(ids, selector) : [];
    if (prefixed.length === 1) found.add(prefixed[0] as string);
    const slashed = selector.replaceAll('\\', '/');
    for (const path of new Set([slashed.replace(/\/+$/, ''), resolve(cwd, selector).replaceAll('\\', '/').replace(/\/+$/, '')])) {
      if (path.length > 0) for (const id of byKey.get(`path\0${path}`) ?? []) found.add(id);
    }
    return found;
  };
}

/** The ids of sorted `ids` that start with `prefix`, at most two (one is a unique prefix; two say it is not). */
function idsStartingWith(ids: readonly string[], prefix: string): string[] {
  let low = 0;
  let high = ids.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((ids[middle] as string) < prefix) low = middle + 1;
    else high = middle;
  }
  return ids.slice(low, low + 2).filter((id) => id.startsWith(prefix));
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
