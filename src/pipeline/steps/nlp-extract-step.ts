import { runTask } from '../../core/cooperative-task.js';
import { contentId } from '../../core/ids.js';
import type { ExtractionRecord } from '../../core/types.js';
import { buildNounGraph, type ChunkPhrases } from '../../extract/nlp-graph/build-noun-graph.js';
import { extractNounPhrasesTask, nounPhraseExtractorVersion, type PhraseExtraction } from '../../extract/nlp-graph/noun-phrase-extractor.js';
import { typeEntities } from '../../extract/nlp-graph/type-entities.js';
import type { PipelineStep } from '../pipeline-step.js';

/** `extractor` of the noun-phrase extractions in the `extractions` table (AutoKG's LLM-free keywords reuse them). */
export const nounPhraseExtractor = 'nlp-noun-phrases';
const extractor = nounPhraseExtractor;

/**
 * GraphRAG's fast-mode extraction: noun phrases per chunk (stored in `extractions`, so changing the
 * pruning settings rebuilds the graph without re-parsing), then the PMI-weighted, pruned co-occurrence
 * graph. Replaces `entities` and `relations`.
 */
export const nlpExtractStep: PipelineStep = {
  name: 'nlp-extract',
  version: 1,
  reads: ['chunk'],
  settings: (config) => ({ nlp: config.extract.nlp, extractor: nounPhraseExtractorVersion }),
  englishOnly: () => true,

  async run(context) {
    const { store, config } = context;
    const chunks = await store.table('chunks').all();
    const version = String(nounPhraseExtractorVersion);
    const stored = new Map<string, ExtractionRecord>();
    for (const record of await store.table('extractions').where('extractor', [extractor])) {
      if (record.promptHash === version) stored.set(record.chunkId, record);
    }
    const pending = chunks.filter((chunk) => !stored.has(chunk.id));
    const onExtracted = (done: number): void => {
      if (done === 1 || done % 250 === 0 || done === pending.length) context.progress(chunks.length - pending.length + done, chunks.length, 'chunks');
    };
    // Parsing is most of the step: it pauses after every chunk, so that Ctrl-C, SIGTERM and progress get through.
    const extractions = await runTask(extractNounPhrasesTask(pending.map((chunk) => chunk.text), onExtracted), { signal: context.signal });
    const parsed = new Map(pending.map((chunk, index) => [chunk.id, extractions[index] as PhraseExtraction]));
    const created: ExtractionRecord[] = pending.map((chunk, index) => ({
      id: contentId('extraction', chunk.id, extractor, version),
      chunkId: chunk.id,
      extractor,
      model: 'wink-eng-lite-web-model',
      promptHash: version,
      raw: '',
      parsed: extractions[index],
    }));
    const phrases: ChunkPhrases[] = chunks.map((chunk) => ({
      chunkId: chunk.id,
      text: chunk.text,
      extraction: (stored.get(chunk.id)?.parsed as PhraseExtraction | undefined) ?? (parsed.get(chunk.id) as PhraseExtraction),
    }));
    const graph = buildNounGraph(phrases, config.extract.nlp);
    const typed = await typeEntities(graph.entities, config.extract.nlp.typing);
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
      },
      outputVersion: contentId(
        'graph',
        graph.entities.map((entity) => `${entity.id}:${entity.type}:${entity.chunkIds.length}`),
        graph.relations.map((relation) => `${relation.id}:${relation.weight}`),
      ),
      async write(tx) {
        await tx.table('extractions').upsert(created);
        await tx.table('extractions').deleteWhere('chunkId', staleExtractions);
        await tx.table('entities').clear();
        await tx.table('relations').clear();
        await tx.table('entities').upsert(graph.entities);
        await tx.table('relations').upsert(graph.relations);
      },
    };
  },
};
