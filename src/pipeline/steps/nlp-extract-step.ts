import { runTask } from '../../core/cooperative-task.js';
import { contentId } from '../../core/ids.js';
import type { ChunkRecord, ExtractionRecord } from '../../core/types.js';
import { buildNounGraph, type ChunkPhrases, type NounGraphFit } from '../../extract/nlp-graph/build-noun-graph.js';
import { activeEntityEdits, entityEditRules } from '../../extract/entity-edits/entity-edit-rules.js';
import { type GraphMentionRules, graphMentions, phraseKeyOfName } from '../../extract/nlp-graph/graph-mentions.js';
import { extractNounPhrasesTask, nounPhraseExtractorVersion, type PhraseExtraction } from '../../extract/nlp-graph/noun-phrase-extractor.js';
import { decodeNounGraphState, encodeNounGraphState, fitNounGraphState, type NounGraphState } from '../../extract/nlp-graph/noun-graph-state.js';
import { autoTypingCutoff, typeEntities } from '../../extract/nlp-graph/type-entities.js';
import { type TitleAliasRules, titleAlias, titleMentions, titleReadingVersion, withTitleMentions, type TitledPhraseExtraction } from '../../extract/nlp-graph/title-mentions.js';
import { updateNounGraph } from '../../extract/nlp-graph/update-noun-graph.js';
import { recordStatisticsEpoch, statisticsEpochOf } from '../corpus-statistics.js';
import type { StepContext, StepOutput, PipelineStep } from '../pipeline-step.js';
import { readEntityEdits } from './entity-edits-step.js';

/** `extractor` of the noun-phrase extractions in the `extractions` table (AutoKG's LLM-free keywords reuse them). */
export const nounPhraseExtractor = 'nlp-noun-phrases';
const extractor = nounPhraseExtractor;
const extractorVersion = String(nounPhraseExtractorVersion);
/** The graph's reading of document titles (`title-mentions.ts`): when it changes, the graph is built afresh. */
const titleReading = titleReadingVersion;
/** Bumped when the graph built from the same mentions changes (`build-noun-graph.ts`): 2, a name of one chunk is a leaf. */
const graphRules = 2;

/** Blob key of the noun graph's state (`noun-graph-state.ts`): its figures and counts, for updates between refreshes. */
export const nounGraphStateKey = 'nlp-graph:state';

/**
 * GraphRAG's fast-mode extraction: noun phrases per chunk (stored in `extractions`, so changing the
 * pruning settings rebuilds the graph without re-parsing), then the PMI-weighted, pruned co-occurrence
 * graph. When the corpus statistics are refitted (the `statistics` step) the graph is built afresh and replaces
 * `entities` and `relations`; between refreshes it is updated with the stored figures (`update-noun-graph.ts`): only
 * the changed chunks' extractions are read, and only the rows that differ are written.
 */
export const nlpExtractStep: PipelineStep = {
  name: 'nlp-extract',
  // 2: figures frozen between refreshes; the output version is a multiset hash of the rows.
  version: 2,
  reads: ['chunk', 'statistics', 'entity-edits'],
  settings: (config) => ({ nlp: config.extract.nlp, extractor: nounPhraseExtractorVersion, titles: titleReading, graph: graphRules }),
  englishOnly: () => true,

  async run(context) {
    const edits = entityEditRules(activeEntityEdits(await readEntityEdits(context.store)), phraseKeyOfName);
    const rules: GraphMentionRules = { ...context.config.extract.nlp, edits };
    const titles = titleAliasRules(context.config.extract.nlp.titleAliases, rules);
    // An edit changes which mentions are one entity everywhere: the graph is built afresh, as for other settings.
    const configured = JSON.stringify(context.config.extract.nlp);
    const settings =
      edits.sameAs.size + edits.keepApart.size === 0
        ? contentId('nlp-graph-settings', configured, extractorVersion, titleReading, graphRules)
        : contentId('nlp-graph-settings', configured, extractorVersion, titleReading, graphRules, JSON.stringify([Array.from(edits.sameAs).sort(), Array.from(edits.keepApart).sort()]));
    const { epoch, incremental } = await statisticsEpochOf(context, 'nlp-extract');
    const state = incremental ? decodeNounGraphState(await context.store.getBlob(nounGraphStateKey)) : undefined;
    const updated = state?.settings === settings ? await updateStep(context, rules, titles, state, epoch) : undefined;
    return updated ?? (await freshStep(context, rules, titles, epoch, settings));
  },
};

/** What the title rules keep apart: the names of `keepApart` and of the splits people made, as phrase keys. */
function titleAliasRules(titleAliases: boolean, rules: GraphMentionRules): TitleAliasRules {
  const keepApart = new Set(rules.keepApart.map(phraseKeyOfName));
  for (const key of rules.edits?.keepApart ?? []) keepApart.add(key);
  return { titleAliases, keepApart };
}

