import { KgragError } from '../../core/errors.js';
import { decodePassageGraphIndex } from './build/passage-graph-codec.js';
import type { PassageEdgeKind, PassageGraph } from './build/passage-graph.js';
import { passageGraphBlobKey } from './build/passage-graph-step.js';
import type { TermCountMatrix } from '../../text/term-count-matrix.js';
import { TfidfRanker } from '../../text/tfidf-ranker.js';
import type { MethodContext } from '../query-method.js';
import { positionsOf } from '../../core/positions-of.js';

/** The passage graph, term counts and TF-IDF ranker of an index, loaded once and shared by every KGP query. */
export interface KgpLookups {
  /** Chunk id of each passage number. */
  chunkIds: readonly string[];
  /** Passage number of each chunk id. */
  passageOf: ReadonlyMap<string, number>;
  graph: PassageGraph;
  /** The kinds of links the index built (`methods.kgp.indexGraphs`). */
  kinds: readonly PassageEdgeKind[];
  terms: TermCountMatrix;
  /** TF-IDF over the passages' term counts (the corpus-wide fit is built on first use). */
  ranker: TfidfRanker;
}

/** Loads {@link KgpLookups} from the `passage-graph` blob once per index. */
export function kgpLookups(context: MethodContext): Promise<KgpLookups> {
  return context.memo('kgp:passage-graph', async () => {
    const bytes = await context.store.getBlob(passageGraphBlobKey);
    if (!bytes) {
      throw new KgragError('the index has no passage graph, which kgp traverses', {
        code: 'KGP_NO_PASSAGE_GRAPH',
        category: 'input',
        hint: 'run `kgrag index` again: the passage-graph step runs after the others and resumes where the last run stopped',
      });
    }
    let index;
    try {
      index = decodePassageGraphIndex(bytes);
    } catch (error) {
      throw new KgragError('the stored passage graph cannot be read', {
        code: 'KGP_BAD_PASSAGE_GRAPH',
        category: 'store',
        hint: 'rebuild the index: delete the workspace database (store.path) and run `kgrag index` again',
        cause: error,
      });
    }
    const ranker = new TfidfRanker(index.terms);
    return {
      chunkIds: index.chunkIds,
      passageOf: positionsOf(index.chunkIds),
      graph: index.graph,
      kinds: index.kinds,
      terms: index.terms,
      ranker,
    };
  });
}
