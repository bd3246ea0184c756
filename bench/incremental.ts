/*
 * Issue 18: what an update of an index costs against building it again.
 *
 * 2Wiki, fast mode, every method (the defaults), in one process: a full build of all 6,119 passages; a build of
 * 99 % of them followed by the addition of the other 1 % (61 passages); the deletion of that 1 % from the full
 * build. `incremental_add_vs_full` and `incremental_delete_vs_full` are the update's wall time over the full
 * build's. The 1 % deleted are the passages indexed last, whose rows come last in every table and vector space, where
 * a deletion moves the fewest positions. `incremental_delete_random_vs_full` deletes 61 passages drawn at random (seeded) from a
 * copy of the same full build, what pruning old files is like; `reports_reused_fraction` is the share of the community reports after the addition that are the
 * reports before it, unchanged (same community id and text).
 *
 * The sample corpus, standard mode through the mock LLM server, GraphRAG's methods (local, global, drift): one
 * document is added to the index of the others. `llm_calls_add_one_document` is what the mock server was asked;
 * `llm_calls_expected` is what that addition must cost at the least, the sum of four terms, none read from what the
 * pipeline sent. Three come from the inputs alone (expected-addition-calls.ts rebuilds both states' graphs offline from
 * the documents, the configuration and the mock's replies): the extraction turns of the new document's chunks
 * (`extract.llm.maxGleanings`), one entity-resolution call per candidate group whose prompt is new, and the summary
 * calls of every entity or relation whose name or set of two or more descriptions is new. The fourth, one report per
 * community whose members, inner relations or their descriptions changed, reads the communities the index holds before
 * and after: which communities an incremental Leiden run keeps is the pipeline's own result, and no offline rule
 * predicts it. A term whose calls differ from the calls of its kind the server saw is printed with `MISMATCH`.
 */
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createKgrag, type Kgrag } from '../src/api/create-kgrag.js';
import type { InputDocument } from '../src/pipeline/pipeline-step.js';
import { sampleLlmReply } from '../test/helpers/sample-llm-responder.js';
import { standardTestLlmConfig } from '../test/helpers/standard-test-config.js';
import { type BenchResult, result, sharedDatasets } from './bench-utils.js';
import { expectedAdditionCalls, startTermCountingMockServer } from './expected-addition-calls.js';
import { maxOf } from '../src/core/max-of.js';
import { incrementalQualityDrift } from './incremental-quality-drift.js';
import { postgresRowsWritten } from './incremental-rows-written.js';

/** The share of 2Wiki an update adds or deletes. */
export const updateShare = 0.01;

/** The 6,119 2Wiki passages as documents, each named by its position (`2wiki#i`). */
export function twoWikiDocuments(): InputDocument[] {
  const passages = JSON.parse(readFileSync(join(sharedDatasets, '2wiki-corpus', 'corpus.json'), 'utf8')) as Array<{ title: string; text: string }>;
  return passages.map((passage, index) => ({ title: passage.title, text: passage.text, source: `2wiki#${index}` }));
}

/** Runs `work` on a workspace in `folder` (a new one by default), then deletes the folder. */
async function withWorkspace<T>(
  work: (kgrag: Kgrag) => Promise<T>,
  config: Record<string, unknown> = { index: { mode: 'fast' } },
  folder = mkdtempSync(join(tmpdir(), 'kgrag-bench-incremental-')),
): Promise<T> {
  const kgrag = await createKgrag({ workspace: folder, env: {}, config });
  try {
    return await work(kgrag);
  } finally {
    await kgrag.close();
    rmSync(folder, { recursive: true, force: true });
  }
}

async function timed(work: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await work();
  return (performance.now() - started) / 1000;
}

async function reportTexts(kgrag: Kgrag): Promise<Map<string, string>> {
  return new Map((await kgrag.store.table('reports').pick(['communityId', 'fullContent'])).map((report) => [report.communityId, report.fullContent]));
}

