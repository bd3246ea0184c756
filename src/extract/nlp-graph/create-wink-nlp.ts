import { createRequire } from 'node:module';
import type winkNLP from 'wink-nlp';
import type model from 'wink-eng-lite-web-model';

/** A wink-nlp instance. */
export type WinkNlp = ReturnType<typeof winkNLP>;

/** The wink-nlp annotations an instance runs. */
export type WinkPipe = Parameters<typeof winkNLP>[1];

const require = createRequire(import.meta.url);

/**
 * The English model with a `metaCER` that gives every instance the same custom-entity meta model, and a `core` that
 * copies one parsed core model instead of parsing it again ({@link learnableCopy}). The model's own
 * `metaCER` (wink-eng-lite-web-model 1.8.0, `load-cer-meta-model.js`) assigns `JSON.stringify(machines)` back to the
 * module's `machines`, so each instance after the first receives the JSON text encoded once more and its custom
 * entities never match. Every instance calls `metaCER`, whatever its pipe, so this is what lets kgrag create a fresh
 * instance whenever it needs one. Made on the first instance, not when a command loads this module. Process-wide on
 * purpose: it never changes once made, and holds nothing an instance learns (each instance has its own lexicon).
 */
let stableModel: typeof model | undefined;
/** The core model as the English model parses it, never given to an instance: each gets a {@link learnableCopy}. */
let pristineCore: CoreModel | undefined;

function stableEnglishModel(): typeof model {
  if (stableModel === undefined) {
    const english = require('wink-eng-lite-web-model') as typeof model;
    const metaModel = { machines: JSON.stringify(require('wink-eng-lite-web-model/dist/languages/cur/models/eng-cer-meta-model.json')), transformers: require('wink-eng-lite-web-model/dist/cer-transformers.js') as unknown };
    stableModel = Object.assign(Object.create(null) as typeof model, english, {
      metaCER: () => metaModel,
      core: () => learnableCopy(pristineCoreModel()),
    });
  }
  return stableModel;
}

function pristineCoreModel(): CoreModel {
  return (pristineCore ??= (require('wink-eng-lite-web-model') as { core(): CoreModel }).core());
}

/** The part of the English core model an instance reads; `features` holds what its lexicon learns. */
interface CoreModel {
  features: Record<string, CoreFeature>;
}

/** A feature of the core model: its values, and for those an instance may add to, their index by value. */
interface CoreFeature {
  list?: unknown[];
  hash?: Record<string, number>;
  index?: number;
}

/**
 * A core model for one instance that shares every part of `pristine` the instance only reads, and starts each
 * learnable feature (the lexicon's lexemes, prefixes, suffixes, shapes: the only values wink-nlp adds, in
 * `cache.js`'s `getFeaturesIndex`) from the pristine one: its own copy of the value list, and an index by value that
 * falls back to the pristine index through its prototype, so what an instance learns stays its own. The model's own
 * `core()` parses the whole model again (a JSON copy, the packed lexicon decoded, an index of 87,000 lexemes built):
 * most of the ~0.1 s an instance took, paid by every step that parses. The instance behaves as one made from the
 * model's own `core()`: the values and indices it starts from are the same, and it writes only to what is its own.
 */
function learnableCopy(pristine: CoreModel): CoreModel {
  const features = Object.create(null) as Record<string, CoreFeature>;
  for (const [name, feature] of Object.entries(pristine.features)) {
    features[name] =
      feature.hash === undefined || feature.list === undefined
        ? { ...feature }
        : { ...feature, list: feature.list.slice(), hash: Object.create(feature.hash) as Record<string, number> };
  }
  return { ...pristine, features };
}

/**
 * Loads wink-nlp and its English model now rather than at the first instance: a process that waits for work (the job
 * process of a watched workspace) takes the ~0.15 s of CPU before its update instead of during it.
 */
export function loadWinkNlp(): void {
  require('wink-nlp');
  stableEnglishModel();
  pristineCoreModel();
}

/**
 * A new wink-nlp instance of the English model. Each instance has its own lexicon, which grows by every word it has not
 * seen (about 20 bytes per character of never-repeating text): callers that parse a corpus create one per batch and
 * drop it, so the memory a parse holds is bounded by the batch, not by the corpus. Every instance starts from the same
 * parsed model (see {@link learnableCopy}): after the first, an instance takes a few milliseconds to make.
 */
export function createWinkNlp(pipe: WinkPipe): WinkNlp {
  // Required on the first instance, not with this module: a process that parses nothing (a query, a delete) does not
  // load wink-nlp and its model (~0.15 s of CPU).
  return (require('wink-nlp') as typeof winkNLP)(stableEnglishModel(), pipe);
}
