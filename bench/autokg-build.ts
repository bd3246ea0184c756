import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createKgrag } from '../src/api/create-kgrag.js';
import type { PhraseExtraction } from '../src/extract/nlp-graph/noun-phrase-extractor.js';
import { autokgChunkGraph } from '../src/methods/autokg/build/autokg-chunk-graph.js';
import { buildKeywordGraph } from '../src/methods/autokg/build/build-keyword-graph.js';
import { clusterChunkEmbeddings } from '../src/methods/autokg/build/cluster-chunk-embeddings.js';
import { clusterTfidfKeywords } from '../src/methods/autokg/build/cluster-tfidf-keywords.js';
import type { PipelineEvent } from '../src/pipeline/pipeline-step.js';
import { embedderStateKey } from '../src/pipeline/steps/embed-chunks-step.js';
import { nounPhraseExtractor } from '../src/pipeline/steps/nlp-extract-step.js';
import { createEmbedder } from '../src/providers/embed/create-embedder.js';
import { isCorpusFitted } from '../src/providers/embed/embedder.js';
import { type BenchResult, result, sharedDatasets } from './bench-utils.js';
import { autokgConfig } from '../src/methods/autokg/config.js';

/**
 * Keywords per cluster for the LLM-free build: 30 clusters × 25 phrases give ~450 keywords after the
 * avoid rule and the substring filter on 2Wiki (issue 8's benchmark size; the index default is l1 = 10).
 */
const benchKeywordsPerCluster = 25;

/**
 * AutoKG's build without the LLM on the 6,119-passage 2Wiki corpus (issue 8): the K = 30 chunk kNN graph,
 * spectral and k-means clustering, c-TF-IDF keywords from the stored noun phrases, embedding the keywords,
 * Laplace learning per keyword and the keyword graph. The corpus is indexed once in fast mode (its
 * knn-graph and keywords step times are reported too); the build then runs `runs` times in process.
 */
