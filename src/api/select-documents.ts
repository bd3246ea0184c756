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
  const exact = exactMatches(documents, selectors, cwd);
  const chosen = new Set<string>();
  const unmatched: string[] = [];
  selectors.forEach((selector, index) => {
    // A title or source may hold glob characters ("Notes [draft]"): what a selector names exactly comes first.
    const named = exact[index] as Set<string>;
    const matches = named.size > 0 || !globCharacters.test(selector) ? named : new Set(documents.filter(globMatcherOf(selector)).map((document) => document.id));
    if (matches.size === 0) unmatched.push(selector);
    for (const id of matches) chosen.add(id);
  });
  return { documents: documents.filter((document) => chosen.has(document.id)), unmatched };
}

/**
 * The ids of the documents each selector names exactly (its id, a prefix of one id only, its title, or a path that is
 * its source or a prefix of it ending before a `/` or `#`: a folder, a data file), in one pass over the documents
 * against lookups of the selectors: a watched folder or `--prune` deletes thousands of files at once, and comparing each
 * with each of 100,000 documents took seconds, while an index of every document's paths cost one selector 0.3-0.6 s.
 * A prefix of a source is looked up only when a selector's path is that long.
 */
function exactMatches(documents: readonly SelectableDocument[], selectors: readonly string[], cwd: string): Array<Set<string>> {
  const texts = new Map<string, number[]>();
  const paths = new Map<string, number[]>();
  const prefixes = new Map<string, number[]>();
  const add = (map: Map<string, number[]>, key: string, selector: number): void => {
    const list = map.get(key);
    if (list === undefined) map.set(key, [selector]);
    else if (list.at(-1) !== selector) list.push(selector);
  };
  selectors.forEach((selector, index) => {
    add(texts, selector, index);
    if (selector.length >= minimumIdPrefix) add(prefixes, selector, index);
    for (const path of [selector.replaceAll('\\', '/'), resolve(cwd, selector).replaceAll('\\', '/')]) {
      const trimmed = path.replace(/\/+$/, '');
      if (trimmed.length > 0) add(paths, trimmed, index);
    }
  });
  const pathLengths = new Set([...paths.keys()].map((path) => path.length));
  const prefixLengths = [...new Set([...prefixes.keys()].map((prefix) => prefix.length))];
  const found = selectors.map(() => new Set<string>());
  const prefixed = selectors.map((): string[] => []);
  const note = (selectorsOf: readonly number[] | undefined, id: string): void => {
    for (const selector of selectorsOf ?? []) (found[selector] as Set<string>).add(id);
  };
  for (const { id, title, source } of documents) {
    note(texts.get(id), id);
    note(texts.get(title), id);
    if (pathLengths.has(source.length)) note(paths.get(source), id);
    for (let at = 1; at < source.length; at++) if ((source[at] === '/' || source[at] === '#') && pathLengths.has(at)) note(paths.get(source.slice(0, at)), id);
    for (const length of prefixLengths) if (length <= id.length) for (const selector of prefixes.get(id.slice(0, length)) ?? []) (prefixed[selector] as string[]).push(id);
  }
  // An id prefix names a document when only one has it.
  prefixed.forEach((ids, selector) => {
    if (ids.length === 1) (found[selector] as Set<string>).add(ids[0] as string);
  });
  return found;
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
