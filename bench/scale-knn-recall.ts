/*
 * Issue 36: what NN-descent costs `kgp` and `autokg` in Recall@5. Above `index.knn.exactUpTo` (50,000 chunks by
 * default) both methods' chunk kNN graphs are built by NN-descent, which finds about 0.87 of the exact neighbours
 * on the 16× scale corpus (bench/scale-corpus.ts). 2Wiki's own questions are not in ../shared/datasets, so the
 * questions with gold passages are musique-train-100's and hotpotqa-train-100's, whose corpora (1,890 and 994
 * passages) are indexed inside the k× 2Wiki corpus: ~100,000 chunks at 16×, every graph built over all of them.
 *
 * One fast index for kgp and autokg with the default graphs; `kgrag eval`'s harness (runEvaluation, retrieval only)
 * measures Recall@5 of both methods on the 200 questions of both sets in one evaluation (its report is the pooled
 * figure; each set's is the mean of its own rows, as the report averages). Then a copy of that workspace with
 * `index.knn.exactUpTo` above the chunk count is indexed again, which rebuilds only what the kNN graphs feed
 * (passage-graph, knn-graph, keywords), and measured the same way. 2Wiki passages are keyed apart
 * (`2wiki-<k>x:<i>`), so a 2Wiki passage with a HotpotQA title never counts as a gold passage. Last, autokg's two
 * stored chunk graphs are compared whole: the share of the exact neighbours the default graph lists. At a size whose
 * corpus is below the limit (`--sizes 1`), the first build sets `index.knn.exactUpTo: 1`, so its graphs are
 * NN-descent's there too and the keys compare the same two algorithms.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createKgrag } from '../src/api/create-kgrag.js';
import type { EvalDataset, EvalPassage } from '../src/eval/eval-dataset.js';
import { resolveNamedDataset } from '../src/eval/datasets/named-datasets.js';
import { knnGraphBySizeDefaults } from '../src/math/knn-graph-by-size.js';
import { knnGraphRecall } from '../src/math/nn-descent.js';
import { decodeChunkKnnGraph } from '../src/pipeline/steps/chunk-knn-graph-codec.js';
import { chunkKnnGraphBlobKey } from '../src/methods/autokg/build/chunk-graph-step.js';
import { runEvaluation } from '../src/eval/run-evaluation.js';
import { type BenchResult, result, sharedDatasets } from './bench-utils.js';
import { type Passage, scaleCorpus } from './scale-corpus.js';

/** An `index.knn.exactUpTo` above any corpus this benchmark builds: every graph exact. */
export const everyKnnGraphExact = 1_000_000_000;

const methods = ['kgp', 'autokg'] as const;
const questionSets = ['musique-train-100', 'hotpotqa-train-100'] as const;

/** Recall@5 by question set and method, the questions with gold behind each, and the build's record. */
interface PathRun {
  recall: Map<string, number>;
  questionsWithGold: Map<string, number>;
  indexSeconds: number;
  steps: Record<string, number>;
  /** `approximateKnn` of passage-graph and `approximate` of knn-graph: 1 where NN-descent built the graph. */
  approximate: { passageGraph: number; knnGraph: number };
  chunks: number;
}

function loadNote(): string {
  return readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
}

/**
 * Indexes `passages` into `workspace` (or finds it up to date but for the kNN steps) and evaluates both methods on
 * both question sets in one evaluation, whose report is the pooled Recall@5; each set's is the mean of its rows.
 */
