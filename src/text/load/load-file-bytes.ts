import { detectText } from './detect-text.js';
import { type FileFormat, fileFormatOf } from './file-format.js';
import { loadCsv } from './load-csv.js';
import { loadDocx } from './load-docx.js';
import { loadHtml } from './load-html.js';
import { loadJson } from './load-json.js';
import { loadJsonLines } from './load-json-lines.js';
import { loadMarkdown } from './load-markdown.js';
import { loadPdf } from './load-pdf.js';
import { loadPlainText } from './load-plain-text.js';
import type { FileContext, LoadResult } from './load-types.js';
import type { RecordFields } from './records-to-documents.js';

const pdfSignature = [0x25, 0x50, 0x44, 0x46, 0x2d];

/**
 * Loads the documents of one file from its bytes, choosing the loader by extension: Markdown, HTML, PDF,
 * Word (.docx), JSON, JSON Lines, CSV, TSV, plain text. A file with any other extension is read as plain text when its
 * bytes are text (or as PDF when they start with `%PDF-`). Known office formats give `unsupported-type`;
 * binary, empty and non-UTF-8 files give the warnings of {@link detectText}.
 */
export async function loadFileBytes(bytes: Uint8Array, file: FileContext, fieldNames: RecordFields): Promise<LoadResult> {
  const format = fileFormatOf(file.fileName);
  if (format.kind === 'unsupported') {
    return {
      documents: [],
      warnings: [
        {
          source: file.source,
          code: 'unsupported-type',
          message: `${file.source} is ${format.description}, which kgrag cannot read, so it was skipped; save it as PDF, Markdown (.md) or plain text (.txt).`,
        },
      ],
    };
  }
  if (format.kind === 'pdf' || (format.kind === 'unknown' && pdfSignature.every((byte, index) => bytes[index] === byte))) {
    return loadPdf(bytes, file);
  }
  if (format.kind === 'docx') return loadDocx(bytes, file);
  const detected = detectText(bytes, file.source);
  if (detected.kind !== 'text') return { documents: [], warnings: [detected.warning] };
  const result = loadText(detected.text, format.kind, file, fieldNames);
  return detected.warning === undefined ? result : { documents: result.documents, warnings: [detected.warning, ...result.warnings] };
}

function loadText(raw: string, kind: FileFormat['kind'], file: FileContext, fieldNames: RecordFields): LoadResult {
  switch (kind) {
    case 'markdown':
      return loadMarkdown(raw, file);
    case 'html':
      return loadHtml(raw, file);
    case 'json':
      return loadJson(raw, file, fieldNames);
    case 'json-lines':
      return loadJsonLines(raw, file, fieldNames);
    case 'csv':
      return loadCsv(raw, file, fieldNames);
    case 'tsv':
      return loadCsv(raw, file, fieldNames, '\t');
    default:
      return loadPlainText(raw, file);
  }
}
