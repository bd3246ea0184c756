import { readFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createKgrag } from '../../api/create-kgrag.js';
import type { Kgrag } from '../../api/kgrag.js';
import { type CliIo, writeLine } from '../cli-io.js';
import { formatQueryResult } from '../format-result.js';
import { llmPriceOf } from '../llm-price-of.js';
import { createProgressRenderer } from '../progress-renderer.js';

/** The bundled sample corpus and its questions (package root, same depth from src/ and dist/). */
export const sampleCorpusPath = fileURLToPath(new URL('../../../examples/sample-corpus', import.meta.url));
export const sampleQuestionsPath = fileURLToPath(new URL('../../../examples/sample-questions.jsonl', import.meta.url));

/** Questions the demo asks: one of each kind of the sample set. */
const demoQuestionIds = ['q27', 'q01', 'q11', 'q14', 'q25', 'q21', 'q34', 'q29'];
const demoMethods = ['basic:hybrid'];
/** A question about the whole corpus, which passages alone answer poorly: `global` answers it from community reports. */
const themesQuestion = 'What are the main themes in the history of Kestermouth?';
const themesMethods = ['global', 'basic:hybrid'];

/**
 * Where graphs help: a bridge question (the boatyard's founder is named in one document, his death in another), the
 * passages BM25 and two LLM-free graph methods rank for it, then each method's recall over every multi-hop and
 * comparison question of the sample, so that the one example is read against the whole set.
 */
const multiHopQuestionId = 'q02';
const multiHopMethods = ['basic:bm25', 'ppr', 'kgp'];
const multiHopTypes = new Set(['multi-hop', 'comparison']);
const recallDepth = 5;

interface SampleQuestion {
  id: string;
  question: string;
  answers: string[];
  type: string;
  gold_passages: string[];
}

/** A gold passage is its document's title line and text: the titles name the documents a question needs. */
const goldTitles = (question: SampleQuestion): Set<string> => new Set(question.gold_passages.map((passage) => passage.split('\n')[0] ?? ''));

/** The distinct document titles of the first `depth` passages a method ranks for the question. */
async function rankedTitles(kgrag: Kgrag, question: string, method: string, depth: number): Promise<{ titles: string[]; note: string | undefined }> {
  const result = await kgrag.retrieve(question, { method });
  const titles = result.retrieval.chunks.slice(0, depth).map((chunk) => chunk.documentTitle);
  return { titles, note: result.ranking.kind === 'native' ? undefined : `${result.ranking.kind}: ${result.ranking.note ?? ''}` };
}

/** The bridge question side by side, then document recall@5 of each method over the sample's multi-hop questions. */
async function showMultiHop(kgrag: Kgrag, questions: readonly SampleQuestion[], io: CliIo): Promise<void> {
  const example = questions.find((question) => question.id === multiHopQuestionId);
  if (example) {
    const gold = goldTitles(example);
    writeLine(io.stdout, `\n━━ ${example.id} (multi-hop, ${gold.size} documents) ${example.question}`);
    writeLine(io.stdout, `documents it needs: ${[...gold].join('; ')} — expected answer: ${example.answers[0]}`);
    for (const method of multiHopMethods) {
      const { titles, note } = await rankedTitles(kgrag, example.question, method, recallDepth);
      writeLine(io.stdout, `${method}${note ? ` (${note})` : ''}, top ${recallDepth} passages:`);
      titles.forEach((title, index) => writeLine(io.stdout, `  ${index + 1}. ${gold.has(title) ? '✓' : ' '} ${title}`));
    }
  }
  const multiHop = questions.filter((question) => multiHopTypes.has(question.type));
  const recalls: string[] = [];
  for (const method of multiHopMethods) {
    let found = 0;
    let needed = 0;
    for (const question of multiHop) {
      const gold = goldTitles(question);
      const { titles } = await rankedTitles(kgrag, question.question, method, recallDepth);
      found += [...gold].filter((title) => titles.includes(title)).length;
      needed += gold.size;
    }
    recalls.push(`${method} ${((100 * found) / Math.max(1, needed)).toFixed(1)}`);
  }
  writeLine(io.stdout, `\nAll ${multiHop.length} multi-hop and comparison questions of the sample: share of the documents they need found among the top ${recallDepth} passages — ${recalls.join(', ')} (kgrag eval --dataset sample measures passage recall)`);
}

/**
 * `kgrag demo`: indexes the sample corpus in a temporary workspace with the embedded defaults (no LLM,
 * no network, no key — whatever the environment says) and answers a few questions with citations, then
 * one question about the whole corpus with `global` (community reports) and with `basic` (passages).
 */
export async function demoCommand(options: { keep?: boolean }, io: CliIo): Promise<void> {
  const workspace = await mkdtemp(join(tmpdir(), 'kgrag-demo-'));
  const kgrag = await createKgrag({
    workspace,
    env: {},
    config: { llm: { provider: 'none' }, embeddings: { provider: 'local' } },
  });
  try {
    writeLine(io.stderr, `indexing the sample corpus (${sampleCorpusPath}) into ${workspace}`);
    const priced = llmPriceOf(kgrag).price !== undefined;
    const renderer = createProgressRenderer(io.stderr, { priced: () => priced });
    await kgrag.index([sampleCorpusPath], { onEvent: (event) => renderer.onEvent(event) });
    renderer.stop();
    const questions = (await readFile(sampleQuestionsPath, 'utf8'))
      .split('\n')
      .filter((line) => line.trim().length > 0)
      .map((line) => JSON.parse(line) as SampleQuestion);
    const chosen = demoQuestionIds.map((id) => questions.find((question) => question.id === id)).filter((question) => question !== undefined);
    for (const question of chosen) {
      for (const method of demoMethods) {
        const result = await kgrag.query(question.question, { method });
        writeLine(io.stdout, `\n━━ ${question.id} (${question.type}) ${question.question}`);
        writeLine(io.stdout, formatQueryResult(result, { priced }));
        writeLine(io.stdout, `expected answer: ${question.answers[0]}`);
      }
    }
    await showMultiHop(kgrag, questions, io);
    for (const method of themesMethods) {
      const result = await kgrag.query(themesQuestion, { method });
      writeLine(io.stdout, `\n━━ themes (global question, ${method}) ${themesQuestion}`);
      writeLine(io.stdout, formatQueryResult(result, { priced }));
    }
    writeLine(io.stdout, `\nThese answers are extractive (quoted evidence): configure an LLM (README) for generated answers.`);
  } finally {
    await kgrag.close();
    if (options.keep) writeLine(io.stderr, `workspace kept at ${workspace}; explore it in the browser: kgrag -w ${workspace} serve, then open http://127.0.0.1:8080/`);
    else await rm(workspace, { recursive: true, force: true });
  }
}
