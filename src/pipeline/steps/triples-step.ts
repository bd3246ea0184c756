import { appendAll } from '../../core/append-all.js';
import { runTask, type CooperativeTask } from '../../core/cooperative-task.js';
import type { KgragConfig } from '../../core/config/config-schema.js';
import { KgragError } from '../../core/errors.js';
import { contentId, sha256 } from '../../core/ids.js';
import { mapWithConcurrency } from '../../core/map-with-concurrency.js';
import type { PromptLibrary } from '../../core/prompt-library.js';
import type { ExtractionRecord, RunRecord, TripleRecord } from '../../core/types.js';
import { assignOpenieDocs } from '../../extract/triples/assign-openie-docs.js';
import { extractOpenie } from '../../extract/triples/extract-openie.js';
import type { TripleExtraction } from '../../extract/triples/extracted-triples.js';
import { createNlpTripleExtractor, nlpTripleExtractorVersion } from '../../extract/triples/nlp-triples.js';
import { openiePrompts } from '../../extract/triples/openie-prompts.js';
import type { OpenieFile } from '../../extract/triples/parse-openie-file.js';
import { buildTripleIndex, type TripleIndex, type TripleIndexRemoval, type TripleRow } from '../../extract/triples/triple-index.js';
import { planTripleChunkRemoval } from '../../extract/triples/remove-triple-chunks.js';
import { appendTripleRows, decodeTripleIndex, encodeTripleIndex, encodeTripleIndexRemoval, encodedTripleIndexCounts } from '../../extract/triples/triple-index-codec.js';
import { LlmCallError } from '../../providers/llm/llm-call-error.js';
import { withCallCount } from '../../providers/llm/with-call-count.js';
import { normalizePhrase } from '../../text/normalize-phrase.js';
import type { Store } from '../../store/store.js';
import { recordStatisticsEpoch, statisticsEpochOf } from '../corpus-statistics.js';
import type { PipelineStep, StepContext, StepOutput } from '../pipeline-step.js';
import { loadEncodedTripleIndex, storeEncodedTripleIndex, storeTripleIndex, type TripleIndexRemovalMaps, type TripleIndexRemovalRecord } from '../stored-triple-index.js';
import { promptsHash } from './llm-extract-step.js';
import { positionsOf } from '../../core/positions-of.js';

/** `extractor` of LLM OpenIE replies in the `extractions` table. */
export const llmOpenieExtractor = 'llm-openie';

/** Store keys of an imported OpenIE file: the parsed file (blob) and what it is (meta). */
export const openieImportKey = 'openie-import';

/** What the workspace knows about its OpenIE import (meta {@link openieImportKey}). */
export interface OpenieImportMeta {
  /** SHA-256 of the stored import. */
  hash: string;
  /** The file it was read from. */
  source: string;
  docs: number;
  triples: number;
  entities: number;
}

/** What an LLM OpenIE stores per chunk. */
export interface StoredOpenieExtraction extends TripleExtraction {
  dropped: { entities: number; triples: number };
  /** True when a reply could not be used even after its repair turn. */
  failed: boolean;
  problems: string[];
}

/** Which extractor `extract.triples.extractor` means in a mode: "auto" is the LLM in standard mode when one is configured. */
export function tripleExtractorFor(config: KgragConfig, mode: 'fast' | 'standard', hasLlm: boolean): 'nlp' | 'llm' {
  const setting = config.extract.triples.extractor;
  if (setting !== 'auto') return setting;
  return mode === 'standard' && hasLlm ? 'llm' : 'nlp';
}

/** The prompt hash LLM OpenIE replies are stored under: the two prompts as the workspace has them, and the model. */
export function openiePromptsHash(prompts: PromptLibrary, modelId: string): string {
  return promptsHash(prompts, [openiePrompts.ner, openiePrompts.triples], { model: modelId });
}