export async function benchAutokgBuild(runs: number): Promise<Record<string, BenchResult>> {
  const corpus = join(sharedDatasets, '2wiki-corpus/corpus.json');
  if (!existsSync(corpus)) throw new Error(`${corpus} is missing: this benchmark needs ../shared/datasets`);
  const workspace = mkdtempSync(join(tmpdir(), 'kgrag-bench-autokg-'));
  try {
    const stepMs: Record<string, number> = {};
    const stepCounts: Record<string, Record<string, number>> = {};
    const onEvent = (event: PipelineEvent): void => {
      if (event.type === 'step-end') {
        stepMs[event.step] = event.durationMs;
        stepCounts[event.step] = event.counts;
      }
    };
    const kgrag = await createKgrag({ workspace, env: {} });
    const indexStart = performance.now();
    await kgrag.index([corpus], { onEvent });
    const indexMs = performance.now() - indexStart;
    process.stderr.write(`  fast index ${(indexMs / 1000).toFixed(1)} s; knn-graph ${((stepMs['knn-graph'] ?? 0) / 1000).toFixed(2)} s, keywords ${((stepMs.keywords ?? 0) / 1000).toFixed(2)} s ${JSON.stringify(stepCounts.keywords)}\n`);

    const { store, config } = kgrag;
    const chunks = await store.table('chunks').pick(['id', 'nTokens', 'text']);
    const loaded = await store.vectors('chunks').load();
    const rowOf = new Map(loaded.ids.map((id, row) => [id, row]));
    const dimensions = loaded.dimensions;
    const data = new Float32Array(chunks.length * dimensions);
    chunks.forEach((chunk, index) => {
      const row = rowOf.get(chunk.id) as number;
      data.set(loaded.matrix.subarray(row * dimensions, (row + 1) * dimensions), index * dimensions);
    });
    const allVectors = { rows: chunks.length, cols: dimensions, data };
    const lengths = chunks.map((chunk) => chunk.nTokens);
    const phraseOf = new Map((await store.table('extractions').where('extractor', [nounPhraseExtractor])).map((record) => [record.chunkId, record.parsed as PhraseExtraction]));
    const phrases = chunks.map((chunk) => (phraseOf.get(chunk.id)?.mentions ?? []).map((mention) => ({ key: mention.key, surface: mention.surface })));
    const embedder = createEmbedder(config);
    if (isCorpusFitted(embedder)) {
      const state = await store.getBlob(embedderStateKey);
      if (state) embedder.importState(state);
    }

    const total: number[] = [];
    const phases: Record<string, number[]> = { knn: [], clustering: [], keywords: [], laplace: [] };
    let keywordCount = 0;
    let memberships = 0;
    let edges = 0;
    let balanced = { memberships: 0, edges: 0 };
    const settings = autokgConfig.parse(config.methods.autokg ?? {});
    for (let run = 0; run < runs; run++) {
      const start = performance.now();
      const { kept, vectors, graph } = await autokgChunkGraph(allVectors, lengths, { neighbours: settings.neighbours, duplicateDistance: settings.duplicateDistance });
      const afterKnn = performance.now();
      const options = { clusters: settings.clusters, spectralNeighbours: settings.spectralNeighbours, seed: config.seed };
      const clusterings = [clusterChunkEmbeddings('spectral', vectors, graph, options), clusterChunkEmbeddings('k-means', vectors, undefined, options)];
      const afterClustering = performance.now();
      const keywords = clusterTfidfKeywords(Array.from(kept, (row) => phrases[row] ?? []), clusterings, {
        keywordsPerCluster: benchKeywordsPerCluster,
        maxWords: settings.maxWords,
        texts: Array.from(kept, (row) => chunks[row]?.text ?? ''),
      });
      const embedded = await embedder.embed(keywords);
      const keywordVectors = new Float32Array(keywords.length * dimensions);
      embedded.forEach((vector, index) => keywordVectors.set(vector, index * dimensions));
      const afterKeywords = performance.now();
      const graphOptions = { neighbours: settings.neighbours, kernel: settings.kernel, positives: settings.positives, negatives: settings.negatives, cap: settings.cap };
      const keywordGraph = buildKeywordGraph(graph, vectors, { rows: keywords.length, cols: dimensions, data: keywordVectors }, graphOptions);
      const end = performance.now();
      total.push((end - start) / 1000);
      phases.knn?.push((afterKnn - start) / 1000);
      phases.clustering?.push((afterClustering - afterKnn) / 1000);
      phases.keywords?.push((afterKeywords - afterClustering) / 1000);
      phases.laplace?.push((end - afterKeywords) / 1000);
      keywordCount = keywords.length;
      memberships = keywordGraph.members.reduce((sum, members) => sum + members.chunks.length, 0);
      edges = keywordGraph.edges.length;
      process.stderr.write(`  run ${run + 1}/${runs}: ${(end - start).toFixed(0)} ms, ${keywords.length} keywords, ${memberships} memberships, ${edges} edges\n`);
      if (run === runs - 1) {
        // The same keywords under the balanced membership rule (graph/laplace-learning.ts), untimed.
        const other = buildKeywordGraph(graph, vectors, { rows: keywords.length, cols: dimensions, data: keywordVectors }, { ...graphOptions, membership: 'balanced' });
        balanced = { memberships: other.members.reduce((sum, members) => sum + members.chunks.length, 0), edges: other.edges.length };
        process.stderr.write(`  balanced membership: ${balanced.memberships} memberships, ${balanced.edges} edges, ${other.cappedKeywords} keywords capped\n`);
      }
    }
    await kgrag.close();
    return {
      autokg_build_s: result(total, 's'),
      autokg_build_knn_s: result(phases.knn as number[], 's'),
      autokg_build_clustering_s: result(phases.clustering as number[], 's'),
      autokg_build_keywords_s: result(phases.keywords as number[], 's'),
      autokg_build_laplace_graph_s: result(phases.laplace as number[], 's'),
      autokg_keywords: result([keywordCount], 'count'),
      autokg_memberships: result([memberships], 'count'),
      autokg_keyword_edges: result([edges], 'count'),
      autokg_memberships_balanced: result([balanced.memberships], 'count'),
      autokg_keyword_edges_balanced: result([balanced.edges], 'count'),
      autokg_index_step_knn_graph_s: result([(stepMs['knn-graph'] ?? 0) / 1000], 's'),
      autokg_index_step_keywords_s: result([(stepMs.keywords ?? 0) / 1000], 's'),
      autokg_index_keywords: result([stepCounts.keywords?.keywords ?? 0], 'count'),
      autokg_index_wall_s: result([indexMs / 1000], 's'),
    };
  } finally {
    rmSync(workspace, { recursive: true, force: true });
  }
}
