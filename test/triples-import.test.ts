import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test, type TestContext } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createKgrag, type Kgrag } from '../src/api/create-kgrag.js';
import { KgragError } from '../src/core/errors.js';
import { parseOpenieFile, parseOpenieText } from '../src/extract/triples/parse-openie-file.js';
import { runPipeline } from '../src/pipeline/run-pipeline.js';
import { createEmbedder } from '../src/providers/embed/create-embedder.js';
import { chunkStep } from '../src/pipeline/steps/chunk-step.js';
import { statisticsStep } from '../src/pipeline/steps/statistics-step.js';
import { loadStep } from '../src/pipeline/steps/load-step.js';
import { createTriplesStep } from '../src/pipeline/steps/triples-step.js';
import { openSqliteStore } from '../src/store/sqlite/sqlite-store.js';
import { createTokenizer } from '../src/text/tokenizer.js';
import { runCliCaptured } from './helpers/run-cli-captured.js';

/*
 * Importing HippoRAG OpenIE output: the lenient parse (bare NaN), matching passages to indexed documents and
 * placing their triples on chunks, the stored import driving the triples step, the CLI, and the real
 * gpt-3.5 OpenIE file of MuSiQue against its corpus.
 */

const root = mkdtempSync(join(tmpdir(), 'kgrag-triples-import-'));
after(() => rmSync(root, { recursive: true, force: true }));

const corpus = [
  { title: 'Metlako Falls', text: 'Metlako Falls is a waterfall on Eagle Creek in Oregon. It was named by Samuel Lancaster.' },
  { title: 'Eagle Creek', text: 'Eagle Creek is a tributary of the Columbia River in Multnomah County, Oregon.' },
  { title: 'Samuel Lancaster', text: 'Samuel Lancaster was an engineer who designed the Columbia River Highway.' },
  { title: 'Punch Bowl Falls', text: 'Punch Bowl Falls is a waterfall on Eagle Creek. Its pool is popular with swimmers.' },
];

const openieFile = `{"docs": [
  {"idx": 0, "title": "Metlako Falls", "text": "${corpus[0]?.text}", "passage": "Metlako Falls\\n${corpus[0]?.text}",
   "extracted_entities": ["Metlako Falls", "Eagle Creek", "Oregon", "Samuel Lancaster", 7],
   "extracted_triples": [["Metlako Falls", "is", "waterfall"], ["Metlako Falls", "located on", "Eagle Creek"], ["Metlako Falls", "named by", "Samuel Lancaster"], ["Metlako Falls", "in"]]},
  {"idx": 1, "passage": "Eagle Creek\\n${corpus[1]?.text}",
   "extracted_entities": ["Eagle Creek", "Columbia River", "NaN"],
   "extracted_triples": [["Eagle Creek", "tributary of", "Columbia River"], ["Eagle Creek", "located in", "Multnomah County"]]},
  {"idx": 2, "title": "Samuel Lancaster", "text": "${corpus[2]?.text}",
   "extracted_entities": ["Samuel Lancaster", "Columbia River Highway"],
   "extracted_triples": [["Samuel Lancaster", "designed", "Columbia River Highway"], ["Samuel Lancaster", "was", "engineer", "extra"]]},
  {"idx": 3, "title": "Multnomah Falls", "text": "Multnomah Falls is the tallest waterfall in Oregon.", "passage": "Multnomah Falls\\nMultnomah Falls is the tallest waterfall in Oregon.",
   "extracted_entities": ["Multnomah Falls"], "extracted_triples": [["Multnomah Falls", "is", "tallest waterfall in Oregon"]]},
  {"idx": 4, "title": 17},
  {"idx": 5, "title": "Nothing"}
 ], "ents_by_doc": [], "avg_ent_chars": NaN, "avg_ent_words": -Infinity, "current_cost": 0.0}`;

let corpusPath = '';
let openiePath = '';
before(() => {
  corpusPath = join(root, 'corpus.json');
  openiePath = join(root, 'openie.json');
  writeFileSync(corpusPath, JSON.stringify(corpus));
  writeFileSync(openiePath, openieFile);
});

