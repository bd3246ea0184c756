/*
 * Issue 38: how far an index kept up between refreshes of its corpus statistics drifts from a fresh build.
 *
 * For one dataset: (i) 99 % of its passages built, then ten successive additions of 0.1 % each (the other 1 %), then
 * the deletion of a seeded 0.5 % of all passages, with the default `index.refreshShare` (0.2: no refresh in between);
 * (ii) a fresh build of the same final passages. Both are evaluated with `kgrag eval`'s runner, retrieval only, on
 * every method and variant; `incremental_quality_drift_r5` is the largest |Recall@5 (i) − Recall@5 (ii)| in
 * points. A method whose ranking is a proxy or a fallback on either index is reported apart, not in the maximum.
 *
 * Datasets: musique-train-100 (its own questions and gold passages), and 2Wiki's corpus with 100 questions generated
 * in 2WikiMultihopQA's templates (bench/two-wiki-generated-questions.ts). The shared data has no 2Wiki questions, so
 * their gold passages are a proxy: the passages whose titles each question names (its first hop), not 2Wiki's
 * supporting facts. The drift compares two indexes on the same questions, which that proxy serves.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createKgrag, type Kgrag } from '../src/api/create-kgrag.js';
import { createRandom } from '../src/core/random.js';
import { resolveNamedDataset } from '../src/eval/datasets/named-datasets.js';
import type { EvalDataset, EvalPassage } from '../src/eval/eval-dataset.js';
import { evaluationDocument, runEvaluation, type EvaluationReport } from '../src/eval/run-evaluation.js';
import type { InputDocument } from '../src/pipeline/pipeline-step.js';
import { entityGraph, levelModularity, storedCommunities } from '../test/helpers/hierarchy-modularity.js';
import { sharedDatasets } from './bench-utils.js';
import { generatedTwoWikiQuestionsWithTitles } from './two-wiki-generated-questions.js';

/** What one dataset's drift came to. */
export interface DatasetDrift {
  dataset: string;
  /** Largest |ΔRecall@5| in points over the methods ranked natively on both indexes. */
  drift: number;
  /** Recall@5 in points per method: updated, fresh; and the methods left out of the maximum, with why. */
  recall: Record<string, { updated: number | null; fresh: number | null }>;
  excluded: Record<string, string>;
  updates: { added: number; batches: number; deleted: number; refreshes: number };
  /**
   * Modularity of each level of the communities, both indexes' partitions measured on the fresh index's entity graph:
   * what keeping the partition between refreshes (`communities.betweenRefreshes`) costs in clustering quality.
   */
  modularity: { updated: number[]; fresh: number[] };
}

function twoWikiDataset(): EvalDataset {
  const passages = JSON.parse(readFileSync(join(sharedDatasets, '2wiki-corpus', 'corpus.json'), 'utf8')) as Array<{ title: string; text: string }>;
  const generated = generatedTwoWikiQuestionsWithTitles(passages, 100);
  return {
    name: '2wiki-generated',
    passages: passages.map((passage) => ({ key: passage.title, title: passage.title, text: passage.text })),
    questions: generated.map((question, index) => ({ id: `g${index}`, question: question.question, answers: [], goldKeys: question.titles })),
  };
}

/** The documents of passages as `runEvaluation` indexes them, so that its own index call finds them up to date. */
function documentsOf(dataset: EvalDataset, passages: readonly EvalPassage[]): InputDocument[] {
  const indexOf = new Map(dataset.passages.map((passage, index) => [passage, index]));
  return passages.map((passage) => evaluationDocument(dataset, passage, indexOf.get(passage) as number));
}

async function withWorkspace<T>(work: (kgrag: Kgrag) => Promise<T>): Promise<T> {
  const folder = mkdtempSync(join(tmpdir(), 'kgrag-bench-drift-'));
  const kgrag = await createKgrag({ workspace: folder, env: {}, config: { index: { mode: 'fast' } } });
  try {
    return await work(kgrag);
  } finally {
    await kgrag.close();
    rmSync(folder, { recursive: true, force: true });
  }
}

async function evaluate(kgrag: Kgrag, dataset: EvalDataset): Promise<EvaluationReport> {
  // Every method and variant; those that need an LLM fail or fall back here, and are left out of the maximum.
  return (await runEvaluation({ kgrag, dataset, methods: ['all'], answer: false })).report;
}

