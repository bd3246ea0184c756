import { contentId } from '../../../core/ids.js';
import type { ExtractionRecord } from '../../../core/types.js';
import { runTask } from '../../../core/cooperative-task.js';
import { extractNounPhrasesTask, nounPhraseExtractorVersion, type PhraseExtraction } from '../../../extract/nlp-graph/noun-phrase-extractor.js';
import { nounPhraseExtractor } from '../../../pipeline/steps/nlp-extract-step.js';
import type { Store } from '../../../store/store.js';
import type { PhraseOccurrence } from './phrase-table.js';
import { lowerCaseWords, PhraseTableBuilder, type PhraseTable } from './phrase-table.js';

/** `extractor` of the noun phrases the `keywords` step parsed itself, one record per chunk in `extractions`. */
export const autoKgNounPhrasesExtractor = 'autokg-noun-phrases';

/** What {@link chunkNounPhrases} found and what the step must write. */
export interface ChunkNounPhrases {
  /** Mentions and lower-case words of every chunk, in the order of the chunk ids asked for. */
  table: PhraseTable;
  /** Records of the chunks parsed now. */
  created: ExtractionRecord[];
  /** Ids of this step's records that are no longer needed (another version, a chunk that is gone, or nlp-extract's record exists). */
  staleIds: string[];
  /** Chunks whose stored or parsed phrases were read, not taken from `stored` (all of them without it). */
  readChunks: number;
}

/** The settings a {@link PhraseTable} of these phrases is built with. */
const tableSettings = `noun-phrases:${nounPhraseExtractorVersion}`;

/**
 * Noun phrases of every chunk for the LLM-free keywords: nlp-extract's, when it ran (fast mode with a graph method)
 * with the current extractor version; else the ones this step stored on an earlier run; else parsed now and stored
 * (`created`), so that an update of an AutoKG-only index parses only its new chunks, not the whole corpus. The
 * records are keyed by chunk and deleted with it. With the table of an earlier run (`stored`), a chunk it holds keeps
 * its row while the same kind of record backs it (nlp-extract's, or a current one of this step's), and only the other
 * chunks' records are read: what this gives is the table of reading every chunk. `textsOf` gives the texts of chunks
 * by id, for those parsed and for their lower-case words.
 */
