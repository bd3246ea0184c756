import { KgragError } from '../../core/errors.js';
import { contentId, sha256 } from '../../core/ids.js';
import type { DocumentRecord } from '../../core/types.js';
import { boundMetadataDepth, tooDeepMessage } from '../../text/load/bound-metadata-depth.js';
import { listWithMore } from '../../text/load/list-with-more.js';
import { loadDocuments } from '../../text/load/load-documents.js';
import type { LoadWarningCode } from '../../text/load/load-types.js';
import { normalizeText } from '../../text/normalize-text.js';
import { supportedFileTypesText } from '../../text/load/file-format.js';
import { memorySize, indexCapacity } from '../index-capacity.js';
import type { PipelineStep, StepContext } from '../pipeline-step.js';

/** A document's id: the hash of its title and normalized text, so identical input gives an identical id. */
export function documentId(title: string, text: string): string {
  return contentId('document', title, text);
}

/** Warnings about files that were read all the same: their documents that this run did not load may be pruned. */
const readAnyway: ReadonlySet<LoadWarningCode> = new Set(['empty', 'too-deep']);

/** Whether a document's source names a file under (or equal to) one of the given input paths, or a record of one. */
function isUnder(source: string, paths: readonly string[]): boolean {
  return paths.some((path) => {
    const base = path.replaceAll('\\', '/').replace(/\/+$/, '');
    return source === base || source.startsWith(`${base}/`) || source.startsWith(`${base}#`);
  });
}

/**
 * Reads the inputs of this `index` call into `documents`. A source that was indexed before with
 * other content is replaced (its old document is removed; later steps drop what hung off it);
 * identical content under two sources is kept once. Documents named in `remove` are removed, and with `prune`
 * so are those under the given paths that this run did not load.
 */