describe('parsing a HippoRAG OpenIE file', () => {
  test('reads bare NaN and -Infinity outside strings, keeps "NaN" inside them, and reports bad records by index', async () => {
    const parsed = await parseOpenieFile(openiePath);
    assert.equal(parsed.docs.length, 4);
    assert.deepEqual(
      parsed.skipped.map((record) => record.index),
      [4, 5],
    );
    assert.match(parsed.skipped[0]?.problem ?? '', /title/);
    assert.match(parsed.skipped[1]?.problem ?? '', /neither "passage" nor "text"/);
    assert.equal(parsed.droppedTriples, 2, 'a triple of 2 and one of 4 parts');
    assert.equal(parsed.droppedEntities, 1, 'a number');
    assert.deepEqual(parsed.docs[1]?.entities, ['Eagle Creek', 'Columbia River', 'NaN']);
    assert.equal(parsed.docs[2]?.passage, `Samuel Lancaster\n${corpus[2]?.text}`, 'title + "\\n" + text when there is no passage');
    assert.deepEqual(parseOpenieText('{"docs": [], "x": [NaN, Infinity, -Infinity, "NaN \\" NaN"]}', 'x.json'), { docs: [], skipped: [], droppedTriples: 0, droppedEntities: 0 });
  });

  test('names the file and the fix when it is missing, not JSON, or has no docs', async () => {
    const isError = (code: string, pattern: RegExp) => (error: unknown) => KgragError.isInstance(error) && error.code === code && pattern.test(error.message) && error.hint !== undefined;
    await assert.rejects(parseOpenieFile(join(root, 'missing.json')), isError('OPENIE_FILE_NOT_FOUND', /missing\.json does not exist/));
    assert.throws(() => parseOpenieText('{"docs": [', 'broken.json'), isError('OPENIE_FILE_INVALID', /broken\.json: is not valid JSON/));
    assert.throws(() => parseOpenieText('{"documents": []}', 'other.json'), isError('OPENIE_FILE_INVALID', /other\.json: has no "docs" list/));
  });
});