/**
 * Parses the chunks that have no stored extraction of this extractor's version, pausing after each chunk, and finds
 * where each chunk writes its document's title, and whether the title is another name of what the document opens
 * with; an extraction stored before this reading of titles is given them and written again.
 */
async function extract(
  context: StepContext,
  chunks: readonly Pick<ChunkRecord, 'id' | 'text' | 'documentId' | 'ordinal'>[],
  stored: ReadonlyMap<string, ExtractionRecord>,
  total: number,
  titleRules: TitleAliasRules,
): Promise<{ extractions: Map<string, PhraseExtraction>; created: ExtractionRecord[] }> {
  const pending = chunks.filter((chunk) => !stored.has(chunk.id));
  const onExtracted = (done: number): void => {
    if (done === 1 || done % 250 === 0 || done === pending.length) context.progress(total - pending.length + done, total, 'chunks');
  };
  // Parsing is most of a fresh build: it pauses after every chunk, so that Ctrl-C, SIGTERM and progress get through.
  const parsed = await runTask(extractNounPhrasesTask(pending.map((chunk) => chunk.text), onExtracted), { signal: context.signal });
  const untitled = chunks.filter((chunk) => !stored.has(chunk.id) || (stored.get(chunk.id)?.parsed as TitledPhraseExtraction).titleReading !== titleReadingVersion);
  const documentIds = Array.from(new Set(untitled.map((chunk) => chunk.documentId)));
  const titles = new Map((await context.store.table('documents').pick(['id', 'title'], { column: 'id', values: documentIds })).map((document) => [document.id, document.title]));
  const parsedOf = new Map(pending.map((chunk, index) => [chunk.id, parsed[index] as PhraseExtraction]));
  const created: ExtractionRecord[] = untitled.map((chunk) => {
    const extraction = parsedOf.get(chunk.id) ?? (stored.get(chunk.id)?.parsed as PhraseExtraction);
    const title = titles.get(chunk.documentId);
    const alias = titleAlias(chunk.text, extraction, title, chunk.ordinal === 0);
    const titled: TitledPhraseExtraction = {
      sentences: extraction.sentences,
      mentions: extraction.mentions,
      titleMentions: titleMentions(chunk.text, extraction, title),
      ...(alias === undefined ? {} : { titleAlias: alias }),
      titleReading: titleReadingVersion,
    };
    return {
      id: contentId('extraction', chunk.id, extractor, extractorVersion),
      chunkId: chunk.id,
      extractor,
      model: 'wink-eng-lite-web-model',
      promptHash: extractorVersion,
      raw: '',
      parsed: titled,
    };
  });
  const extractions = new Map<string, PhraseExtraction>();
  for (const [chunkId, record] of stored) extractions.set(chunkId, withTitleMentions(record.parsed as TitledPhraseExtraction, titleRules));
  created.forEach((record) => extractions.set(record.chunkId, withTitleMentions(record.parsed as TitledPhraseExtraction, titleRules)));
  return { extractions, created };
}

function ownExtractions(records: readonly ExtractionRecord[]): Map<string, ExtractionRecord> {
  return new Map(records.filter((record) => record.extractor === extractor && record.promptHash === extractorVersion).map((record) => [record.chunkId, record]));
}

const graphVersion = (state: NounGraphState): string => contentId('graph', state.graphHash.join(':'));

/** The graph built afresh with figures fitted on the whole corpus: a refresh, a first build, or other settings. */
async function freshStep(context: StepContext, rules: GraphMentionRules, titleRules: TitleAliasRules, epoch: string, settings: string): Promise<StepOutput> {
  const { store, config } = context;
  const nlp = config.extract.nlp;
  const chunks = await store.table('chunks').all();
  const stored = ownExtractions(await store.table('extractions').where('extractor', [extractor]));
  const { extractions, created } = await extract(context, chunks, stored, chunks.length, titleRules);
  const phrases: ChunkPhrases[] = chunks.map((chunk) => ({ chunkId: chunk.id, text: chunk.text, extraction: graphMentions(extractions.get(chunk.id) as PhraseExtraction, rules) }));
  let fit: NounGraphFit | undefined;
  const graph = buildNounGraph(phrases, nlp, (fitted) => (fit = fitted));
  const typingCutoff = nlp.typing === 'auto' ? autoTypingCutoff(graph.entities) : null;
  const typedNames = new Map<string, string>();
  const typed = await typeEntities(graph.entities, nlp.typing, typedNames);
  const state = fitNounGraphState(phrases, fit as NounGraphFit, graph, { settings, typingCutoff, typed: typedNames });
  const chunkIds = new Set(chunks.map((chunk) => chunk.id));
  const staleExtractions = [...stored.keys()].filter((chunkId) => !chunkIds.has(chunkId));
  return {
    counts: {
      entities: graph.entities.length,
      relations: graph.relations.length,
      candidates: graph.stats.candidates,
      prunedNodes: graph.stats.prunedNodes,
      prunedEdges: graph.stats.prunedEdges,
      typed,
      refitted: 1,
    },
    outputVersion: graphVersion(state),
    async write(tx) {
      await tx.table('extractions').upsert(created);
      await tx.table('extractions').deleteWhere('chunkId', staleExtractions);
      await tx.table('entities').clear();
      await tx.table('relations').clear();
      await tx.table('entities').upsert(graph.entities);
      await tx.table('relations').upsert(graph.relations);
      await tx.setBlob(nounGraphStateKey, encodeNounGraphState(state));
      await recordStatisticsEpoch(tx, 'nlp-extract', epoch);
    },
  };
}