/** The imported OpenIE file of the workspace, if any. */
export async function readOpenieImport(store: Store): Promise<OpenieFile | undefined> {
  const bytes = await store.getBlob(openieImportKey);
  return bytes ? (JSON.parse(new TextDecoder().decode(bytes)) as OpenieFile) : undefined;
}

/**
 * Stores a parsed OpenIE file as the workspace's import (replacing an earlier one) and, when it differs from
 * what is stored, marks the `triples` step as pending, so that the next index run rebuilds the triples and
 * every step after them. Returns whether anything changed.
 */
export async function saveOpenieImport(store: Store, parsed: OpenieFile, source: string): Promise<{ hash: string; changed: boolean }> {
  const bytes = new TextEncoder().encode(JSON.stringify(parsed));
  const hash = sha256(bytes);
  const previous = await store.getMeta<OpenieImportMeta>(openieImportKey);
  const meta: OpenieImportMeta = {
    hash,
    source,
    docs: parsed.docs.length,
    triples: parsed.docs.reduce((sum, doc) => sum + doc.triples.length, 0),
    entities: parsed.docs.reduce((sum, doc) => sum + doc.entities.length, 0),
  };
  if (previous?.hash === hash) {
    if (previous.source !== source) await store.setMeta(openieImportKey, meta);
    return { hash, changed: false };
  }
  await store.transaction(async (tx) => {
    await tx.setBlob(openieImportKey, bytes);
    await tx.setMeta(openieImportKey, meta);
    const [run] = await tx.table('runs').get(['triples']);
    if (run) await tx.table('runs').upsert([{ ...run, status: 'pending' } satisfies RunRecord]);
  });
  return { hash, changed: true };
}

/**
 * Store keys of the NLP extractor's record of which chunks its stored triples cover: the chunk ids (blob, JSON) and
 * what they were extracted with (meta, {@link NlpChunksMeta}; null when the triples are not the NLP extractor's).
 */
const nlpChunkKeys = { chunks: 'triples:nlp-chunks', meta: 'triples:nlp-chunks-meta' } as const;

/** What {@link nlpChunkKeys}.meta holds. */
interface NlpChunksMeta {
  extractorVersion: number;
  /** The triple index version the chunk list goes with. */
  indexVersion: string;
  /** Every stored row names two phrases, which lets a delete update the index in place (see `removeTripleChunks`). */
  everyRowNamesTwoPhrases?: boolean;
}

/** Whether a row's subject and object both normalize to a phrase (the index skips a row whose one does not). */
const namesTwoPhrases = (row: TripleRow): boolean => normalizePhrase(row.subject) !== '' && normalizePhrase(row.object) !== '';

/** Extraction records are written in groups as replies arrive, so a killed run keeps what it paid for. */
const recordsPerWrite = 16;

/**
 * OpenIE triples of every chunk (HippoRAG's offline indexing), for the methods that read triples (HippoRAG's PPR, relation retrieval):
 * with the LLM (two calls per chunk, replies kept in `extractions` and written as they arrive, so neither a
 * rebuild nor a killed run pays twice), or with the NLP patterns of `nlp-triples` (re-extracted on every
 * run by a fresh extractor, chunks in id order, which makes the result a function of the chunks). Chunks
 * whose document matches a passage of an imported OpenIE file (`kgrag import openie`) take its triples and
 * are not extracted. Triple ids are `contentId('triple', chunkId, subject, predicate, object)`; the `triples`
 * table is replaced.
 */