describe('importing OpenIE into a workspace', () => {
  let kgrag: Kgrag;
  before(async () => {
    kgrag = await createKgrag({ workspace: join(root, 'workspace'), env: {} });
    await kgrag.index([corpusPath]);
  });
  after(() => kgrag.close());

  test('matches passages to documents, stores their triples on the matched chunks, and reports the rest', async () => {
    const warnings: string[] = [];
    const summary = await kgrag.importOpenie(openiePath, { onEvent: (event) => event.type === 'warning' && warnings.push(event.warning.message) });
    assert.deepEqual(
      { docs: summary.docs, matched: summary.matched, unmatched: summary.unmatched, triples: summary.triples, entities: summary.entities, changed: summary.changed },
      { docs: 4, matched: 3, unmatched: 1, triples: 6, entities: 9, changed: true },
    );
    assert.deepEqual(summary.unmatchedDocs, [{ index: 3, title: 'Multnomah Falls' }]);
    assert.deepEqual(summary.indexed?.ran.slice(0, 2), ['triples', 'embed-triples'], 'the import rebuilds the triples and what reads them');
    assert.ok(warnings.some((message) => /1 of 4 imported OpenIE passages match no indexed document \(#3 "Multnomah Falls"\)/.test(message)));

    const documents = new Map((await kgrag.store.table('documents').all()).map((document) => [document.id, document.title]));
    const chunkTitles = new Map((await kgrag.store.table('chunks').all()).map((chunk) => [chunk.id, documents.get(chunk.documentId)]));
    const byTitle = new Map<string, string[]>();
    for (const triple of await kgrag.store.table('triples').all()) {
      const title = chunkTitles.get(triple.chunkId) ?? '?';
      byTitle.set(title, [...(byTitle.get(title) ?? []), `${triple.subject} | ${triple.predicate} | ${triple.object}`]);
    }
    assert.deepEqual(byTitle.get('Metlako Falls'), ['Metlako Falls | is | waterfall', 'Metlako Falls | located on | Eagle Creek', 'Metlako Falls | named by | Samuel Lancaster']);
    assert.deepEqual(byTitle.get('Eagle Creek'), ['Eagle Creek | tributary of | Columbia River', 'Eagle Creek | located in | Multnomah County']);
    assert.deepEqual(byTitle.get('Samuel Lancaster'), ['Samuel Lancaster | designed | Columbia River Highway']);
    assert.ok((byTitle.get('Punch Bowl Falls') ?? []).length > 0, 'an unmatched document keeps its extracted triples');
    assert.ok((byTitle.get('Punch Bowl Falls') ?? []).every((triple) => triple.startsWith('Punch Bowl Falls')));
  });

  test('importing the same file again changes nothing and rebuilds nothing', async () => {
    const summary = await kgrag.importOpenie(openiePath);
    assert.equal(summary.changed, false);
    assert.deepEqual(summary.indexed?.ran, []);
    assert.ok(summary.indexed?.skipped.includes('triples'));
  });

  test('a passage longer than a chunk gives each triple to the chunk holding both of its arguments, else to the first', async () => {
    const long = await createKgrag({ workspace: join(root, 'long'), env: {}, config: { chunking: { size: 24, overlap: 0 } } });
    try {
      const sentences = [
        'Harold Marle founded the Sedley Mill on the River Kester in 1851, and the mill made canvas for sails.',
        'The mill grew quickly and employed most of the families of the lower town for three generations.',
        'In 1903 the Kestermouth Flood destroyed the weir, and Edith Rook organised the relief of the town.',
      ];
      const text = sentences.join(' ');
      await long.index([{ title: 'Sedley Mill', text }]);
      assert.ok((await long.store.table('chunks').count()) >= 3);
      const file = join(root, 'long-openie.json');
      writeFileSync(
        file,
        JSON.stringify({
          docs: [
            {
              passage: `Sedley Mill\n${text}`,
              extracted_entities: ['Harold Marle', 'Edith Rook'],
              extracted_triples: [
                ['Harold Marle', 'founded', 'Sedley Mill'],
                ['Kestermouth Flood', 'destroyed', 'weir'],
                ['Sedley Mill', 'made', 'sailcloth'],
              ],
            },
          ],
        }),
      );
      const summary = await long.importOpenie(file);
      assert.equal(summary.matched, 1);
      const chunks = new Map((await long.store.table('chunks').all()).map((chunk) => [chunk.id, chunk]));
      const placed = new Map((await long.store.table('triples').all()).map((triple) => [triple.subject, chunks.get(triple.chunkId)]));
      assert.equal(placed.get('Harold Marle')?.ordinal, 0);
      assert.ok(placed.get('Kestermouth Flood')?.text.includes('Kestermouth Flood destroyed the weir'));
      assert.notEqual(placed.get('Kestermouth Flood')?.ordinal, 0);
      assert.equal(placed.get('Sedley Mill')?.ordinal, 0, 'arguments found together nowhere: the first chunk');
    } finally {
      await long.close();
    }
  });
});

describe('kgrag import openie and kgrag eval --openie', () => {
  test('import: progress and warnings on stderr, one summary line on stdout; a missing file is one error line', async () => {
    const workspace = join(root, 'cli');
    const indexed = await runCliCaptured(['index', corpusPath, '-w', workspace, '-q'], { cwd: root });
    assert.equal(indexed.code, 0, indexed.stderr);
    const result = await runCliCaptured(['import', 'openie', 'openie.json', '-w', workspace], { cwd: root });
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout, `3 of 4 OpenIE passages matched, 6 triples and 9 entities imported into ${workspace}\n`);
    assert.match(result.stderr, /warning: docs\[4\] of openie\.json was skipped: title/);
    assert.match(result.stderr, /warning: 2 triples that were not three strings and 1 entities that were not strings were dropped/);
    assert.match(result.stderr, /warning: 1 passages match no indexed document \(docs\[3\] "Multnomah Falls"\)/);
    const json = await runCliCaptured(['import', 'openie', 'openie.json', '-w', workspace, '--json', '-q'], { cwd: root });
    assert.equal((JSON.parse(json.stdout) as { changed: boolean; matched: number }).matched, 3);

    const missing = await runCliCaptured(['import', 'openie', 'nope.json', '-w', workspace], { cwd: root });
    assert.equal(missing.code, 1);
    assert.equal(missing.stdout, '');
    assert.match(missing.stderr, /kgrag: error: OpenIE file .*nope\.json does not exist — check the path/);
  });

  test('import: a file none of whose passages matches the indexed documents is refused, naming the file and the counts, and nothing is stored', async () => {
    const workspace = join(root, 'cli-unmatched');
    const indexed = await runCliCaptured(['index', corpusPath, '-w', workspace, '-q'], { cwd: root });
    assert.equal(indexed.code, 0, indexed.stderr);
    const other = join(root, 'other-openie.json');
    writeFileSync(
      other,
      JSON.stringify({
        docs: [
          { idx: 0, passage: 'Multnomah Falls\nA waterfall on the Oregon side of the Columbia River Gorge.', extracted_entities: ['Multnomah Falls'], extracted_triples: [['Multnomah Falls', 'located in', 'Oregon']] },
          { idx: 1, passage: 'Latourell Falls\nThe westernmost waterfall of the gorge.', extracted_entities: ['Latourell Falls'], extracted_triples: [] },
        ],
      }),
    );
    const result = await runCliCaptured(['import', 'openie', 'other-openie.json', '-w', workspace], { cwd: root });
    assert.equal(result.code, 1);
    assert.equal(result.stdout, '');
    assert.equal(result.stderr.trim().split('\n').length, 1, result.stderr);
    assert.match(
      result.stderr,
      /^kgrag: error: 0 of the 2 passages of OpenIE file .*other-openie\.json match one of the 4 documents of .*cli-unmatched \(passages: docs\[0\] "Multnomah Falls", docs\[1\] "Latourell Falls"; documents: "Metlako Falls", "Eagle Creek", …\), so nothing was imported — .*check --workspace/,
    );
    const kgrag = await createKgrag({ workspace, env: {} });
    try {
      assert.equal(await kgrag.store.getMeta('openie-import'), undefined, 'nothing stored');
    } finally {
      await kgrag.close();
    }

    const empty = join(root, 'empty-openie.json');
    writeFileSync(empty, JSON.stringify({ docs: [{ idx: 0, title: 'No passage' }] }));
    const noPassages = await runCliCaptured(['import', 'openie', 'empty-openie.json', '-w', workspace], { cwd: root });
    assert.equal(noPassages.code, 1);
    assert.match(noPassages.stderr, /^kgrag: error: OpenIE file .*empty-openie\.json holds no usable passage: all 1 records were skipped \(docs\[0\]: /);
  });

  test('eval --openie imports the file into the evaluation workspace before indexing it', async () => {
    const questions = join(root, 'questions.jsonl');
    writeFileSync(
      questions,
      [
        { id: 'q1', question: 'Who named Metlako Falls?', answers: ['Samuel Lancaster'], gold_passages: [`Metlako Falls\n${corpus[0]?.text}`] },
        { id: 'q2', question: 'Which river does Eagle Creek flow into?', answers: ['Columbia River'], gold_passages: [`Eagle Creek\n${corpus[1]?.text}`] },
      ]
        .map((line) => JSON.stringify(line))
        .join('\n'),
    );
    const workspace = join(root, 'eval-ws');
    const result = await runCliCaptured(
      ['eval', '--corpus', 'corpus.json', '--questions', 'questions.jsonl', '--openie', 'openie.json', '--methods', 'basic:bm25', '--json', '-w', workspace, '-o', join(root, 'eval', 'report.json')],
      { cwd: root },
    );
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stderr, /OpenIE import: 3 of 4 passages matched, 6 triples and 9 entities used; 1 passages match no passage of the corpus/);
    const kgrag = await createKgrag({ workspace, env: {} });
    try {
      const subjects = new Set((await kgrag.store.table('triples').all()).map((triple) => `${triple.subject} | ${triple.predicate} | ${triple.object}`));
      assert.ok(subjects.has('Metlako Falls | named by | Samuel Lancaster'));
      const [run] = await kgrag.store.table('runs').get(['triples']);
      assert.equal(run?.counts['importedChunks'], 3);
    } finally {
      await kgrag.close();
    }
  });
});

const musique = fileURLToPath(new URL('../../shared/datasets/musique-train-100/', import.meta.url));
const musiqueSkip = existsSync(join(musique, 'openie-gpt-3.5-turbo-1106.json'))
  ? false
  : `the shared datasets are absent (${musique}); set up ../shared/datasets to run this test`;

describe('the real MuSiQue OpenIE file of gpt-3.5-turbo-1106', () => {
  test('matches all 1,890 passages of its corpus and replaces extraction with its triples', { skip: musiqueSkip }, async (t: TestContext) => {
    // The pipeline runs here step by step on one store that the workspace then reads as it is.
    const store = openSqliteStore(join(root, 'musique', 'kgrag.db'));
    const kgrag = await createKgrag({ workspace: join(root, 'musique'), env: {}, store });
    try {
      const tokenizer = await createTokenizer('o200k_base');
      const pipeline = { store, config: kgrag.config, tokenizer, embedder: createEmbedder(kgrag.config) };
      // Only what matching needs: the documents and chunks of the corpus (the whole index takes minutes).
      await runPipeline({ ...pipeline, steps: [loadStep, chunkStep], inputs: { paths: [join(musique, 'corpus.json')], documents: [] } });
      const started = performance.now();
      const summary = await kgrag.importOpenie(join(musique, 'openie-gpt-3.5-turbo-1106.json'), { index: false });
      const importSeconds = (performance.now() - started) / 1000;
      const stepStarted = performance.now();
      const run = await runPipeline({ ...pipeline, steps: [loadStep, chunkStep, statisticsStep, createTriplesStep('fast')] });
      const stepSeconds = (performance.now() - stepStarted) / 1000;
      t.diagnostic(
        `MuSiQue OpenIE: ${summary.matched} of ${summary.docs} passages matched (${summary.unmatched} unmatched), ${summary.triples} triples and ${summary.entities} entities, ` +
          `${summary.droppedTriples} malformed triples dropped; parse + store + match ${importSeconds.toFixed(2)} s, triples step ${stepSeconds.toFixed(2)} s`,
      );
      assert.equal(summary.docs, 1890);
      assert.equal(summary.matched, 1890);
      assert.equal(summary.unmatched, 0);
      assert.ok(summary.triples > 17_000);
      const counts = run.counts.triples ?? {};
      assert.equal(counts['extracted'], 0);
      assert.equal(counts['importedChunks'], await kgrag.store.table('chunks').count(), 'every chunk takes its triples from the file');
      assert.equal(counts['openieMatched'], 1890);
    } finally {
      await kgrag.close();
    }
  });
});
