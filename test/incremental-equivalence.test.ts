// Issue 18's equivalence: an index kept up to date by additions and deletions is the index a fresh build of the same
// documents gives. Tables that do not depend on clustering must be identical (ids, rows, vectors, blobs); communities
// may differ by the history of the clustering, but not in quality, and no method may lose recall.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createKgrag, type Kgrag } from '../src/api/create-kgrag.js';
import type { InputDocument } from '../src/pipeline/pipeline-step.js';
import { loadSampleDataset } from '../src/eval/datasets/load-sample-dataset.js';
import type { EvalDataset } from '../src/eval/eval-dataset.js';
import { evaluationDocument, runEvaluation, type EvaluationReport } from '../src/eval/run-evaluation.js';
import { hierarchicalLeidenFromEdges } from '../src/graph/hierarchical-leiden.js';
import { entityGraph, levelModularity, storedCommunities } from './helpers/hierarchy-modularity.js';
import { indexSnapshot } from './helpers/index-snapshot.js';

/**
 * What depends on the clustering: the communities, their reports and report vectors, and the reports' inputs by
 * community (`reports:inputs`, what the next update compares with); AutoKG's keywords, their memberships, edges and
 * vectors, and its stored clusters (an update keeps the chunk clusters and names only the changed ones again,
 * src/methods/autokg/README.md).
 */
const clusteringDependent = new Set([
  'communities',
  'reports',
  'vectors:reports',
  'blob:vector-texts:reports',
  'meta:reports:inputs',
  'meta:communities:rows',
  'blob:communities:members',
  'keywords',
  'keywordChunks',
  'keywordEdges',
  'vectors:keywords',
  'blob:autokg-keyword-clusters',
]);

/** Two documents that come and go again: their entities overlap the corpus's (Kestermouth, the Kester). */
const transient: InputDocument[] = [
  {
    title: 'Kestermouth Regatta 1962',
    text: 'Kestermouth Regatta 1962\nThe Kestermouth Regatta of 1962 was rowed on the River Kester below the Kester Weir Bridge. The Marle Boatworks built two of the racing gigs, and the Ferry Inn served the crews.',
    source: 'transient:regatta',
  },
  {
    title: 'Ferry Inn ledger',
    text: 'Ferry Inn ledger\nThe ledger of the Ferry Inn records a dinner for the Kester Flood Boat Crew in 1969 and a meeting of the Kestermouth Heritage Society in 1988.',
    source: 'transient:ledger',
  },
];

function documentsOf(dataset: EvalDataset): InputDocument[] {
  // As `runEvaluation` indexes them, so that evaluating either workspace finds its index up to date.
  return dataset.passages.map((passage, index) => evaluationDocument(dataset, passage, index));
}


