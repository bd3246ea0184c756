import type { InputDocument } from '../pipeline/pipeline-step.js';

/** What the source of every document an API client gives as text starts with. */
export const apiSourcePrefix = 'api:';

/**
 * Documents given as text through the API (HTTP or MCP), with each client-given `source` made a label: stored as
 * `api:<source>`, so that it cannot name a server file or an upload — and so replace or delete that upload's
 * documents, or learn from a document's `source-missing` status whether a server path exists. Documents with the
 * same label still replace each other; a document without one keeps the default `inline:<title>`.
 */
export function labelApiSources(documents: readonly InputDocument[]): InputDocument[] {
  return documents.map((document) => (document.source === undefined ? document : { ...document, source: `${apiSourcePrefix}${document.source}` }));
}