export function createTriplesStep(mode: 'fast' | 'standard'): PipelineStep {
  return {
    name: 'triples',
    // 2: the triple index is stored with the triples (a workspace of version 1 rebuilds it once, LLM replies reused).
    version: 2,
    // `statistics`: the NLP extractor's triples of kept chunks are kept between refreshes (see `updateNlpTriples`).
    reads: ['chunk', 'statistics'],
    settings: (config, environment) =>
      tripleExtractorFor(config, mode, environment.llmModel !== undefined) === 'llm'
        ? { extractor: 'llm', model: environment.llmModel, prompts: promptsHash(environment.prompts, [openiePrompts.ner, openiePrompts.triples], null) }
        : { extractor: 'nlp', version: nlpTripleExtractorVersion },
    englishOnly: (context) => tripleExtractorFor(context.config, mode, context.llm !== undefined) === 'nlp',

    async run(context: StepContext) {
      const { store } = context;
      const extractor = tripleExtractorFor(context.config, mode, context.llm !== undefined);
      const epoch = extractor === 'nlp' ? await statisticsEpochOf(context, 'triples') : undefined;
      if (epoch?.incremental) {
        const updated = await updateNlpTriples(context, epoch.epoch);
        if (updated) return updated;
      }
      const chunks = await store.table('chunks').pick(['id', 'documentId', 'ordinal', 'text']);
      const openie = await readOpenieImport(store);
      const assignment = openie ? assignOpenieDocs(openie.docs, await store.table('documents').pick(['id', 'title', 'text']), chunks) : undefined;
      if (assignment && assignment.unmatched.length > 0) {
        const titles = assignment.unmatched.slice(0, 3).map((doc) => `#${doc.index} "${doc.title ?? doc.passage.slice(0, 40)}"`);
        context.warn(
          'openie-unmatched',
          `${assignment.unmatched.length} of ${openie?.docs.length} imported OpenIE passages match no indexed document (${titles.join(', ')}${assignment.unmatched.length > 3 ? ', …' : ''}); index the corpus the file was made from, with the same titles and texts`,
        );
      }
      const imported = assignment?.byChunk ?? new Map<string, TripleExtraction>();
      const pending = chunks.filter((chunk) => !imported.has(chunk.id));

      let extracted: LlmWork;
      if (extractor === 'llm') {
        extracted = await extractWithLlm(context, pending, chunks.map((chunk) => chunk.id));
      } else {
        const titles = new Map((await store.table('documents').pick(['id', 'title'])).map((document) => [document.id, document.title]));
        extracted = { ...noLlmWork, byChunk: await runTask(extractWithNlp(context, pending, titles), { signal: context.signal }) };
      }

      const byChunk = new Map<string, TripleExtraction>();
      const entities = new Set<string>();
      for (const chunk of chunks) {
        const extraction = imported.get(chunk.id) ?? extracted.byChunk.get(chunk.id);
        if (!extraction) continue;
        byChunk.set(chunk.id, extraction);
        for (const entity of extraction.entities) entities.add(entity.toLowerCase());
      }
      const rows: TripleRecord[] = tripleRowsOf(
        chunks.map((chunk) => chunk.id),
        byChunk,
      );
      if (extractor === 'llm' && rows.length === 0 && pending.length > 0) {
        throw new KgragError(`LLM OpenIE found no triples in ${pending.length} chunks (${extracted.failed} replies unusable)`, {
          code: 'INDEX_NO_TRIPLES',
          category: 'provider',
          hint:
            'check the model: a context window too small for the OpenIE prompts, a "thinking" model that answers outside the JSON format, or an endpoint that is not a chat model; or set extract.triples.extractor: nlp' +
            (extracted.problems.length > 0 ? `; first problems: ${extracted.problems.slice(0, 3).join(' | ')}` : ''),
        });
      }
      const outputVersion = contentId('triples', rows.map((row) => row.id));
      return {
        counts: {
          chunks: chunks.length,
          triples: rows.length,
          entities: entities.size,
          importedChunks: imported.size,
          extracted: extracted.extracted,
          reused: extracted.reused,
          failed: extracted.failed,
          droppedTriples: extracted.dropped.triples,
          droppedEntities: extracted.dropped.entities,
          llmCriticalPath: extracted.criticalPath,
          ...(openie && assignment
            ? { openieDocs: openie.docs.length, openieMatched: assignment.matched, openieUnmatched: assignment.unmatched.length, openieTriples: assignment.triples, openieEntities: assignment.entities }
            : {}),
        },
        outputVersion,
        async write(tx) {
          if (extractor === 'llm') {
            // Rewritten in chunk order (replies were stored as they arrived); replies of other prompts, other
            // models or vanished chunks go.
            await tx.table('extractions').deleteWhere('extractor', [llmOpenieExtractor]);
            await tx.table('extractions').upsert(extracted.records);
          }
          await tx.table('triples').clear();
          await tx.table('triples').upsert(rows);
          await storeTripleIndex(tx, buildTripleIndex(rows), outputVersion);
          if (epoch && !openie) {
            await writeNlpChunks(tx, chunks.map((chunk) => chunk.id), outputVersion, rows.every(namesTwoPhrases));
            await recordStatisticsEpoch(tx, 'triples', epoch.epoch);
          } else {
            await tx.setMeta(nlpChunkKeys.meta, null);
          }
        },
      };
    },
  };
}