export const loadStep: PipelineStep = {
  name: 'load',
  version: 1,
  reads: [],
  settings: () => ({}),
  mustRun: (context) => context.inputs.paths.length > 0 || context.inputs.documents.length > 0 || (context.inputs.remove?.length ?? 0) > 0,

  async run(context: StepContext) {
    const { store, inputs, config } = context;
    const existing = await store.table('documents').pick(['id', 'source', 'createdAt']);
    const existingById = new Map(existing.map((document) => [document.id, document]));
    const existingBySource = new Map(existing.map((document) => [document.source, document]));
    const loaded = new Map<string, DocumentRecord>();
    const loadedSources = new Set<string>();
    const labels = Object.entries(inputs.sourceLabels ?? {});
    /** A loaded file's source as stored: its label, for a labelled path (and `<label>#…` for its records). */
    const labelled = (source: string): string => {
      for (const [path, label] of labels) {
        if (source === path) return label;
        if (source.startsWith(`${path}#`)) return `${label}${source.slice(path.length)}`;
      }
      return source;
    };
    /** Sources of files this run could not read: their documents are never pruned. */
    const unreadSources: string[] = [];
    const createdAt = new Date().toISOString();
    // Said before any work on them: documents the index could not be built with on this machine are skipped.
    const capacity = indexCapacity(config.chunking, context.steps);
    let chunks = await store.table('chunks').count();

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
      if (!existingById.has(id)) {
        const own = capacity.chunksOf(text.length);
        const needed = capacity.neededBytes(chunks + own);
        if (needed > capacity.limitBytes) {
          unreadSources.push(source);
          context.warn(
            'too-large',
            `"${source}" (${(text.length / 1e6).toFixed(1)} million characters) would make the index at least ${chunks + own} chunks, which needs at least ${memorySize(needed)} of memory, more than this process may use (${memorySize(capacity.limitBytes)}, Node's heap limit), so it was skipped; split it, index it in a workspace of its own, or give Node more memory (NODE_OPTIONS=--max-old-space-size=<MB>)`,
            source,
          );
          return;
        }
        chunks += own;
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

    const cutSources: string[] = [];
    for (const document of inputs.documents) {
      const source = document.source ?? `inline:${document.title}`;
      // Loaders normalize and bound what they read; documents handed over in memory are done here.
      const bounded = boundMetadataDepth(document.metadata ?? {});
      if (bounded.cut > 0) cutSources.push(source);
      accept(document.title, source, normalizeText(document.text), bounded.metadata);
    }
    if (cutSources.length > 0) {
      context.warn(
        'too-deep',
        tooDeepMessage(`the metadata of ${listWithMore(cutSources.map((source) => `"${source}"`))} nests`, cutSources.length > 1),
      );
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
          accept(event.document.title, labelled(event.document.source), event.document.text, event.document.metadata);
        } else if (event.type === 'warning') {
          if (!readAnyway.has(event.warning.code)) unreadSources.push(labelled(event.warning.source));
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
    // A labelled file indexed before under its path (an upload of an older kgrag) is the same source.
    for (const [path, label] of labels) {
      const previous = existingBySource.get(path);
      if (previous && loadedSources.has(label) && !loaded.has(previous.id)) replaced.add(previous.id);
    }
    const inputSources = [...inputs.paths, ...labels.map(([, label]) => label)];
    const removed = new Set((inputs.remove ?? []).filter((id) => existingById.has(id) && !loaded.has(id)));
    const unseen = existing.filter(
      (document) =>
        !loaded.has(document.id) &&
        !replaced.has(document.id) &&
        !removed.has(document.id) &&
        isUnder(document.source, inputSources) &&
        !unreadSources.some((source) => document.source === source || document.source.startsWith(`${source}#`)),
    );
    if (inputs.prune === true) {
      for (const document of unseen) removed.add(document.id);
    } else if (unseen.length > 0) {
      const names = unseen.slice(0, 3).map((document) => document.source);
      context.warn(
        'source-gone',
        `${unseen.length} indexed document${unseen.length === 1 ? ' was' : 's were'} not found under the given paths (${names.join(', ')}${unseen.length > 3 ? ', …' : ''}) and ${unseen.length === 1 ? 'is' : 'are'} kept; run the same command with --prune to remove ${unseen.length === 1 ? 'it' : 'them'}`,
      );
    }
    const added = [...loaded.values()].filter((document) => !existingById.has(document.id));
    // A file renamed or moved under the inputs keeps its document (the same title and text are the same id), which takes
    // the new source; its chunks and everything after them are unchanged, so no later step runs for a move.
    const moved = [...loaded.values()].flatMap((document) => {
      const previous = existingById.get(document.id);
      if (previous === undefined || previous.source === document.source || loadedSources.has(previous.source) || !isUnder(previous.source, inputSources)) return [];
      return [{ ...document, createdAt: previous.createdAt }];
    });
    const finalIds = [...existing.map((document) => document.id).filter((id) => !replaced.has(id) && !removed.has(id)), ...added.map((d) => d.id)];
    if (finalIds.length === 0 && removed.size > 0) {
      throw new KgragError(`this run would remove all ${removed.size} documents of the index, leaving it empty; nothing was removed`, {
        code: 'INDEX_WOULD_BE_EMPTY',
        category: 'input',
        hint: 'to start over, delete the workspace\'s kgrag.db files; to keep an index, leave at least one document (check the paths or selectors)',
      });
    }
    if (finalIds.length === 0) {
      throw new KgragError('nothing to index: no readable document was found in the inputs', {
        code: 'INDEX_NO_DOCUMENTS',
        category: 'input',
        hint: `check the paths and the warnings above; kgrag reads ${supportedFileTypesText} files`,
      });
    }
    // A new version of an indexed source is one replacement, not an addition besides it.
    const replacing = added.filter((document) => existingBySource.has(document.source) || labels.some(([path, label]) => label === document.source && existingBySource.has(path))).length;
    return {
      counts: {
        documents: finalIds.length,
        added: added.length - replacing,
        replaced: replaced.size,
        removed: removed.size,
        moved: moved.length,
        unchanged: loaded.size - added.length - moved.length,
      },
      outputVersion: contentId('documents', Array.from(finalIds).sort()),
      changedRecords: moved.length > 0,
      async write(tx) {
        await tx.table('documents').deleteWhere('id', [...replaced, ...removed]);
        await tx.table('documents').upsert([...added, ...moved]);
      },
    };
  },
};
