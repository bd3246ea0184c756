import { contentId } from '../../../core/ids.js';
import type { ExtractionRecord } from '../../../core/types.js';
import { runTask } from '../../../core/cooperative-task.js';
import { extractNounPhrasesTask, nounPhraseExtractorVersion, type PhraseExtraction } from '../../../extract/nlp-graph/noun-phrase-extractor.js';
import { nounPhraseExtractor } from '../../../pipeline/steps/nlp-extract-step.js';
import type { Store } from '../../../store/store.js';
import type { PhraseOccurrence } from './cluster-tfidf-keywords.js';

/** `extractor` of the noun phrases the `keywords` step parsed itself, one record per chunk in `extractions`. */
export const autoKgNounPhrasesExtractor = 'autokg-noun-phrases';

/** What {@link chunkNounPhrases} found and what the step must write. */
export interface ChunkNounPhrases {
  /** Mentions of every chunk, in the order of the chunk ids asked for. */
  phrases: PhraseOccurrence[][];
  /** Records of the chunks parsed now. */
  created: ExtractionRecord[];
  /** Ids of this step's records that are no longer needed (another version, a chunk that is gone, or nlp-extract's record exists). */
  staleIds: string[];
}

/**
 * Noun phrases of every chunk for the LLM-free keywords: nlp-extract's, when it ran (fast mode with a graph method)
 * with the current extractor version; else the ones this step stored on an earlier run; else parsed now and stored
 * (`created`), so that an update of an AutoKG-only index parses only its new chunks, not the whole corpus. The
 * records are keyed by chunk and deleted with it.
 */
export async function chunkNounPhrases(store: Store, chunkIds: readonly string[], chunkTexts: readonly string[], signal?: AbortSignal): Promise<ChunkNounPhrases> {
  const version = String(nounPhraseExtractorVersion);
  const shared = new Map<string, PhraseOccurrence[]>();
  for (const record of await store.table('extractions').where('extractor', [nounPhraseExtractor])) {
    if (record.promptHash === version) shared.set(record.chunkId, mentionsOf(record.parsed as PhraseExtraction));
  }
  const wanted = new Set(chunkIds);
  const own = new Map<string, PhraseOccurrence[]>();
  const staleIds: string[] = [];
  for (const record of await store.table('extractions').where('extractor', [autoKgNounPhrasesExtractor])) {
    if (record.promptHash === version && wanted.has(record.chunkId) && !shared.has(record.chunkId)) own.set(record.chunkId, decodeMentions(record.parsed as StoredMentions));
    else staleIds.push(record.id);
  }
  const missing = chunkIds.flatMap((id, index) => (shared.has(id) || own.has(id) ? [] : [chunkTexts[index] as string]));
  // Parsed as nlp-extract parses them, in turns of the event loop.
  const extracted = (await runTask(extractNounPhrasesTask(missing), { signal })).values();
  const created: ExtractionRecord[] = [];
  const phrases = chunkIds.map((id) => {
    const stored = shared.get(id) ?? own.get(id);
    if (stored !== undefined) return stored;
    const mentions = mentionsOf(extracted.next().value as PhraseExtraction);
    created.push({
      id: contentId('extraction', id, autoKgNounPhrasesExtractor, version),
      chunkId: id,
      extractor: autoKgNounPhrasesExtractor,
      model: 'wink-eng-lite-web-model',
      promptHash: version,
      raw: '',
      parsed: encodeMentions(mentions),
    });
    return mentions;
  });
  return { phrases, created, staleIds };
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

function mentionsOf(extraction: PhraseExtraction): PhraseOccurrence[] {
  return extraction.mentions.map((mention) => ({ key: mention.key, surface: mention.surface, kind: mention.kind }));
}
