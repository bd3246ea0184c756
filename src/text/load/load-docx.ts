import { normalizeText } from '../normalize-text.js';
import { normalizeTitle } from '../normalize-title.js';
import { emptyDocumentWarning } from './empty-document-warning.js';
import { fileTitle } from './file-title.js';
import type { DocumentSection, FileContext, LoadResult } from './load-types.js';
import { openZipArchive } from './open-zip-archive.js';

/**
 * The largest `word/document.xml` read, unpacked. Its text (about half of it) is indexed like a text file of that
 * size, and the whole unpacked part is held while it is parsed: a 733 KB file that unpacked to 250 MB of repeated
 * paragraphs made a server unresponsive for half an hour (issue 35). The size is read from the archive's directory
 * before anything is unpacked. Word's own limit is far above it, but a 1,000-page report is about 10 MB.
 */
export const maxDocumentXmlBytes = 64 * 1024 * 1024;

/** One paragraph of the document body, or one table row (its cells' text joined by ` | `). */
interface Block {
  text: string;
  /** The paragraph style id, e.g. `Heading2` or `Title`. */
  style: string | undefined;
}

/**
 * Loads a Word document (.docx: Office Open XML, a ZIP archive of XML parts) without a dependency: the text
 * of `word/document.xml`, one paragraph per block with a blank line between, and each table row as one line
 * of its cells. Deleted text of tracked changes and field codes are left out, and the fallback copy of a
 * text box (`mc:Fallback`) is skipped so its text is not read twice. Paragraphs styled `Title` or
 * `Heading1`–`Heading6` become `metadata.sections`; the title is the document property `dc:title`, else the
 * first `Title` or level-1 heading, else the file name. A file that is not a readable .docx gives a
 * `parse-error` warning that says to save it as PDF, Markdown or plain text.
 */
export function loadDocx(bytes: Uint8Array, file: FileContext): LoadResult {
  let body: string;
  let properties: string | undefined;
  try {
    const archive = openZipArchive(bytes, maxDocumentXmlBytes);
    const size = archive.unpackedSize('word/document.xml') ?? 0;
    if (size > maxDocumentXmlBytes) return tooLarge(file, size);
    const document = archive.read('word/document.xml');
    if (document === undefined) throw new Error('it holds no word/document.xml');
    body = new TextDecoder().decode(document);
    const core = archive.read('docProps/core.xml');
    properties = core === undefined ? undefined : new TextDecoder().decode(core);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return {
      documents: [],
      warnings: [
        {
          source: file.source,
          code: 'parse-error',
          message: `${file.source} could not be read as a Word document (${reason}), so it was skipped; open it in Word or LibreOffice and save it as PDF, Markdown (.md) or plain text (.txt).`,
        },
      ],
    };
  }
  const sections: DocumentSection[] = [];
  const parts: string[] = [];
  let length = 0;
  let styledTitle: string | undefined;
  for (const block of documentBlocks(body)) {
    const text = normalizeText(block.text);
    if (text === '') continue;
    if (parts.length > 0) length += 2;
    const level = headingLevel(block.style);
    if (level !== undefined) {
      sections.push({ heading: text, level, start: length });
      if (level === 1 && styledTitle === undefined) styledTitle = text;
    }
    parts.push(text);
    length += text.length;
  }
  if (parts.length === 0) return { documents: [], warnings: [emptyDocumentWarning(file.source)] };
  const declared = properties === undefined ? '' : decodeEntities(/<dc:title(?:\s[^>]*)?>([\s\S]*?)<\/dc:title>/.exec(properties)?.[1] ?? '');
  const title = normalizeTitle(declared) || normalizeTitle(styledTitle ?? '') || fileTitle(file.fileName);
  return { documents: [{ title, source: file.source, text: parts.join('\n\n'), metadata: { sections } }], warnings: [] };
}

function tooLarge(file: FileContext, size: number): LoadResult {
  const megabytes = (bytes: number): string => `${(bytes / (1024 * 1024)).toFixed(0)} MB`;
  return {
    documents: [],
    warnings: [
      {
        source: file.source,
        code: 'too-large',
        message: `${file.source} unpacks to ${megabytes(size)} of document XML, more than the ${megabytes(maxDocumentXmlBytes)} kgrag reads from a Word document, so it was skipped without unpacking it; split it into smaller documents.`,
      },
    ],
  };
}

