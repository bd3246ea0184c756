import { useMemo, useRef, useState } from 'preact/hooks';
import type { ApiClient } from '../api-client';
import type { DocumentInfo } from '../api-types';
import { DocumentsDeletePreview } from './documents-delete-preview';

/** Props of {@link DocumentsTable}. */
export interface DocumentsTableProps {
  api: ApiClient;
  documents: DocumentInfo[];
  /** Queues the delete job of a confirmed document. */
  onDelete(document: DocumentInfo): Promise<void>;
}

const columnCount = 6;

/**
 * The indexed documents, the most recently indexed first (what was just uploaded is in sight, marked new), with a
 * filter, counts, and per-row delete through a dry-run preview under the row's button.
 */
export function DocumentsTable({ api, documents, onDelete }: DocumentsTableProps) {
  const [filter, setFilter] = useState('');
  const [deleting, setDeleting] = useState<string | undefined>();
  // Documents indexed after the table first showed are new to the person looking at it.
  const opened = useRef(Date.now());
  const ordered = useMemo(
    () =>
      documents
        .map((document, index) => ({ document, index, at: Date.parse(document.indexedAt) || 0 }))
        .sort((left, right) => right.at - left.at || left.index - right.index)
        .map(({ document }) => document),
    [documents],
  );
  const isNew = (document: DocumentInfo): boolean => Date.parse(document.indexedAt) > opened.current;
  const needle = filter.trim().toLowerCase();
  const shown = needle === '' ? ordered : ordered.filter((document) => `${document.title}\n${document.source}\n${document.id}`.toLowerCase().includes(needle));
  const missing = documents.filter((document) => document.status === 'source-missing').length;
  const chunks = documents.reduce((sum, document) => sum + document.chunks, 0);
  return (
    <div class="documents-table-wrap">
      <div class="documents-filter">
        <input
          type="search"
          placeholder="Filter by title or source"
          aria-label="Filter documents by title or source"
          data-testid="documents-filter"
          value={filter}
          onInput={(event) => setFilter(event.currentTarget.value)}
        />
        <span class="muted" data-testid="documents-counts">
          {needle === '' ? '' : `${shown.length} shown of `}
          {documents.length} document{documents.length === 1 ? '' : 's'} · {chunks} passage{chunks === 1 ? '' : 's'}
          {missing > 0 ? ` · ${missing} with a missing source` : ''}
        </span>
      </div>
      <table class="documents-table" data-testid="documents-table">
        <thead>
          <tr>
            <th scope="col">title</th>
            <th scope="col">source</th>
            <th scope="col" class="num">chunks</th>
            <th scope="col">indexed at</th>
            <th scope="col">status</th>
            <th scope="col">
              <span class="visually-hidden">actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {shown.length === 0 && (
            <tr>
              <td colSpan={columnCount} class="empty">
                {documents.length === 0 ? 'No documents yet: drop files above to index them.' : 'No document matches the filter.'}
              </td>
            </tr>
          )}
          {shown.flatMap((document) => [
            <tr
              class={[document.status === 'source-missing' ? 'source-missing' : '', isNew(document) ? 'new' : ''].filter(Boolean).join(' ') || undefined}
              data-testid="document-row"
              data-document-id={document.id}
              data-new={isNew(document) ? 'true' : undefined}
              key={document.id}
            >
              <td class="title">
                {document.title}
                {isNew(document) && <span class="new-mark">new</span>}
              </td>
              <td class="source" title={document.source}>
                {document.source}
              </td>
              <td class="num">{document.chunks}</td>
              <td class="when">{document.indexedAt ? new Date(document.indexedAt).toLocaleString() : '–'}</td>
              <td>
                <span
                  class={`doc-status ${document.status}`}
                  data-testid="document-status"
                  title={document.status === 'source-missing' ? 'The file this document was read from no longer exists at its path; the index still holds its text.' : undefined}
                >
                  {document.status}
                </span>
              </td>
              <td>
                <button
                  data-testid="document-delete"
                  aria-label={`Delete ${document.title}`}
                  aria-expanded={deleting === document.id}
                  onClick={() => setDeleting(deleting === document.id ? undefined : document.id)}
                >
                  Delete…
                </button>
              </td>
            </tr>,
            ...(deleting === document.id
              ? [
                  <tr class="preview-row" key={`${document.id}:preview`}>
                    <td colSpan={columnCount}>
                      <DocumentsDeletePreview
                        api={api}
                        document={document}
                        onCancel={() => setDeleting(undefined)}
                        onConfirm={async () => {
                          await onDelete(document);
                          setDeleting(undefined);
                        }}
                      />
                    </td>
                  </tr>,
                ]
              : []),
          ])}
        </tbody>
      </table>
    </div>
  );
}