async function buildAndEvaluate(workspace: string, exactUpTo: number | undefined, passages: readonly EvalPassage[], questions: ReadonlyMap<string, EvalDataset>): Promise<PathRun> {
  const kgrag = await createKgrag({
    workspace,
    env: {},
    config: { index: { mode: 'fast', ...(exactUpTo === undefined ? {} : { knn: { exactUpTo } }) }, pipeline: { methods: [...methods] } },
  });
  try {
    const steps: Record<string, number> = {};
    const recall = new Map<string, number>();
    const questionsWithGold = new Map<string, number>();
    const started = performance.now();
    let indexed = 0;
    const setOf = new Map<string, string>();
    const allQuestions = [...questions].flatMap(([name, dataset]) =>
      dataset.questions.map((question) => {
        setOf.set(`${name}:${question.id}`, name);
        return { ...question, id: `${name}:${question.id}` };
      }),
    );
    const { report, questions: rows } = await runEvaluation({
      kgrag,
      dataset: { name: 'scale-knn-recall', passages: [...passages], questions: allQuestions },
      methods: [...methods],
      cutoffs: [5],
      answer: false,
      onEvent(event) {
        if (event.type === 'index' && event.event.type === 'step-end') {
          steps[event.event.step] = Math.round(event.event.durationMs) / 1000;
          process.stderr.write(`    ${event.event.step} ${(event.event.durationMs / 1000).toFixed(1)} s (load ${loadNote()})\n`);
        }
        if (event.type === 'method-start' && indexed === 0) indexed = performance.now();
      },
    });
    const indexSeconds = ((indexed || performance.now()) - started) / 1000;
    for (const method of methods) {
      const methodReport = report.methods[method];
      const pooled = methodReport?.['recall@5'];
      if (typeof pooled !== 'number') throw new Error(`${method} measured no Recall@5: ${methodReport?.error_message ?? 'no report'}`);
      recall.set(`all|${method}`, pooled);
      process.stderr.write(`    ${method} Recall@5 ${pooled.toFixed(2)} over ${methodReport?.questions_with_gold} questions (ranking ${JSON.stringify(methodReport?.ranking)}, errors ${methodReport?.errors})\n`);
      for (const name of questions.keys()) {
        const hits = rows.filter((row) => row.method === method && setOf.get(row.id) === name && row.gold.length > 0).map((row) => row.hits['recall@5'] ?? 0);
        recall.set(`${name}|${method}`, (100 * hits.reduce((sum, hit) => sum + hit, 0)) / hits.length);
        questionsWithGold.set(`${name}|${method}`, hits.length);
        process.stderr.write(`    ${name} ${method} Recall@5 ${(recall.get(`${name}|${method}`) as number).toFixed(2)}\n`);
      }
    }
    const runs = new Map((await kgrag.store.table('runs').get(['passage-graph', 'chunk-graph'])).map((run) => [run.step, run.counts]));
    return {
      recall,
      questionsWithGold,
      indexSeconds,
      steps,
      approximate: { passageGraph: runs.get('passage-graph')?.['approximateKnn'] ?? -1, knnGraph: runs.get('chunk-graph')?.['approximate'] ?? -1 },
      chunks: await kgrag.store.table('chunks').count(),
    };
  } finally {
    await kgrag.close();
  }
}

/**
 * Share of the exact graph's neighbours that the default graph lists: autokg's stored chunk kNN graphs (29
 * neighbours of every kept chunk) of the two workspaces, whole, on the product's own chunk vectors.
 */
export async function storedChunkGraphRecall(approximateWorkspace: string, exactWorkspace: string): Promise<number> {
  const graphs = [];
  for (const workspace of [approximateWorkspace, exactWorkspace]) {
    const kgrag = await createKgrag({ workspace, env: {} });
    try {
      const blob = await kgrag.store.getBlob(chunkKnnGraphBlobKey);
      if (blob === undefined) throw new Error(`${workspace} holds no autokg chunk kNN graph`);
      graphs.push(decodeChunkKnnGraph(blob));
    } finally {
      await kgrag.close();
    }
  }
  const [approximate, exact] = graphs as [ReturnType<typeof decodeChunkKnnGraph>, ReturnType<typeof decodeChunkKnnGraph>];
  if (approximate.chunkIds.some((id, row) => exact.chunkIds[row] !== id)) throw new Error('the two chunk kNN graphs are over different chunks');
  return knnGraphRecall(approximate.graph, exact.graph);
}

/** Recall@5 of `method` over every question set: the evaluation report's. */
function pooledRecall(run: PathRun, method: string): number {
  return run.recall.get(`all|${method}`) ?? Number.NaN;
}

/**
 * The benchmark at `size`× 2Wiki (default 16): Recall@5 of kgp and autokg with the default (NN-descent) graphs and
 * with exact ones, per question set and pooled, and their difference; the index time of each path.
 */
