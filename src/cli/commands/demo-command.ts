import { readFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createKgrag } from '../../api/create-kgrag.js';
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

interface SampleQuestion {
  id: string;
  question: string;
  answers: string[];
  type: string;
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
