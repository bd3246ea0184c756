import { boundMetadataDepth, tooDeepMessage } from './bound-metadata-depth.js';
import { listWithMore } from './list-with-more.js';
import type { FileContext, LoadResult } from './load-types.js';

/**
 * Bounds the metadata of one file's documents (see {@link boundMetadataDepth}), with one
 * `too-deep` warning for the file that names the records cut; every document is kept.
 */
export function boundLoadedMetadata(result: LoadResult, file: FileContext): LoadResult {
  const cutSources: string[] = [];
  const documents = result.documents.map((document) => {
    const bounded = boundMetadataDepth(document.metadata);
    if (bounded.cut === 0) return document;
    cutSources.push(document.source);
    return { ...document, metadata: bounded.metadata };
  });
  if (cutSources.length === 0) return result;
  const records = cutSources.filter((source) => source.startsWith(`${file.source}#`)).map((source) => source.slice(file.source.length));
  const whose =
    records.length === 0 ? 'its metadata nests' : `the metadata of ${records.length === 1 ? 'record' : 'records'} ${listWithMore(records)} ${records.length === 1 ? 'nests' : 'nest'}`;
  return {
    documents,
    warnings: [
      ...result.warnings,
      {
        source: file.source,
        code: 'too-deep',
        message: `${file.source}: ${tooDeepMessage(whose, cutSources.length > 1)}.`,
      },
    ],
  };
}
