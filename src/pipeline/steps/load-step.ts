import { KgragError } from '../../core/errors.js';
import { contentId, sha256 } from '../../core/ids.js';
import type { DocumentRecord } from '../../core/types.js';
import { loadDocuments } from '../../text/load/load-documents.js';
import { normalizeText } from '../../text/normalize-text.js';
import type { PipelineStep, StepContext } from '../pipeline-step.js';

/** A document's id: the hash of its title and normalized text, so identical input gives an identical id. */
export function documentId(title: string, text: string): string {
  return contentId('document', title, text);
}

/**
 * Reads the inputs of this `index` call into `documents`. A source that was indexed before with
 * other content is replaced (its old document is removed; later steps drop what hung off it);
 * identical content under two sources is kept once.
 */
export const loadStep: PipelineStep = {
  name: 'load',
  version: 1,
  reads: [],
  settings: () => ({}),
  mustRun: (context) => context.inputs.paths.length > 0 || context.inputs.documents.length > 0,

  async run(context: StepContext) {
    const { store, inputs, config } = context;
    const existing = await store.table('documents').pick(['id', 'source', 'createdAt']);
    const existingById = new Map(existing.map((document) => [document.id, document]));
    const existingBySource = new Map(existing.map((document) => [document.source, document]));
    const loaded = new Map<string, DocumentRecord>();
    const loadedSources = new Set<string>();
    const createdAt = new Date().toISOString();

    const accept = (title: string, source: string, text: string, metadata: Record<string, unknown>): void => {
      if (text.length === 0) {
        context.warn('empty', `"${source}" has no text after normalization; skipped`, source);
        return;
      }
      const id = documentId(title, text);
      const duplicate = loaded.get(id);
      if (duplicate) {
        context.warn('duplicate', `"${source}" has the same title and text as "${duplicate.source}"; indexed once`, source);
        return;
      }
      loadedSources.add(source);
      loaded.set(id, {
        id,
        title,
        source,
        text,
        metadata,
        contentHash: sha256(text),
        createdAt: existingById.get(id)?.createdAt ?? createdAt,
      });
    };

    for (const document of inputs.documents) {
      // Loaders normalize what they read; documents handed over in memory are normalized here.
      accept(document.title, document.source ?? `inline:${document.title}`, normalizeText(document.text), document.metadata ?? {});
    }
    if (inputs.paths.length > 0) {
      const loadOptions = {
        include: config.input.include,
        exclude: config.input.exclude,
        maxFileMegabytes: config.input.maxFileMegabytes,
        ...(config.input.textField === undefined ? {} : { textField: config.input.textField }),
        ...(config.input.titleField === undefined ? {} : { titleField: config.input.titleField }),
        ...(config.input.idField === undefined ? {} : { idField: config.input.idField }),
        ...(context.signal === undefined ? {} : { signal: context.signal }),
      };
      for await (const event of loadDocuments([...inputs.paths], loadOptions)) {
        if (event.type === 'document') {
          accept(event.document.title, event.document.source, event.document.text, event.document.metadata);
        } else if (event.type === 'warning') {
          context.warn(event.warning.code, event.warning.message, event.warning.source);
        } else {
          context.progress(event.bytes, event.totalBytes, 'bytes');
        }
      }
    }

    const replaced = new Set<string>();
    for (const source of loadedSources) {
      const previous = existingBySource.get(source);
      if (previous && !loaded.has(previous.id)) replaced.add(previous.id);
    }
    const added = [...loaded.values()].filter((document) => !existingById.has(document.id));
    const finalIds = [...existing.map((document) => document.id).filter((id) => !replaced.has(id)), ...added.map((d) => d.id)];
    if (finalIds.length === 0) {
      throw new KgragError('nothing to index: no readable document was found in the inputs', {
        code: 'INDEX_NO_DOCUMENTS',
        category: 'input',
        hint: 'check the paths and the warnings above; supported files are .txt .md .html .pdf .json .jsonl .csv',
      });
    }
    return {
      counts: { documents: finalIds.length, added: added.length, replaced: replaced.size, unchanged: loaded.size - added.length },
      outputVersion: contentId('documents', Array.from(finalIds).sort()),
      async write(tx) {
        await tx.table('documents').deleteWhere('id', [...replaced]);
        await tx.table('documents').upsert(added);
      },
    };
  },
};