async function writeNlpChunks(tx: Store, chunkIds: readonly string[], indexVersion: string, everyRowNamesTwoPhrases: boolean): Promise<void> {
  await tx.setBlob(nlpChunkKeys.chunks, Buffer.from(JSON.stringify(chunkIds), 'utf8'));
  const meta: NlpChunksMeta = { extractorVersion: nlpTripleExtractorVersion, indexVersion, everyRowNamesTwoPhrases };
  await tx.setMeta(nlpChunkKeys.meta, meta);
}

/**
 * The NLP triples between refreshes of the corpus statistics: only the chunks added since the last run are parsed,
 * and the stored triples of the others are kept. The parser's lexicon grows with what it reads (see
 * `NlpTripleExtractor`), so a fresh build, which parses every chunk in one pass, can differ in a few chunks: that is
 * the corpus state this step freezes between refreshes, and a refresh parses everything again. The triple index is
 * updated in place when the new chunks follow every kept one and no removed chunk had triples (an add: the index of a
 * fresh build over the same rows, byte for byte); otherwise it is built again from the stored rows. Undefined when
 * there is nothing to start from (an OpenIE import, no record of the chunks parsed, another extractor version).
 */
async function updateNlpTriples(context: StepContext, epoch: string): Promise<StepOutput | undefined> {
  const { store } = context;
  const [meta, stored, importMeta] = await Promise.all([
    store.getMeta<NlpChunksMeta | null>(nlpChunkKeys.meta),
    loadEncodedTripleIndex(store),
    store.getMeta<OpenieImportMeta>(openieImportKey),
  ]);
  if (!meta || !stored || importMeta !== undefined || meta.extractorVersion !== nlpTripleExtractorVersion || meta.indexVersion !== stored.version) return undefined;
  const listed = await store.getBlob(nlpChunkKeys.chunks);
  if (listed === undefined) return undefined;
  const parsed = new Set(JSON.parse(Buffer.from(listed.buffer, listed.byteOffset, listed.byteLength).toString('utf8')) as string[]);
  const chunkIds = (await store.table('chunks').pick(['id'])).map((chunk) => chunk.id);
  const present = new Set(chunkIds);
  const added = chunkIds.filter((id) => !parsed.has(id));
  const removed = [...parsed].filter((id) => !present.has(id));
  const lastKept = chunkIds.findLastIndex((id) => parsed.has(id));
  const firstAdded = chunkIds.findIndex((id) => !parsed.has(id));

  const addedChunks = await store.table('chunks').get(added);
  const titles = new Map((await store.table('documents').get([...new Set(addedChunks.map((chunk) => chunk.documentId))])).map((document) => [document.id, document.title]));
  const byChunk = addedChunks.length === 0 ? new Map<string, TripleExtraction>() : await runTask(extractWithNlp(context, addedChunks, titles), { signal: context.signal });
  const newRows = tripleRowsOf(added, byChunk);
  const removedRows = removed.length === 0 ? [] : await store.table('triples').where('chunkId', removed);

  const everyRowNamesTwoPhrases = meta.everyRowNamesTwoPhrases === true && newRows.every(namesTwoPhrases);
  const appendable = firstAdded < 0 || lastKept < firstAdded;
  // Removed chunks leave the stored index in place when every row names two phrases (see `removeTripleChunks`).
  let base: Uint8Array | undefined = removedRows.length === 0 ? stored.blob : undefined;
  let removal: { from: TripleIndexRemovalRecord; maps: TripleIndexRemovalMaps } | undefined;
  if (removedRows.length > 0 && appendable && meta.everyRowNamesTwoPhrases === true) {
    const index = decodeTripleIndex(stored.blob);
    const plan = index && (await planTripleChunkRemoval(index, removed, (ids) => store.table('triples').where('chunkId', ids)));
    base = plan && encodeTripleIndexRemoval(stored.blob, plan);
    // A delete alone: `embed-triples` follows the removal instead of comparing every id.
    if (index && plan && base && newRows.length === 0) removal = removalRecord(stored.version, index, plan);
  }
  let blob = appendable && base !== undefined ? (newRows.length === 0 ? base : appendTripleRows(base, newRows)) : undefined;
  // The stored index with rows after its own: its phrases and facts keep their places, which lets `embed-triples` append too.
  const storedCounts = blob !== undefined && base === stored.blob ? encodedTripleIndexCounts(stored.blob) : undefined;
  let rewritten: TripleRecord[] | undefined;
  if (blob === undefined) {
    // Rows in chunk order, the stored ones as they were extracted: what a build reads.
    const positionOf = positionsOf(chunkIds);
    const gone = new Set(removed);
    const kept = (await store.table('triples').all()).filter((row) => !gone.has(row.chunkId));
    rewritten = [...kept, ...newRows].map((row, order) => ({ row, order })).sort((left, right) => (positionOf.get(left.row.chunkId) as number) - (positionOf.get(right.row.chunkId) as number) || left.order - right.order).map(({ row }) => row);
    blob = encodeTripleIndex(buildTripleIndex(rewritten)) ?? new Uint8Array(0);
  }
  // Chained to the stored version: the same updates of the same index give the same version (and none, the same).
  const outputVersion = added.length === 0 && removed.length === 0 ? stored.version : contentId('triples', stored.version, 'added', newRows.map((row) => row.id), 'removed', removed);
  const entities = new Set<string>();
  for (const extraction of byChunk.values()) for (const entity of extraction.entities) entities.add(entity.toLowerCase());
  const indexBlob = blob;
  const appendedTo = storedCounts && outputVersion !== stored.version ? { version: stored.version, ...storedCounts } : undefined;
  return {
    counts: {
      chunks: chunkIds.length,
      extracted: added.length,
      reused: chunkIds.length - added.length,
      addedTriples: newRows.length,
      removedTriples: removedRows.length,
      addedEntities: entities.size,
      indexRebuilt: rewritten ? 1 : 0,
    },
    outputVersion,
    async write(tx) {
      if (rewritten) {
        await tx.table('triples').clear();
        await tx.table('triples').upsert(rewritten);
      } else {
        if (removed.length > 0) await tx.table('triples').deleteWhere('chunkId', removed);
        await tx.table('triples').upsert(newRows);
      }
      await storeEncodedTripleIndex(tx, indexBlob, outputVersion, appendedTo, removal);
      await writeNlpChunks(tx, chunkIds, outputVersion, everyRowNamesTwoPhrases);
      await recordStatisticsEpoch(tx, 'triples', epoch);
    },
  };
}

