/*
 * Issue 18: what an update of an index costs against building it again.
 *
 * 2Wiki, fast mode, every method (the defaults), in one process: a full build of all 6,119 passages; a build of
 * 99 % of them followed by the addition of the other 1 % (61 passages); the deletion of that 1 % from the full
 * build. `incremental_add_vs_full` and `incremental_delete_vs_full` are the update's wall time over the full
 * build's; `reports_reused_fraction` is the share of the community reports after the addition that are the
 * reports before it, unchanged (same community id and text).
 *
 * The sample corpus, standard mode through the mock LLM server, GraphRAG's methods (local, global, drift): one
 * document is added to the index of the others. `llm_calls_add_one_document` is what the mock server was asked;
 * `llm_calls_expected` is what that addition must cost at the least, counted independently of the pipeline: the
 * extraction and gleaning calls whose prompt holds the new document's text, one summary per entity or relation
 * whose list of descriptions changed and has two or more, one entity-resolution call per candidate group that
 * names a new entity, and one report per community whose members, inner relations or their descriptions changed.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createKgrag, type Kgrag } from '../src/api/create-kgrag.js';
import type { InputDocument } from '../src/pipeline/pipeline-step.js';
import { startMockOpenAiServer } from '../src/testing/index.js';
import { sampleLlmReply } from '../test/helpers/sample-llm-responder.js';
import { standardTestLlmConfig } from '../test/helpers/standard-test-config.js';
import { type BenchResult, result, sharedDatasets } from './bench-utils.js';

const updateShare = 0.01;

function twoWikiDocuments(): InputDocument[] {
  const passages = JSON.parse(readFileSync(join(sharedDatasets, '2wiki-corpus', 'corpus.json'), 'utf8')) as Array<{ title: string; text: string }>;
  return passages.map((passage, index) => ({ title: passage.title, text: passage.text, source: `2wiki#${index}` }));
}

async function withWorkspace<T>(work: (kgrag: Kgrag) => Promise<T>, config: Record<string, unknown> = { index: { mode: 'fast' } }): Promise<T> {
  const folder = mkdtempSync(join(tmpdir(), 'kgrag-bench-incremental-'));
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

/** One run on 2Wiki: full build, add 1 %, delete 1 %. */
async function twoWikiRun(documents: readonly InputDocument[], log: (line: string) => void): Promise<{ full: number; add: number; remove: number; reused: number }> {
  const split = documents.length - Math.round(documents.length * updateShare);
  const extra = documents.slice(split);
  let full = 0;
  let remove = 0;
  await withWorkspace(async (kgrag) => {
    full = await timed(() => kgrag.index(documents));
    remove = await timed(() => kgrag.delete(extra.map((document) => document.source as string)));
  });
  log(`full build ${full.toFixed(1)} s, delete ${extra.length} documents ${remove.toFixed(1)} s`);
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
  return { full, add, remove, reused };
}

/**
 * The descriptions of every graph element as the summaries see them: the extracted descriptions of each name, gathered
 * under the entity the name resolved to (its title or one of its aliases), and of each relation between two entities.
 */
async function descriptionLists(kgrag: Kgrag): Promise<Map<string, string>> {
  const entityOf = new Map<string, string>();
  for (const entity of await kgrag.store.table('entities').pick(['id', 'title', 'aliases'])) {
    for (const name of [entity.title, ...entity.aliases]) entityOf.set(name.toUpperCase(), entity.id);
  }
  const resolved = (name: string): string => entityOf.get(name.toUpperCase()) ?? name.toUpperCase();
  const lists = new Map<string, string[]>();
  const add = (key: string, description: string): void => {
    const list = lists.get(key);
    if (list) list.push(description);
    else lists.set(key, [description]);
  };
  for (const extraction of await kgrag.store.table('extractions').pick(['parsed', 'extractor'])) {
    if (extraction.extractor !== 'llm-graph') continue;
    const graph = (extraction.parsed as { graph: { entities: Array<{ name: string; description: string }>; relations: Array<{ source: string; target: string; description: string }> } }).graph;
    for (const entity of graph.entities) add(`e:${resolved(entity.name)}`, entity.description.trim());
    for (const relation of graph.relations) add(`r:${[resolved(relation.source), resolved(relation.target)].sort().join('|')}`, relation.description.trim());
  }
  return new Map([...lists].map(([key, list]) => [key, [...new Set(list.filter(Boolean))].sort().join('\u0000')]));
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
  let extraction = 0;
  let resolution = 0;
  const made = new Map<string, number>();
  const server = await startMockOpenAiServer({
    reply: (request) => {
      const prompt = request.messages.map((message) => message.content).join('\n');
      const purpose = prompt.includes('{"clusters"')
        ? 'resolution'
        : prompt.includes('Description list:')
          ? 'summaries'
          : prompt.includes('-----Entities-----') || prompt.includes('-----Reports-----')
            ? 'reports'
            : 'extraction';
      made.set(purpose, (made.get(purpose) ?? 0) + 1);
      const body = added.text.split('\n').find((line) => line.length > 80) ?? added.text;
      if (prompt.includes(body.slice(0, 80)) && /entit/i.test(prompt) && /relationship/i.test(prompt)) extraction++;
      if (prompt.includes('{"clusters"')) resolution++;
      return sampleLlmReply(request);
    },
  });
  try {
    return await withWorkspace(
      async (kgrag) => {
        await kgrag.index(documents.filter((document) => document !== added));
        const descriptionsBefore = await descriptionLists(kgrag);
        const communitiesBefore = await communityContents(kgrag);
        const callsBefore = server.stats.completions;
        extraction = 0;
        resolution = 0;
        made.clear();
        await kgrag.index([added]);
        const calls = server.stats.completions - callsBefore;
        const descriptionsAfter = await descriptionLists(kgrag);
        const summaries = [...descriptionsAfter].filter(([key, list]) => list.includes('\u0000') && descriptionsBefore.get(key) !== list).length;
        const reports = [...(await communityContents(kgrag))].filter((content) => !communitiesBefore.has(content)).length;
        log(`add one document: ${calls} calls (${[...made].map(([purpose, count]) => `${count} ${purpose}`).join(', ')}); expected ${extraction} extraction + ${summaries} summaries + ${resolution} resolution + ${reports} reports`);
        return { calls, expected: extraction + summaries + resolution + reports };
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
  return {
    incremental_full_build_s: result(measured.map((run) => run.full), 's'),
    incremental_add_s: result(measured.map((run) => run.add), 's'),
    incremental_delete_s: result(measured.map((run) => run.remove), 's'),
    incremental_add_vs_full: result(measured.map((run) => run.add / run.full), 'ratio'),
    incremental_delete_vs_full: result(measured.map((run) => run.remove / run.full), 'ratio'),
    reports_reused_fraction: result(measured.map((run) => run.reused), 'ratio'),
    llm_calls_add_one_document: result([calls.calls], 'count'),
    llm_calls_expected: result([calls.expected], 'count'),
  };
}
