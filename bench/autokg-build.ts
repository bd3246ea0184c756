import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createKgrag } from '../src/api/create-kgrag.js';
import { createKeywordsStep } from '../src/methods/autokg/build/keywords-step.js';
import { createChunkGraphStep } from '../src/methods/autokg/build/chunk-graph-step.js';
import { autokgConfig, type AutokgConfig } from '../src/methods/autokg/config.js';
import type { PipelineEvent, StepContext } from '../src/pipeline/pipeline-step.js';
import { embedderStateKey, embedderStateOf } from '../src/pipeline/steps/embed-chunks-step.js';
import { createEmbedder } from '../src/providers/embed/create-embedder.js';
import { isCorpusFitted } from '../src/providers/embed/embedder.js';
import { createTokenizer } from '../src/text/tokenizer.js';
import { type BenchResult, result, sharedDatasets } from './bench-utils.js';

/**
 * Keywords per cluster for the LLM-free build: 30 clusters × 25 phrases give ~450 keywords after the
 * avoid rule and the substring filter on 2Wiki (issue 8's benchmark size; the index default is l1 = 10).
 * Set through the configuration, as a user would set `methods.autokg.keywordsPerCluster`.
 */
const benchKeywordsPerCluster = 25;

/**
 * AutoKG's build without the LLM on the 6,119-passage 2Wiki corpus (issue 8), through the index steps'
 * own code: the corpus is indexed once in fast mode (its knn-graph and keywords step times are reported
 * too), then the `knn-graph` step (the K = 30 chunk kNN graph with near-duplicates left out) and the fast
 * `keywords` step (spectral and k-means clustering, c-TF-IDF keywords from the stored noun phrases with
 * their kinds, embedding the keywords, Laplace learning per keyword, the keyword graph) run `runs` times
 * on the published index, with their writes left out. The phases are the keywords step's own counters
 * (`clusterMs`, `keywordMs`, `graphMs`); the keywords step reads the chunk graph the index stored, which
 * the timed knn-graph run rebuilds with the same settings.
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
    process.stderr.write(`  fast index ${(indexMs / 1000).toFixed(1)} s; knn-graph ${((stepMs['chunk-graph'] ?? 0) / 1000).toFixed(2)} s, keywords ${((stepMs.keywords ?? 0) / 1000).toFixed(2)} s ${JSON.stringify(stepCounts.keywords)}\n`);

    // The context the pipeline runner gives the steps (pipeline/run-pipeline.ts), over the published index.
    const embedder = createEmbedder(kgrag.config);
    if (isCorpusFitted(embedder)) {
      const state = await kgrag.store.getBlob(embedderStateKey);
      if (state) embedder.importState(embedderStateOf(state));
    }
    const context: StepContext = {
      store: kgrag.store,
      config: kgrag.config,
      tokenizer: await createTokenizer(kgrag.config.tokenizer.encoding),
      embedder,
      llm: undefined,
      prompts: kgrag.prompts,
      inputs: { paths: [], documents: [] },
      signal: undefined,
      progress: () => undefined,
      warn: (code, message) => process.stderr.write(`  warning ${code}: ${message}\n`),
    };
    // The steps as autokg's plugin builds them (autokg-method.ts), from the workspace's methods.autokg.
    const settings = (overrides: Partial<AutokgConfig>): AutokgConfig =>
      autokgConfig.parse({ ...kgrag.config.methods.autokg, keywordsPerCluster: benchKeywordsPerCluster, ...overrides });
    const knnGraphStep = createChunkGraphStep(settings({}));
    const keywordsStep = createKeywordsStep('fast', settings({}));

    const total: number[] = [];
    const phases: Record<'knn' | 'clustering' | 'keywords' | 'laplace', number[]> = { knn: [], clustering: [], keywords: [], laplace: [] };
    let counts: Record<string, number> = {};
    for (let run = 0; run < runs; run++) {
      const start = performance.now();
      await knnGraphStep.run(context);
      const afterKnn = performance.now();
      counts = (await keywordsStep.run(context)).counts;
      const end = performance.now();
      total.push((end - start) / 1000);
      phases.knn.push((afterKnn - start) / 1000);
      phases.clustering.push((counts.clusterMs ?? 0) / 1000);
      phases.keywords.push((counts.keywordMs ?? 0) / 1000);
      phases.laplace.push((counts.graphMs ?? 0) / 1000);
      process.stderr.write(`  run ${run + 1}/${runs}: ${(end - start).toFixed(0)} ms, ${JSON.stringify(counts)}\n`);
    }
    // The same build under the balanced membership rule (graph/laplace-learning.ts), untimed.
    const balanced = (await createKeywordsStep('fast', settings({ membership: 'balanced' })).run(context)).counts;
    process.stderr.write(`  balanced membership: ${balanced.memberships} memberships, ${balanced.edges} edges, ${balanced.cappedKeywords} keywords capped\n`);
    await kgrag.close();
    return {
      autokg_build_s: result(total, 's'),
      autokg_build_knn_s: result(phases.knn, 's'),
      autokg_build_clustering_s: result(phases.clustering, 's'),
      autokg_build_keywords_s: result(phases.keywords, 's'),
      autokg_build_laplace_graph_s: result(phases.laplace, 's'),
      autokg_keywords: result([counts.keywords ?? 0], 'count'),
      autokg_memberships: result([counts.memberships ?? 0], 'count'),
      autokg_keyword_edges: result([counts.edges ?? 0], 'count'),
      autokg_memberships_balanced: result([balanced.memberships ?? 0], 'count'),
      autokg_keyword_edges_balanced: result([balanced.edges ?? 0], 'count'),
      autokg_index_step_knn_graph_s: result([(stepMs['chunk-graph'] ?? 0) / 1000], 's'),
      autokg_index_step_keywords_s: result([(stepMs.keywords ?? 0) / 1000], 's'),
      autokg_index_keywords: result([stepCounts.keywords?.keywords ?? 0], 'count'),
      autokg_index_wall_s: result([indexMs / 1000], 's'),
    };
  } finally {
    rmSync(workspace, { recursive: true, force: true });
  }
}
