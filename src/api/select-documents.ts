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
  const chosen = new Set<string>();
  const unmatched: string[] = [];
  for (const selector of selectors) {
    // A title or source may hold glob characters ("Notes [draft]"): what a selector names exactly comes first.
    const exact = documents.filter(exactMatcherOf(selector, documents, cwd));
    const matches = exact.length > 0 || !globCharacters.test(selector) ? exact : documents.filter(globMatcherOf(selector));
    if (matches.length === 0) unmatched.push(selector);
    for (const document of matches) chosen.add(document.id);
  }
  return { documents: documents.filter((document) => chosen.has(document.id)), unmatched };
}

function globMatcherOf(selector: string): (document: SelectableDocument) => boolean {
  const slashed = selector.replaceAll('\\', '/');
  const relative = !isAbsolute(selector) && !slashed.startsWith('**');
  const pattern = slashed.includes('/') && relative ? `**/${slashed.replace(/^\.\//, '')}` : slashed;
  const matches = picomatch(pattern, { dot: true, basename: !slashed.includes('/') });
  return (document) => matches(fileOf(document.source)) || matches(document.source);
}

function exactMatcherOf(selector: string, documents: readonly SelectableDocument[], cwd: string): (document: SelectableDocument) => boolean {
  const slashed = selector.replaceAll('\\', '/');
  const paths = new Set([slashed.replace(/\/+$/, ''), resolve(cwd, selector).replaceAll('\\', '/').replace(/\/+$/, '')]);
  const prefixMatches = selector.length >= minimumIdPrefix ? documents.filter((document) => document.id.startsWith(selector)) : [];
  const uniquePrefix = prefixMatches.length === 1 ? prefixMatches[0]?.id : undefined;
  return (document) =>
    document.id === selector ||
    document.id === uniquePrefix ||
    document.title === selector ||
    [...paths].some((path) => path.length > 0 && (document.source === path || document.source.startsWith(`${path}/`) || document.source.startsWith(`${path}#`)));
}

/** The file part of a source: `data.jsonl#17` → `data.jsonl`. */
function fileOf(source: string): string {
  const hash = source.lastIndexOf('#');
  return hash < 0 ? source : source.slice(0, hash);
}
