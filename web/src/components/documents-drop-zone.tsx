import { useState } from 'preact/hooks';

/** The file kinds the server reads (src/server/routes/document-routes.ts, `fileFormatOf`). */
export const uploadFormats = ['txt', 'md', 'html', 'pdf', 'docx', 'json', 'jsonl', 'csv', 'tsv'] as const;

const accept = uploadFormats.map((format) => `.${format}`).join(',') + ',.text,.markdown,.mdown,.mkd,.mdx,.htm,.xhtml,.ndjson';

/** Props of {@link DocumentsDropZone}. */
export interface DocumentsDropZoneProps {
  /** Called with the dropped or chosen files; the zone is busy until it settles. */
  onFiles(files: File[]): Promise<void>;
}

/** Where files are dropped (or chosen with a button) to be uploaded and indexed. */
export function DocumentsDropZone({ onFiles }: DocumentsDropZoneProps) {
  const [dragging, setDragging] = useState(false);
  const [busy, setBusy] = useState(false);

  const take = (list: FileList | null | undefined) => {
    const files = list ? [...list] : [];
    if (files.length === 0 || busy) return;
    setBusy(true);
    void onFiles(files).finally(() => setBusy(false));
  };

  return (
    <div
      class={`documents-drop${dragging ? ' dragging' : ''}${busy ? ' busy' : ''}`}
      data-testid="documents-drop-zone"
      onDragOver={(event) => {
        event.preventDefault();
        if (event.dataTransfer) event.dataTransfer.dropEffect = 'copy';
        setDragging(true);
      }}
      onDragLeave={() => setDragging(false)}
      onDrop={(event) => {
        event.preventDefault();
        setDragging(false);
        take(event.dataTransfer?.files);
      }}
    >
      <p class="drop-title">
        {busy ? 'Uploading…' : 'Drop files here to add them to the index, or '}
        {!busy && (
          <label class="file-button">
            choose files
            <input
              type="file"
              multiple
              accept={accept}
              data-testid="documents-file-input"
              aria-label="Choose files to upload and index"
              onChange={(event) => {
                take(event.currentTarget.files);
                event.currentTarget.value = '';
              }}
            />
          </label>
        )}
      </p>
      <p class="muted">
        Accepted: {uploadFormats.join(', ')}. A file with the name of an earlier upload replaces its documents.
      </p>
    </div>
  );
}
