import type { Metadata } from '../../core/types.js';

/** A document read from a file or a record of a data file, before ids and hashes are assigned. */
export interface LoadedDocument {
  title: string;
  /** The path as given, joined with `/` to the path inside a folder; `<path>#<id>` for records of data files. */
  source: string;
  /** Normalized text (see `normalizeText`); offsets in `metadata` and in chunks refer to it. */
  text: string;
  /**
   * Front matter, PDF information or record fields, plus what the loader found:
   * `sections` ({@link DocumentSection}[]) for Markdown and HTML, `pages` and `pageStarts` for PDF.
   */
  metadata: Metadata;
}

/** A heading of a Markdown or HTML document. */
export interface DocumentSection {
  heading: string;
  /** 1 for `#` / `<h1>` to 6 for `######` / `<h6>`. */
  level: number;
  /** Offset of the heading line in the normalized text. */
  start: number;
}

/** Why a file or some of its records were skipped, or read in a way the user should know about. */
export type LoadWarningCode =
  | 'not-found'
  | 'unreadable'
  | 'binary'
  | 'empty'
  | 'invalid-utf8'
  | 'unsupported-type'
  | 'too-large'
  | 'path-too-long'
  | 'parse-error'
  /** Metadata nested deeper than `maxMetadataDepth`: cut there, the document kept. */
  | 'too-deep';

/** A problem with one input file, returned as a value (loaders never print). */
export interface LoadWarning {
  /** The file, as it would appear in a document `source`. */
  source: string;
  code: LoadWarningCode;
  /** One sentence that names the file, says what happened and what to do about it. */
  message: string;
}

/** What loading one file produced. */
export interface LoadResult {
  documents: LoadedDocument[];
  warnings: LoadWarning[];
}

/** The file a loader is reading, for sources, default titles and warnings. */
export interface FileContext {
  /** Source of the file's documents (see {@link LoadedDocument.source}). */
  source: string;
  /** Base name of the file, extension included. */
  fileName: string;
}