/** One dataset: the updated index against the fresh build of its final passages. */
export async function datasetDrift(dataset: EvalDataset, log: (line: string) => void): Promise<DatasetDrift> {
  const total = dataset.passages.length;
  const batch = Math.max(1, Math.round(total * 0.001));
  const batches = 10;
  const base = dataset.passages.slice(0, total - batch * batches);
  const random = createRandom(38);
  const deletedCount = Math.max(1, Math.round(total * 0.005));
  const deleted = new Set<EvalPassage>();
  while (deleted.size < deletedCount) deleted.add(dataset.passages[Math.floor(random() * total)] as EvalPassage);
  const final = dataset.passages.filter((passage) => !deleted.has(passage));
  const finalDataset: EvalDataset = { ...dataset, passages: final };
  const sources = documentsOf(dataset, [...deleted]).map((document) => document.source as string);

  let refreshes = 0;
  const updated = await withWorkspace(async (kgrag) => {
    await kgrag.index(documentsOf(dataset, base));
    for (let index = 0; index < batches; index++) {
      const start = base.length + index * batch;
      const summary = await kgrag.index(documentsOf(dataset, dataset.passages.slice(start, start + batch)));
      refreshes += summary.counts['statistics']?.['refreshed'] ?? 0;
    }
    const removal = await kgrag.delete(sources);
    refreshes += removal.run.counts['statistics']?.['refreshed'] ?? 0;
    log(`${dataset.name}: 99 % built, ${batches} additions of ${batch}, ${deleted.size} deleted, ${refreshes} refreshes in between; evaluating`);
    return { report: await evaluate(kgrag, finalDataset), communities: await storedCommunities(kgrag) };
  });
  const built = await withWorkspace(async (kgrag) => {
    // The evaluation builds the index first.
    const report = await evaluate(kgrag, finalDataset);
    const { entities, graph } = await entityGraph(kgrag);
    return { report, modularity: { updated: levelModularity(entities, graph, updated.communities), fresh: levelModularity(entities, graph, await storedCommunities(kgrag)) } };
  });
  const fresh = built.report;

  const recall: DatasetDrift['recall'] = {};
  const excluded: Record<string, string> = {};
  let drift = 0;
  for (const [method, report] of Object.entries(fresh.methods)) {
    const other = updated.report.methods[method];
    const pair = { updated: (other?.['recall@5'] as number | null | undefined) ?? null, fresh: (report['recall@5'] as number | null) ?? null };
    recall[method] = pair;
    const unnatural = [...report.ranking, ...(other?.ranking ?? [])].find((count) => count.kind !== 'native');
    if (unnatural) excluded[method] = `${unnatural.kind} ranking${unnatural.note ? `: ${unnatural.note}` : ''}`;
    else if (report.errors > 0 || (other?.errors ?? 1) > 0) excluded[method] = `errors: ${report.error_message ?? other?.error_message ?? 'missing'}`;
    else drift = Math.max(drift, Math.abs((pair.updated ?? 0) - (pair.fresh ?? 0)));
  }
  const shown = Object.entries(recall)
    .map(([method, pair]) => `${method} ${(pair.updated ?? 0).toFixed(1)}/${(pair.fresh ?? 0).toFixed(1)}${excluded[method] ? ' (excluded)' : ''}`)
    .join(', ');
  log(`${dataset.name}: Recall@5 updated/fresh: ${shown}; largest drift ${drift.toFixed(2)} points`);
  const levels = (values: number[]): string => values.map((value) => value.toFixed(4)).join(', ');
  log(`${dataset.name}: modularity by level, updated: ${levels(built.modularity.updated)}; fresh: ${levels(built.modularity.fresh)}`);
  return { dataset: dataset.name, drift, recall, excluded, updates: { added: batch * batches, batches, deleted: deleted.size, refreshes }, modularity: built.modularity };
}

/** The drift on both datasets. */
export async function incrementalQualityDrift(log: (line: string) => void): Promise<DatasetDrift[]> {
  return [await datasetDrift(await resolveNamedDataset('musique-train-100'), log), await datasetDrift(twoWikiDataset(), log)];
}