/** `count` of `documents` drawn without repeats by a seeded generator (a linear congruential one: the same draw each run). */
function drawn(documents: readonly InputDocument[], count: number, seed: number): InputDocument[] {
  let state = seed;
  const picked = new Set<number>();
  while (picked.size < count) {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    picked.add(Math.floor((state / 2 ** 31) * documents.length));
  }
  return [...picked].sort((left, right) => left - right).map((index) => documents[index] as InputDocument);
}

/** One run on 2Wiki: full build, delete the last 1 % and (from a copy) a random 1 %, add 1 %. */
async function twoWikiRun(documents: readonly InputDocument[], log: (line: string) => void): Promise<{ full: number; add: number; remove: number; removeRandom: number; reused: number }> {
  const split = documents.length - Math.round(documents.length * updateShare);
  const extra = documents.slice(split);
  const sourcesOf = (chosen: readonly InputDocument[]): string[] => chosen.map((document) => document.source as string);
  let full = 0;
  let remove = 0;
  const copy = mkdtempSync(join(tmpdir(), 'kgrag-bench-incremental-copy-'));
  await withWorkspace(async (kgrag) => {
    full = await timed(() => kgrag.index(documents));
    // Copied while nothing writes: a publish leaves the file whole, its log folded in.
    cpSync(kgrag.workspace, copy, { recursive: true });
    remove = await timed(() => kgrag.delete(sourcesOf(extra)));
  }).catch((error: unknown) => {
    rmSync(copy, { recursive: true, force: true });
    throw error;
  });
  const removeRandom = await withWorkspace((copied) => timed(() => copied.delete(sourcesOf(drawn(documents, extra.length, 7)))), undefined, copy);
  log(`full build ${full.toFixed(1)} s, delete the last ${extra.length} documents ${remove.toFixed(1)} s, ${extra.length} at random ${removeRandom.toFixed(1)} s`);
  let add = 0;
  let reused = 0;
  await withWorkspace(async (kgrag) => {
    await kgrag.index(documents.slice(0, split));
    const before = await reportTexts(kgrag);
    add = await timed(() => kgrag.index(extra));
    const after = await reportTexts(kgrag);
    const kept = [...after].filter(([community, text]) => before.get(community) === text).length;
    reused = kept / Math.max(1, after.size);
    log(`add ${extra.length} documents ${add.toFixed(1)} s; ${kept} of ${after.size} reports kept`);
  });
  return { full, add, remove, removeRandom, reused };
}

/** Communities by what their report reads: members, inner relations, and their descriptions. */
async function communityContents(kgrag: Kgrag): Promise<Set<string>> {
  const entities = new Map((await kgrag.store.table('entities').pick(['id', 'description'])).map((entity) => [entity.id, entity.description]));
  const relations = new Map((await kgrag.store.table('relations').pick(['id', 'description'])).map((relation) => [relation.id, relation.description]));
  return new Set(
    (await kgrag.store.table('communities').pick(['entityIds', 'relationIds'])).map((community) =>
      JSON.stringify([
        [...community.entityIds].sort().map((id) => `${id}=${entities.get(id) ?? ''}`),
        [...community.relationIds].sort().map((id) => `${id}=${relations.get(id) ?? ''}`),
      ]),
    ),
  );
}