/**
 * The graph updated with the stored figures: reads the extractions of the added and removed chunks only, and writes
 * the rows that differ. Undefined when the stored state does not fit the corpus (a chunk removed without its
 * extraction, or kept chunks in another order): the step then builds afresh.
 */
async function updateStep(context: StepContext, rules: GraphMentionRules, titleRules: TitleAliasRules, state: NounGraphState, epoch: string): Promise<StepOutput | undefined> {
  const { store, config } = context;
  const current = (await store.table('chunks').pick(['id'])).map((chunk) => chunk.id);
  const known = new Set(state.chunkIds);
  const present = new Set(current);
  const removedIds = state.chunkIds.filter((id) => !present.has(id));
  const addedIds = current.filter((id) => !known.has(id));
  const keptInOrder = current.filter((id) => known.has(id));
  const keptBefore = state.chunkIds.filter((id) => present.has(id));
  if (keptInOrder.some((id, index) => keptBefore[index] !== id) || current.slice(keptInOrder.length).some((id) => known.has(id))) return undefined;
  const changedExtractions = ownExtractions(await store.table('extractions').where('chunkId', [...removedIds, ...addedIds]));
  if (removedIds.some((id) => !changedExtractions.has(id))) return undefined;
  const addedChunks = new Map((await store.table('chunks').get(addedIds)).map((chunk) => [chunk.id, chunk]));
  const added = addedIds.map((id) => addedChunks.get(id) as ChunkRecord);
  const storedAdded = new Map([...changedExtractions].filter(([chunkId]) => addedChunks.has(chunkId)));
  const { extractions, created } = await extract(context, added, storedAdded, added.length, titleRules);
  const update = await updateNounGraph(
    state,
    {
      added: added.map((chunk) => ({ chunkId: chunk.id, text: chunk.text, extraction: graphMentions(extractions.get(chunk.id) as PhraseExtraction, rules) })),
      removed: removedIds.map((chunkId) => ({ chunkId, extraction: graphMentions(withTitleMentions((changedExtractions.get(chunkId) as ExtractionRecord).parsed as TitledPhraseExtraction, titleRules), rules) })),
    },
    config.extract.nlp,
    {
      async chunks(ids) {
        const texts = await store.table('chunks').get(ids);
        const parsed = ownExtractions(await store.table('extractions').where('chunkId', ids));
        return texts.flatMap((chunk) => {
          const record = parsed.get(chunk.id);
          return record ? [{ chunkId: chunk.id, text: chunk.text, extraction: graphMentions(withTitleMentions(record.parsed as TitledPhraseExtraction, titleRules), rules) }] : [];
        });
      },
      entities: (ids) => store.table('entities').get(ids),
      relations: (ids) => store.table('relations').get(ids),
    },
  );
  return {
    counts: {
      entities: update.stats.entities,
      relations: update.stats.relations,
      typed: update.stats.typed,
      refitted: 0,
      touchedPhrases: update.stats.touchedPhrases,
      evaluatedPairs: update.stats.evaluatedPairs,
      entitiesWritten: update.entities.length,
      entitiesRemoved: update.removedEntityIds.length,
      relationsWritten: update.relations.length,
      relationsRemoved: update.removedRelationIds.length,
    },
    outputVersion: graphVersion(update.state),
    async write(tx) {
      await tx.table('extractions').upsert(created);
      await tx.table('extractions').deleteWhere('chunkId', removedIds);
      await tx.table('entities').deleteWhere('id', update.removedEntityIds);
      await tx.table('relations').deleteWhere('id', update.removedRelationIds);
      await tx.table('entities').upsert(update.entities);
      await tx.table('relations').upsert(update.relations);
      await tx.setBlob(nounGraphStateKey, encodeNounGraphState(update.state));
      await recordStatisticsEpoch(tx, 'nlp-extract', epoch);
    },
  };
}