export async function chunkNounPhrases(
  store: Store,
  chunkIds: readonly string[],
  textsOf: (ids: readonly string[]) => Promise<Map<string, string>>,
  stored?: PhraseTable,
  signal?: AbortSignal,
): Promise<ChunkNounPhrases> {
  const version = String(nounPhraseExtractorVersion);
  const usable = stored?.settings === tableSettings ? stored : undefined;
  const storedRow = new Map(usable?.chunkIds.map((id, row) => [id, row]));
  // Which chunks have a current record of either kind: two narrow reads, no extraction parsed.
  const sharedIds = new Set<string>();
  if (usable) {
    for (const record of await store.table('extractions').pick(['chunkId', 'promptHash'], { column: 'extractor', values: [nounPhraseExtractor] })) {
      if (record.promptHash === version) sharedIds.add(record.chunkId);
    }
  }
  const wanted = new Set(chunkIds);
  const ownRecords = await store.table('extractions').pick(['id', 'chunkId', 'promptHash'], { column: 'extractor', values: [autoKgNounPhrasesExtractor] });
  const ownIds = new Set(ownRecords.filter((record) => record.promptHash === version).map((record) => record.chunkId));
  const keeps = (id: string): boolean => {
    const row = storedRow.get(id);
    if (row === undefined || usable === undefined) return false;
    return usable.shared[row] === 1 ? sharedIds.has(id) : !sharedIds.has(id) && ownIds.has(id);
  };
  const needed = chunkIds.filter((id) => !keeps(id));

  const shared = new Map<string, PhraseOccurrence[]>();
  const own = new Map<string, PhraseOccurrence[]>();
  const records = usable ? await store.table('extractions').where('chunkId', needed) : await store.table('extractions').where('extractor', [nounPhraseExtractor, autoKgNounPhrasesExtractor]);
  for (const record of records) {
    if (record.extractor === nounPhraseExtractor && record.promptHash === version) shared.set(record.chunkId, mentionsOf(record.parsed as PhraseExtraction));
  }
  for (const record of records) {
    if (record.extractor === autoKgNounPhrasesExtractor && record.promptHash === version && wanted.has(record.chunkId) && !shared.has(record.chunkId)) own.set(record.chunkId, decodeMentions(record.parsed as StoredMentions));
  }
  const staleIds = ownRecords.filter((record) => record.promptHash !== version || !wanted.has(record.chunkId) || shared.has(record.chunkId) || sharedIds.has(record.chunkId)).map((record) => record.id);
  const texts = await textsOf(needed);
  const missing = needed.filter((id) => !shared.has(id) && !own.has(id));
  // Parsed as nlp-extract parses them, in turns of the event loop.
  const extracted = (await runTask(extractNounPhrasesTask(missing.map((id) => texts.get(id) ?? '')), { signal })).values();
  const created: ExtractionRecord[] = [];
  for (const id of missing) {
    const mentions = mentionsOf(extracted.next().value as PhraseExtraction);
    own.set(id, mentions);
    created.push({
      id: contentId('extraction', id, autoKgNounPhrasesExtractor, version),
      chunkId: id,
      extractor: autoKgNounPhrasesExtractor,
      model: 'wink-eng-lite-web-model',
      promptHash: version,
      raw: '',
      parsed: encodeMentions(mentions),
    });
  }
  // An addition keeps every stored row, in order, ahead of the new ones: the stored table is continued, not copied row by row.
  const kept = usable !== undefined && usable.chunkIds.length <= chunkIds.length && usable.chunkIds.every((id, row) => chunkIds[row] === id && keeps(id)) ? usable.chunkIds.length : 0;
  const builder = kept > 0 && usable ? PhraseTableBuilder.continuing(usable) : new PhraseTableBuilder(tableSettings);
  for (const id of kept > 0 ? chunkIds.slice(kept) : chunkIds) {
    const row = storedRow.get(id);
    if (row !== undefined && usable && keeps(id)) {
      builder.copy(usable, row);
      continue;
    }
    const mentions = shared.get(id);
    builder.add({ chunkId: id, mentions: mentions ?? own.get(id) ?? [], words: lowerCaseWords(texts.get(id) ?? ''), shared: mentions ? 1 : 0 });
  }
  return { table: builder.build(), created, staleIds, readChunks: needed.length };
}

/** This step's stored noun phrases of chunks no longer in `chunkIds` (a step run that needs no phrases still drops them). */
export async function staleNounPhraseRecords(store: Store, chunkIds: readonly string[]): Promise<string[]> {
  const wanted = new Set(chunkIds);
  const records = await store.table('extractions').pick(['id', 'chunkId'], { column: 'extractor', values: [autoKgNounPhrasesExtractor] });
  return records.filter((record) => !wanted.has(record.chunkId)).map((record) => record.id);
}

/**
 * A chunk's mentions as stored: [surface, 1 when proper], with the key third when it is not the surface in lower
 * case — a third of the size of the objects (6,119 2Wiki chunks: 5.6 MB of JSON as objects).
 */
interface StoredMentions {
  mentions: Array<[string, 0 | 1] | [string, 0 | 1, string]>;
}

function encodeMentions(mentions: readonly PhraseOccurrence[]): StoredMentions {
  return {
    mentions: mentions.map((mention) => {
      const proper = mention.kind === 'proper' ? 1 : 0;
      return mention.key === mention.surface.toLowerCase() ? [mention.surface, proper] : [mention.surface, proper, mention.key];
    }),
  };
}

function decodeMentions(stored: StoredMentions): PhraseOccurrence[] {
  return stored.mentions.map(([surface, proper, key]) => ({ key: key ?? surface.toLowerCase(), surface, kind: proper === 1 ? 'proper' : 'phrase' }));
}

/** AutoKG's keywords are the pattern spans; the names joined over several of them (`joined`) are the graph's. */
function mentionsOf(extraction: PhraseExtraction): PhraseOccurrence[] {
  return extraction.mentions.filter((mention) => !mention.joined).map((mention) => ({ key: mention.key, surface: mention.surface, kind: mention.kind }));
}
