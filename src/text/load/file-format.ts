import { extname } from 'node:path';

/** How a file is read, decided from its extension. */
export type FileFormat =
  | { kind: 'text' | 'markdown' | 'html' | 'pdf' | 'docx' | 'json' | 'json-lines' | 'csv' | 'tsv' }
  /** A document format kgrag cannot read; `description` names it for the warning ("a Word document"). */
  | { kind: 'unsupported'; description: string }
  /** Any other extension: read as plain text if the bytes are text. */
  | { kind: 'unknown' };

const formatsByExtension: Record<string, FileFormat> = {
  '.txt': { kind: 'text' },
  '.text': { kind: 'text' },
  '.md': { kind: 'markdown' },
  '.markdown': { kind: 'markdown' },
  '.mdown': { kind: 'markdown' },
  '.mkd': { kind: 'markdown' },
  '.mdx': { kind: 'markdown' },
  '.html': { kind: 'html' },
  '.htm': { kind: 'html' },
  '.xhtml': { kind: 'html' },
  '.pdf': { kind: 'pdf' },
  '.json': { kind: 'json' },
  '.jsonl': { kind: 'json-lines' },
  '.ndjson': { kind: 'json-lines' },
  '.csv': { kind: 'csv' },
  '.tsv': { kind: 'tsv' },
  '.docx': { kind: 'docx' },
  '.doc': { kind: 'unsupported', description: 'a Word 97–2003 document' },
  '.xls': { kind: 'unsupported', description: 'an Excel workbook' },
  '.xlsx': { kind: 'unsupported', description: 'an Excel workbook' },
  '.ppt': { kind: 'unsupported', description: 'a PowerPoint presentation' },
  '.pptx': { kind: 'unsupported', description: 'a PowerPoint presentation' },
  '.odt': { kind: 'unsupported', description: 'an OpenDocument text' },
  '.ods': { kind: 'unsupported', description: 'an OpenDocument spreadsheet' },
  '.odp': { kind: 'unsupported', description: 'an OpenDocument presentation' },
  '.rtf': { kind: 'unsupported', description: 'an RTF document' },
  '.epub': { kind: 'unsupported', description: 'an EPUB book' },
  '.pages': { kind: 'unsupported', description: 'an Apple Pages document' },
  '.key': { kind: 'unsupported', description: 'an Apple Keynote presentation' },
  '.numbers': { kind: 'unsupported', description: 'an Apple Numbers spreadsheet' },
};

/**
 * The file types kgrag reads, by their usual extension, as every surface lists them (the CLI's help, errors, the
 * upload endpoint, the explorer's drop zone); other spellings (`.markdown`, `.htm`, `.ndjson`) are read too.
 */
export const supportedFileTypes = ['txt', 'md', 'html', 'pdf', 'docx', 'json', 'jsonl', 'csv', 'tsv'] as const;

/** {@link supportedFileTypes} for a sentence: "txt, md, html, pdf, docx, json, jsonl, csv, tsv". */
export const supportedFileTypesText = supportedFileTypes.join(', ');

/** The format of a file from its extension, case-insensitively. */
export function fileFormatOf(fileName: string): FileFormat {
  return formatsByExtension[extname(fileName).toLowerCase()] ?? { kind: 'unknown' };
}