/** What `embed-triples` needs to follow the removal `plan` made from `index` (of output version `version`): see {@link TripleIndexRemovalRecord}. */
function removalRecord(version: string, index: TripleIndex, plan: TripleIndexRemoval): { from: TripleIndexRemovalRecord; maps: TripleIndexRemovalMaps } {
  const gone = (map: Int32Array, ids: readonly string[]): string[] => {
    const found: string[] = [];
    map.forEach((item, old) => {
      if (item < 0) found.push(ids[old] as string);
    });
    return found;
  };
  const renamed = [...plan.factIds.keys()];
  return {
    from: {
      version,
      phrases: plan.newPhrase.length,
      facts: plan.newFact.length,
      chunks: index.chunkIds.length,
      removedPhraseIds: gone(plan.newPhrase, index.phraseIds),
      staleFactIds: [...gone(plan.newFact, index.factIds), ...renamed.map((fact) => index.factIds[fact] as string)],
      renamedFacts: renamed.map((fact) => plan.newFact[fact] as number).sort((left, right) => left - right),
    },
    maps: { phrases: plan.newPhrase, facts: plan.newFact },
  };
}

/** The triples rows of extractions, chunks in `chunkIds` order, each (chunk, triple) once. */
function tripleRowsOf(chunkIds: readonly string[], byChunk: ReadonlyMap<string, TripleExtraction>): TripleRow[] {
  const rows: TripleRow[] = [];
  const seen = new Set<string>();
  for (const chunkId of chunkIds) {
    for (const [subject, predicate, object] of byChunk.get(chunkId)?.triples ?? []) {
      const id = contentId('triple', chunkId, subject, predicate, object);
      if (seen.has(id)) continue;
      seen.add(id);
      rows.push({ id, subject, predicate, object, chunkId });
    }
  }
  return rows;
}