describe('an index updated with refreshShare 0 (every update refits the corpus statistics) equals a fresh build (fast mode, every method)', { timeout: 600_000 }, () => {
  const folders: string[] = [];
  let fresh: Kgrag;
  let incremental: Kgrag;
  let dataset: EvalDataset;

  before(async () => {
    dataset = await loadSampleDataset();
    const documents = documentsOf(dataset);
    const open = async (refreshShare?: number): Promise<Kgrag> => {
      const folder = mkdtempSync(join(tmpdir(), 'kgrag-equivalence-'));
      folders.push(folder);
      return createKgrag({ workspace: folder, env: {}, config: { index: { mode: 'fast', ...(refreshShare === undefined ? {} : { refreshShare }) } } });
    };
    fresh = await open();
    await fresh.index(documents);
    // Every update refits the corpus statistics: an index right after a refresh equals a fresh build.
    incremental = await open(0);
    const split = Math.round(documents.length * 0.7);
    await incremental.index(documents.slice(0, split));
    await incremental.index(documents.slice(split));
    await incremental.index(transient);
    const removed = await incremental.delete(transient.map((document) => document.source as string));
    assert.equal(removed.deleted.length, transient.length);
  });

  after(async () => {
    await fresh.close();
    await incremental.close();
    for (const folder of folders) rmSync(folder, { recursive: true, force: true });
  });

  it('holds identical documents, chunks, extractions, entities, relations, triples, vectors and graphs', async () => {
    const expected = await indexSnapshot(fresh);
    const actual = await indexSnapshot(incremental);
    assert.deepEqual(Object.keys(actual).sort(), Object.keys(expected).sort());
    for (const key of Object.keys(expected)) {
      if (clusteringDependent.has(key)) continue;
      assert.deepEqual(actual[key], expected[key], `${key} differs from the fresh build's`);
    }
  });

  it('ranks passages with identical scores: full-text statistics forget deleted rows exactly', async () => {
    for (const method of ['basic:bm25', 'basic:hybrid', 'basic:dense']) {
      for (const question of dataset.questions.slice(0, 8)) {
        const ranked = async (kgrag: Kgrag) => (await kgrag.retrieve(question.question, { method })).retrieval.chunks.map((chunk) => [chunk.id, chunk.score]);
        assert.deepEqual(await ranked(incremental), await ranked(fresh), `${method}: "${question.question}"`);
      }
    }
  });

  it('clusters the entity graph as well as a fresh build: level 0 within 1 %, deeper levels within what other seeds give', async () => {
    const { entities, graph, relations } = await entityGraph(fresh);
    const expected = levelModularity(entities, graph, await storedCommunities(fresh));
    const actual = levelModularity(entities, graph, await storedCommunities(incremental));
    assert.ok(expected.length > 1 && actual.length > 1);
    const [freshTop = 0, keptTop = 0] = [expected[0], actual[0]];
    assert.ok(keptTop >= freshTop - Math.abs(freshTop) * 0.01, `level 0: modularity ${keptTop.toFixed(4)} vs ${freshTop.toFixed(4)} fresh`);
    // A deeper level splits each community on its own, and fresh builds with other seeds differ there by more than 1 %:
    // the update's split must be no worse than the worst of them.
    const seeds = [1, 2, 3, 4, 5].map((seed) =>
      levelModularity(entities, graph, hierarchicalLeidenFromEdges(entities, relations, { maxClusterSize: 10, seed }).map((community) => ({ level: community.level, members: community.members }))),
    );
    for (let level = 1; level < Math.min(expected.length, actual.length); level++) {
      const floor = Math.min(expected[level] as number, ...seeds.map((levels) => levels[level] ?? Number.POSITIVE_INFINITY));
      assert.ok((actual[level] as number) >= floor - 1e-9, `level ${level}: modularity ${actual[level]?.toFixed(4)} vs ${floor.toFixed(4)}, the worst fresh clustering's`);
    }
  });

  // The other methods read only tables the first test finds identical, and rank deterministically from them.
  it('keeps the recall of every method that reads the communities (local, global, drift) on the sample questions', async () => {
    const evaluate = async (kgrag: Kgrag): Promise<EvaluationReport> =>
      (await runEvaluation({ kgrag, dataset, methods: ['local', 'global:static', 'global:dynamic', 'drift'], answer: false })).report;
    const expected = await evaluate(fresh);
    const actual = await evaluate(incremental);
    let compared = 0;
    for (const [method, report] of Object.entries(expected.methods)) {
      if (report.errors === report.questions) continue;
      compared++;
      const kept = actual.methods[method];
      assert.ok(kept, `${method} is missing`);
      for (const k of [1, 2, 5, 10]) {
        const freshRecall = report[`recall@${k}`] ?? 0;
        const keptRecall = kept[`recall@${k}`] ?? 0;
        // One question's worth of slack: the communities of an update need not be the fresh build's.
        const slack = 100 / report.questions_with_gold;
        assert.ok(keptRecall >= freshRecall - slack - 1e-9, `${method} recall@${k}: ${keptRecall} vs ${freshRecall} fresh`);
      }
    }
    assert.equal(compared, 4, `only ${compared} of the 4 methods ran without an LLM`);
  });
});