/** `Title` is level 1; `Heading1`…`Heading6` (any case, with or without a space) are their levels. */
function headingLevel(style: string | undefined): number | undefined {
  if (style === undefined) return undefined;
  if (/^title$/i.test(style)) return 1;
  const match = /^heading\s?([1-6])$/i.exec(style);
  return match ? Number(match[1]) : undefined;
}

/**
 * The paragraphs and table rows of `word/document.xml`, in document order, read with a tag scanner: a
 * paragraph inside a text box nests inside another paragraph's run and is its own block, before the one
 * that holds it.
 */
function* documentBlocks(xml: string): Generator<Block> {
  const paragraphs: Block[] = [];
  const rows: string[][] = [];
  const cells: string[][] = [];
  let inText = false;
  let inRun = 0;
  let skipped = 0;
  for (const token of xml.matchAll(/<[^>]*>|[^<]+/g)) {
    const piece = token[0];
    if (piece.charCodeAt(0) !== 0x3c) {
      const paragraph = paragraphs.at(-1);
      if (inText && skipped === 0 && paragraph !== undefined) paragraph.text += decodeEntities(piece);
      continue;
    }
    const tag = /^<(\/?)([A-Za-z][\w.:-]*)/.exec(piece);
    if (tag === null) continue;
    const closing = tag[1] === '/';
    const name = tag[2] ?? '';
    const selfClosing = piece.endsWith('/>');
    if (name === 'mc:Fallback') {
      if (!selfClosing) skipped += closing ? -1 : 1;
      continue;
    }
    if (skipped > 0) continue;
    switch (name) {
      case 'w:p':
        if (closing) {
          const paragraph = paragraphs.pop();
          if (paragraph === undefined) break;
          const cell = cells.at(-1);
          // A paragraph of a table cell belongs to its row; a text box's paragraph inside a cell is its own block.
          if (cell !== undefined && paragraphs.length === 0) cell.push(paragraph.text);
          else yield paragraph;
        } else if (!selfClosing) {
          paragraphs.push({ text: '', style: undefined });
        }
        break;
      case 'w:pStyle': {
        const paragraph = paragraphs.at(-1);
        const style = /\bw:val="([^"]*)"/.exec(piece)?.[1];
        if (paragraph !== undefined && style !== undefined) paragraph.style = style;
        break;
      }
      case 'w:r':
        if (!selfClosing) inRun += closing ? -1 : 1;
        break;
      case 'w:t':
        inText = !closing && !selfClosing;
        break;
      case 'w:tab':
      case 'w:br':
      case 'w:cr': {
        // Tab stops in paragraph properties are `w:tab` too; only those inside a run are text.
        const paragraph = paragraphs.at(-1);
        if (inRun > 0 && paragraph !== undefined) paragraph.text += name === 'w:tab' ? '\t' : '\n';
        break;
      }
      case 'w:tr':
        if (closing) {
          const row = rows.pop();
          if (row !== undefined) yield { text: row.map((cell) => cell.replace(/\s+/g, ' ').trim()).join(' | '), style: undefined };
        } else if (!selfClosing) {
          rows.push([]);
        }
        break;
      case 'w:tc':
        if (closing) {
          const cell = cells.pop();
          if (cell !== undefined) rows.at(-1)?.push(cell.join(' '));
        } else if (!selfClosing) {
          cells.push([]);
        }
        break;
      default:
        break;
    }
  }
}

const namedEntities: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

/** XML character and predefined entity references as the characters they stand for. */
function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-fA-F]+|#[0-9]+|lt|gt|amp|quot|apos);/g, (whole, reference: string) => {
    if (reference.startsWith('#')) {
      const code = reference.startsWith('#x') ? Number.parseInt(reference.slice(2), 16) : Number.parseInt(reference.slice(1), 10);
      return code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return namedEntities[reference] ?? whole;
  });
}