/** What the LLM path did; the NLP path does none of it. */
interface LlmWork {
  byChunk: Map<string, TripleExtraction>;
  /** The stored replies to keep, in chunk order: those of the current prompts and model for chunks that exist. */
  records: ExtractionRecord[];
  extracted: number;
  reused: number;
  failed: number;
  dropped: { entities: number; triples: number };
  problems: string[];
  /** Calls of the chunk that made the most (they run one after another). */
  criticalPath: number;
}

const noLlmWork = { records: [] as ExtractionRecord[], extracted: 0, reused: 0, failed: 0, dropped: { entities: 0, triples: 0 }, problems: [] as string[], criticalPath: 0 };

/**
 * The NLP patterns over every pending chunk, one fresh extractor, chunks in id order, as a task that pauses after every
 * chunk (Ctrl-C, SIGTERM and progress get through).
 */
function* extractWithNlp(context: StepContext, chunks: ReadonlyArray<{ id: string; documentId: string; text: string }>, titles: ReadonlyMap<string, string>): CooperativeTask<Map<string, TripleExtraction>> {
  const extractor = createNlpTripleExtractor();
  const ordered = [...chunks].sort((left, right) => (left.id < right.id ? -1 : left.id > right.id ? 1 : 0));
  const byChunk = new Map<string, TripleExtraction>();
  // A chunk text repeated under one title (a log's lines, copied boilerplate) is parsed once: its triples are the same.
  const byText = new Map<string, TripleExtraction>();
  for (const [index, chunk] of ordered.entries()) {
    const title = titles.get(chunk.documentId);
    const key = `${title ?? ''}\u0000${chunk.text}`;
    let extraction = byText.get(key);
    if (extraction === undefined) {
      extraction = extractor.extract(chunk.text, title);
      byText.set(key, extraction);
    }
    byChunk.set(chunk.id, extraction);
    if (index % 250 === 0 || index === ordered.length - 1) context.progress(index + 1, ordered.length, 'chunks');
    yield;
  }
  return byChunk;
}

/**
 * LLM OpenIE of the pending chunks whose replies are not stored yet; stored ones are reused. `chunkOrder` lists
 * every chunk of the workspace: the kept replies are returned in its order, so that the table does not depend on
 * the order replies arrived in.
 */
