import { createRequire } from 'node:module';
import type winkNLP from 'wink-nlp';
import type model from 'wink-eng-lite-web-model';

/** A wink-nlp instance. */
export type WinkNlp = ReturnType<typeof winkNLP>;

/** The wink-nlp annotations an instance runs. */
export type WinkPipe = Parameters<typeof winkNLP>[1];

const require = createRequire(import.meta.url);

/**
 * The English model with a `metaCER` that gives every instance the same custom-entity meta model. The model's own
 * `metaCER` (wink-eng-lite-web-model 1.8.0, `load-cer-meta-model.js`) assigns `JSON.stringify(machines)` back to the
 * module's `machines`, so each instance after the first receives the JSON text encoded once more and its custom
 * entities never match. Every instance calls `metaCER`, whatever its pipe, so this is what lets kgrag create a fresh
 * instance whenever it needs one. Made on the first instance, not when a command loads this module. Process-wide on
 * purpose: it never changes once made, and holds nothing an instance learns (each instance has its own lexicon).
 */
let stableModel: typeof model | undefined;

function stableEnglishModel(): typeof model {
  if (stableModel === undefined) {
    const metaModel = { machines: JSON.stringify(require('wink-eng-lite-web-model/dist/languages/cur/models/eng-cer-meta-model.json')), transformers: require('wink-eng-lite-web-model/dist/cer-transformers.js') as unknown };
    stableModel = Object.assign(Object.create(null) as typeof model, require('wink-eng-lite-web-model') as typeof model, { metaCER: () => metaModel });
  }
  return stableModel;
}

/**
 * Loads wink-nlp and its English model now rather than at the first instance: a process that waits for work (the job
 * process of a watched workspace) takes the ~0.15 s of CPU before its update instead of during it.
 */
export function loadWinkNlp(): void {
  require('wink-nlp');
  stableEnglishModel();
}

/**
 * A new wink-nlp instance of the English model. Each instance has its own lexicon, which grows by every word it has not
 * seen (about 20 bytes per character of never-repeating text): callers that parse a corpus create one per batch and
 * drop it, so the memory a parse holds is bounded by the batch, not by the corpus.
 */
export function createWinkNlp(pipe: WinkPipe): WinkNlp {
  // Required on the first instance, not with this module: a process that parses nothing (a query, a delete) does not
  // load wink-nlp and its model (~0.15 s of CPU).
  return (require('wink-nlp') as typeof winkNLP)(stableEnglishModel(), pipe);
}