export async function benchScaleKnnRecall(size = 16): Promise<Record<string, BenchResult>> {
  const original = JSON.parse(readFileSync(join(sharedDatasets, '2wiki-corpus/corpus.json'), 'utf8')) as Passage[];
  const scaled = scaleCorpus(original, size).passages;
  const questions = new Map<string, EvalDataset>();
  for (const name of questionSets) questions.set(name, await resolveNamedDataset(name));
  const passages: EvalPassage[] = [
    ...scaled.map((passage, index) => ({ key: `2wiki-${size}x:${index}`, title: passage.title, text: passage.text })),
    ...[...questions.values()].flatMap((dataset) => dataset.passages),
  ];
  process.stderr.write(`  ${passages.length} passages: ${scaled.length} of ${size}× 2Wiki, ${passages.length - scaled.length} of ${questionSets.join(' and ')} (load ${loadNote()})\n`);
  const folder = mkdtempSync(join(tmpdir(), 'kgrag-bench-knn-recall-'));
  try {
    const nnDescentWorkspace = join(folder, 'nn-descent');
    // Below the default limit the default graphs are exact; a limit of 1 makes them NN-descent's, so that a
    // smaller corpus measures the same trade at its own size.
    const forced = passages.length <= knnGraphBySizeDefaults.exactUpTo ? 1 : undefined;
    process.stderr.write(`  ${forced === undefined ? 'default graphs (NN-descent above the limit)' : 'NN-descent graphs (index.knn.exactUpTo: 1, below the default limit)'} (load ${loadNote()})\n`);
    const nnDescent = await buildAndEvaluate(nnDescentWorkspace, forced, passages, questions);
    const exactWorkspace = join(folder, 'exact');
    cpSync(nnDescentWorkspace, exactWorkspace, { recursive: true });
    process.stderr.write(`  exact graphs, from a copy of that index (load ${loadNote()})\n`);
    const exact = await buildAndEvaluate(exactWorkspace, everyKnnGraphExact, passages, questions);
    const prefix = `scale_${size}x`;
    const graphRecall = await storedChunkGraphRecall(nnDescentWorkspace, exactWorkspace);
    process.stderr.write(`  autokg's default chunk graph lists ${graphRecall.toFixed(4)} of the exact graph's neighbours\n`);
    const results: Record<string, BenchResult> = {
      [`${prefix}_autokg_chunk_graph_recall_nn_descent`]: result([graphRecall], 'fraction'),
      [`${prefix}_knn_recall_chunks`]: result([nnDescent.chunks], 'count'),
      [`${prefix}_knn_recall_nn_descent_approximate_graphs`]: result([nnDescent.approximate.passageGraph + nnDescent.approximate.knnGraph], 'count'),
      [`${prefix}_knn_recall_exact_approximate_graphs`]: result([exact.approximate.passageGraph + exact.approximate.knnGraph], 'count'),
      [`${prefix}_knn_recall_index_s_nn_descent`]: result([nnDescent.indexSeconds], 's'),
      [`${prefix}_knn_recall_reindex_s_exact`]: result([exact.indexSeconds], 's'),
    };
    for (const [path, run] of [
      ['nn_descent', nnDescent],
      ['exact', exact],
    ] as const) {
      for (const step of ['passage-graph', 'chunk-graph', 'keywords']) {
        if (run.steps[step] !== undefined) results[`${prefix}_knn_recall_step_${step.replace('-', '_')}_s_${path}`] = result([run.steps[step]], 's');
      }
    }
    for (const method of methods) {
      const approximate = pooledRecall(nnDescent, method);
      const exactRecall = pooledRecall(exact, method);
      results[`${prefix}_${method}_recall_at_5_nn_descent`] = result([approximate], '%');
      results[`${prefix}_${method}_recall_at_5_exact`] = result([exactRecall], '%');
      results[`${prefix}_${method}_recall_at_5_exact_minus_nn_descent`] = result([exactRecall - approximate], 'points');
      for (const name of questionSets) {
        const key = `${name}|${method}`;
        const set = name.split('-')[0] as string;
        results[`${prefix}_${set}_${method}_recall_at_5_nn_descent`] = result([nnDescent.recall.get(key) ?? Number.NaN], '%');
        results[`${prefix}_${set}_${method}_recall_at_5_exact`] = result([exact.recall.get(key) ?? Number.NaN], '%');
      }
    }
    return results;
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}