async function extractWithLlm(context: StepContext, chunks: ReadonlyArray<{ id: string; text: string }>, chunkOrder: readonly string[]): Promise<LlmWork> {
  const { store, config, llm } = context;
  if (!llm) {
    throw new KgragError('extract.triples.extractor is "llm", and no LLM is configured', {
      code: 'INDEX_TRIPLES_NEED_LLM',
      category: 'config',
      hint: 'set KGRAG_LLM_BASE_URL (e.g. Ollama) or OPENAI_API_KEY, or set extract.triples.extractor: nlp (or auto)',
    });
  }
  const hash = openiePromptsHash(context.prompts, llm.modelId);
  const kept = new Map<string, ExtractionRecord>();
  for (const record of await store.table('extractions').where('extractor', [llmOpenieExtractor])) {
    if (record.promptHash === hash) kept.set(record.chunkId, record);
  }
  const pending = chunks.filter((chunk) => !kept.has(chunk.id));
  let done = chunks.length - pending.length;
  context.progress(done, chunks.length, 'chunks');

  let unwritten: ExtractionRecord[] = [];
  let writing = Promise.resolve();
  let writeError: { error: unknown } | undefined;
  const flush = (): Promise<void> => {
    const batch = unwritten;
    unwritten = [];
    writing = writing
      .then(async () => {
        if (batch.length > 0 && !writeError) await store.table('extractions').upsert(batch);
      })
      .catch((error: unknown) => {
        writeError ??= { error };
      });
    return writing;
  };
  let created: ExtractionRecord[];
  let criticalPath = 0;
  try {
    created = await mapWithConcurrency(
      pending,
      Math.max(1, config.llm.concurrency * 4),
      async (chunk) => {
        let extraction: StoredOpenieExtraction;
        let raw: string[] = [];
        // Named entities first, then the triples that name them.
        const counted = withCallCount(llm);
        try {
          const result = await extractOpenie(counted.model, {
            text: chunk.text,
            prompts: context.prompts,
            sources: [sha256(chunk.text)],
            ...(context.signal === undefined ? {} : { abortSignal: context.signal }),
          });
          raw = result.replies;
          extraction = { entities: result.entities, triples: result.triples, dropped: result.dropped, failed: false, problems: [] };
        } catch (error) {
          if (!(LlmCallError.isInstance(error) && error.code === 'LLM_INVALID_OUTPUT')) throw error;
          extraction = { entities: [], triples: [], dropped: { entities: 0, triples: 0 }, failed: true, problems: [error.message] };
        }
        const record: ExtractionRecord = {
          id: contentId('extraction', chunk.id, llmOpenieExtractor, hash),
          chunkId: chunk.id,
          extractor: llmOpenieExtractor,
          model: llm.modelId,
          promptHash: hash,
          raw: JSON.stringify(raw),
          parsed: extraction,
        };
        criticalPath = Math.max(criticalPath, counted.calls());
        unwritten.push(record);
        if (unwritten.length >= recordsPerWrite) void flush();
        done++;
        context.progress(done, chunks.length, 'chunks');
        return record;
      },
      context.signal,
    );
  } finally {
    await flush();
  }
  if (writeError) throw writeError.error;

  for (const record of created) kept.set(record.chunkId, record);
  const byChunk = new Map<string, TripleExtraction>();
  const records = chunkOrder.flatMap((chunkId) => kept.get(chunkId) ?? []);
  const work: LlmWork = { byChunk, records, extracted: created.length, reused: chunks.length - pending.length, failed: 0, dropped: { entities: 0, triples: 0 }, problems: [], criticalPath };
  for (const chunk of chunks) {
    const extraction = kept.get(chunk.id)?.parsed as StoredOpenieExtraction | undefined;
    if (!extraction) continue;
    byChunk.set(chunk.id, extraction);
    work.dropped.entities += extraction.dropped.entities;
    work.dropped.triples += extraction.dropped.triples;
    if (extraction.failed) {
      work.failed++;
      appendAll(work.problems, extraction.problems);
      context.warn('openie-failed', `chunk ${chunk.id}: ${extraction.problems[0] ?? 'unusable reply'}`);
    }
  }
  return work;
}
