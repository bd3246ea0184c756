import { runsCompiled, startModuleWorker } from '../../core/start-module-worker.js';

type Extractor = typeof import('../../extract/nlp-graph/noun-phrase-extractor.js');

/*
 * Process-wide on purpose: `prepare` runs before any workspace (or value that could own this) exists, and the point is
 * to load the English model once per process. Bounded: one extractor (which replaces its own wink-nlp instance past a
 * character budget) and at most one prefetched question, since only the first question of a process is prefetched.
 */
let extractor: Extractor | undefined;
let firstCallDone = false;
const prefetched = new Map<string, Promise<string[]>>();

async function loadExtractor(): Promise<Extractor> {
  extractor ??= await import('../../extract/nlp-graph/noun-phrase-extractor.js');
  return extractor;
}

/** Reads this thread's questions: its wink-nlp instance takes most of a second to make, and bounds its own memory. */
let nounPhrases: ReturnType<Extractor['createNounPhraseExtractor']> | undefined;

/** The surfaces of a question's noun-phrase mentions, in the calling thread. */
async function inThisThread(question: string): Promise<string[]> {
  nounPhrases ??= (await loadExtractor()).createNounPhraseExtractor();
  return nounPhrases.extract(question).mentions.map((mention) => mention.surface);
}

/** The same in a worker thread, which exits after answering. */
function inWorker(question: string): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const worker = startModuleWorker(import.meta.url, 'question-noun-phrases-worker');
    worker.once('message', (surfaces: string[]) => {
      resolve(surfaces);
      void worker.terminate();
    });
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`the noun-phrase worker exited with code ${code} before answering`)));
    worker.postMessage(question);
  });
}

/**
 * The noun phrases of a question (GraphRAG fast mode's extractor: proper-noun spans and multi-word noun phrases), as
 * written. Loading the extractor — wink-nlp's English model — takes a third of a second, a quarter of a cold `ppr`
 * query; so the first question of a process that has not loaded it yet is answered by a worker thread, which loads
 * it on the other core while this thread reads the index. Later questions load it here (a long-lived process keeps
 * it). A failed worker falls back to this thread. With `thread: 'this'` (and under tsx, where a worker's start-up
 * costs more than it saves) the worker is never used.
 */
export async function questionNounPhrases(question: string, options: { thread?: 'this' | 'worker' } = {}): Promise<string[]> {
  const early = prefetched.get(question);
  if (early !== undefined && options.thread === undefined) {
    prefetched.delete(question);
    return early;
  }
  const useWorker = options.thread === 'worker' || (options.thread === undefined && extractor === undefined && !firstCallDone && runsCompiled(import.meta.url));
  firstCallDone = true;
  if (!useWorker) return inThisThread(question);
  try {
    return await inWorker(question);
  } catch {
    return inThisThread(question);
  }
}

/**
 * Starts finding a question's noun phrases in a worker thread now, before the caller opens the index (the command
 * line does when it knows the method), so that {@link questionNounPhrases} finds them ready. Only in a process that
 * has not loaded the extractor and runs compiled; otherwise nothing happens.
 */
export function prefetchQuestionNounPhrases(question: string): void {
  if (firstCallDone || extractor !== undefined || prefetched.has(question) || !runsCompiled(import.meta.url)) return;
  firstCallDone = true;
  const surfaces = inWorker(question).catch(() => inThisThread(question));
  surfaces.catch(() => undefined);
  prefetched.set(question, surfaces);
}