/** Sample corpus, standard mode: the calls adding one document costs, and the fewest it can cost. */
export async function oneDocumentCalls(log: (line: string) => void): Promise<{ calls: number; expected: number }> {
  const corpus = new URL('../examples/sample-corpus/', import.meta.url).pathname;
  const documents = readdirSync(corpus)
    .sort()
    .map((file) => {
      const text = readFileSync(join(corpus, file), 'utf8');
      return { title: file, text, source: join(corpus, file) };
    });
  const added = documents.find((document) => document.title === '20-the-ferry-inn.md') as InputDocument;
  const before = documents.filter((document) => document !== added);
  const { server, made } = await startTermCountingMockServer();
  try {
    return await withWorkspace(
      async (kgrag) => {
        const derived = await expectedAdditionCalls({ before, added: [added], config: kgrag.config, reply: sampleLlmReply });
        if (derived.offlineExtractionCalls !== derived.extraction) {
          log(`MISMATCH extraction rule: ${derived.newChunks} chunks × ${derived.turnsPerChunk} turns, but the offline conversations made ${derived.offlineExtractionCalls} calls`);
        }
        await kgrag.index(before);
        const communitiesBefore = await communityContents(kgrag);
        const callsBefore = server.stats.completions;
        made.clear();
        await kgrag.index([added]);
        const calls = server.stats.completions - callsBefore;
        const reports = [...(await communityContents(kgrag))].filter((content) => !communitiesBefore.has(content)).length;
        const terms: Array<[string, number]> = [
          ['extraction', derived.extraction],
          ['resolution', derived.resolution],
          ['summaries', derived.summaries],
          ['reports', reports],
        ];
        log(
          `add one document: ${calls} calls; expected ${terms.map(([term, count]) => `${count} ${term}${(made.get(term) ?? 0) === count ? '' : ` (MISMATCH: the server saw ${made.get(term) ?? 0})`}`).join(' + ')}` +
            `; candidate groups naming a new entity: ${derived.groupsWithNewEntity}`,
        );
        return { calls, expected: terms.reduce((sum, [, count]) => sum + count, 0) };
      },
      { index: { mode: 'standard' }, pipeline: { methods: ['local', 'global', 'drift'] }, llm: standardTestLlmConfig(server.url) },
    );
  } finally {
    await server.close();
  }
}

export async function benchIncremental(runs: number): Promise<Record<string, BenchResult>> {
  const log = (line: string): void => void process.stderr.write(`  ${line}\n`);
  const documents = twoWikiDocuments();
  const measured: Array<Awaited<ReturnType<typeof twoWikiRun>>> = [];
  for (let run = 0; run < runs; run++) measured.push(await twoWikiRun(documents, log));
  const calls = await oneDocumentCalls(log);
  // Deterministic (seeded updates, the same questions): one run says it.
  const drifts = await incrementalQualityDrift(log);
  const rows = await postgresRowsWritten(log);
  return {
    incremental_rows_written_add_one_document: result([rows.written], 'rows'),
    incremental_rows_index: result([rows.indexRows], 'rows'),
    incremental_quality_drift_r5: result([maxOf(drifts.map((drift) => drift.drift))], 'points'),
    ...Object.fromEntries(drifts.map((drift) => [`incremental_quality_drift_r5_${drift.dataset.replace(/\W+/g, '_')}`, result([drift.drift], 'points')])),
    // Level 0's modularity with the partition kept between refreshes, against a fresh build's (both on the fresh graph).
    ...Object.fromEntries(
      drifts.flatMap((drift) => {
        const name = drift.dataset.replace(/\W+/g, '_');
        return [
          [`incremental_level0_modularity_updated_${name}`, result([drift.modularity.updated[0] ?? 0], 'modularity')],
          [`incremental_level0_modularity_fresh_${name}`, result([drift.modularity.fresh[0] ?? 0], 'modularity')],
        ];
      }),
    ),
    incremental_full_build_s: result(measured.map((run) => run.full), 's'),
    incremental_add_s: result(measured.map((run) => run.add), 's'),
    incremental_delete_s: result(measured.map((run) => run.remove), 's'),
    incremental_add_vs_full: result(measured.map((run) => run.add / run.full), 'ratio'),
    incremental_delete_vs_full: result(measured.map((run) => run.remove / run.full), 'ratio'),
    incremental_delete_random_s: result(measured.map((run) => run.removeRandom), 's'),
    incremental_delete_random_vs_full: result(measured.map((run) => run.removeRandom / run.full), 'ratio'),
    reports_reused_fraction: result(measured.map((run) => run.reused), 'ratio'),
    llm_calls_add_one_document: result([calls.calls], 'count'),
    llm_calls_expected: result([calls.expected], 'count'),
  };
}
