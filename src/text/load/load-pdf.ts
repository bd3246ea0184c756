import type { Metadata } from '../../core/types.js';
import { normalizeText } from '../normalize-text.js';
import { normalizeTitle } from '../normalize-title.js';
import { emptyDocumentWarning } from './empty-document-warning.js';
import { fileTitle } from './file-title.js';
import type { FileContext, LoadResult } from './load-types.js';
import { errorMessage } from '../../core/error-message.js';

/** PDF information-dictionary entries copied into metadata, under lower-case names. */
const copiedInformation = ['Author', 'Subject', 'Keywords', 'Creator', 'Producer', 'CreationDate', 'ModDate'];

/**
 * Loads the text of a PDF with unpdf (pdf.js). Pages are normalized one by one and joined with a blank line;
 * `metadata.pages` is the page count and `metadata.pageStarts[i]` the offset where page `i + 1` starts (pages
 * without text are skipped but still counted, so `pageStarts` may be shorter than `pages` is large).
 * The title is the PDF's own Title, else the file name. Encrypted, damaged or non-PDF bytes give a
 * `parse-error` warning; a PDF without a text layer (scanned images) gives an `empty` warning.
 */
export async function loadPdf(bytes: Uint8Array, file: FileContext): Promise<LoadResult> {
  const { extractText, getDocumentProxy, getMeta } = await import('unpdf');
  let document: Awaited<ReturnType<typeof getDocumentProxy>> | undefined;
  try {
    // NOTE: pdf.js takes ownership of the buffer it is given and rejects Node Buffers, so it gets a plain
    // Uint8Array copy; verbosity 0 keeps it from printing warnings.
    document = await getDocumentProxy(new Uint8Array(bytes), { verbosity: 0 });
    const { totalPages, text: pageTexts } = await extractText(document, { mergePages: false });
    const information = await getMeta(document).then(
      (meta) => meta.info as Record<string, unknown>,
      () => ({}) as Record<string, unknown>,
    );
    const pageStarts: number[] = [];
    const pages: string[] = [];
    let length = 0;
    for (const pageText of pageTexts) {
      const normalized = normalizeText(pageText);
      if (normalized === '') continue;
      if (pages.length > 0) length += 2;
      pageStarts.push(length);
      pages.push(normalized);
      length += normalized.length;
    }
    const text = pages.join('\n\n');
    if (text === '') {
      return {
        documents: [],
        warnings: [emptyDocumentWarning(file.source, 'has no text layer (it may be scanned images); run OCR on it first')],
      };
    }
    const metadata: Metadata = { pages: totalPages, pageStarts };
    for (const key of copiedInformation) {
      const value = information[key];
      if (typeof value === 'string' && value.trim() !== '') metadata[key.charAt(0).toLowerCase() + key.slice(1)] = value.trim();
    }
    const declaredTitle = information['Title'];
    const title = (typeof declaredTitle === 'string' ? normalizeTitle(declaredTitle) : '') || fileTitle(file.fileName);
    return { documents: [{ title, source: file.source, text, metadata }], warnings: [] };
  } catch (error) {
    const reason = errorMessage(error);
    const encrypted = error instanceof Error && error.name === 'PasswordException';
    return {
      documents: [],
      warnings: [
        {
          source: file.source,
          code: 'parse-error',
          message: encrypted
            ? `${file.source} is password-protected, so it was skipped; save an unencrypted copy to index it.`
            : `${file.source} could not be read as a PDF (${reason}), so it was skipped; check that the file is a complete, undamaged PDF.`,
        },
      ],
    };
  } finally {
    await document?.destroy().catch(() => undefined);
  }
}
