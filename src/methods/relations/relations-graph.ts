import type { TripleIndex } from '../../extract/triples/triple-index.js';
import { csrFromTriplets, type CsrMatrix } from '../../math/csr-matrix.js';
import { transposeCsr } from '../../math/csr-operations.js';
import type { MethodContext } from '../query-method.js';
import type { SpaceScorer } from '../shared/space-vectors.js';
import { factVectors, phraseVectors, tripleIndex } from '../shared/triple-lookups.js';

/**
 * What `relations` needs of the index, in arrays, built once per index (`MethodContext.memo`): the
 * phrase–fact incidence matrix of Graph RAG with Milvus (milvus-io/bootcamp `tutorials/quickstart/graph_rag_with_milvus.ipynb` step 3) and the
 * phrase and fact vectors in memory for exact scoring, rows in {@link TripleIndex} order.
 */
export interface RelationsGraph {
  triples: TripleIndex;
  /** M: phrases × facts, M[p, f] = 1 when phrase p is the subject or the object of fact f. */
  incidence: CsrMatrix;
  /** Mᵀ: facts × phrases. */
  incidenceTransposed: CsrMatrix;
  /** Phrase vectors (row = phrase index; a phrase without a vector has a zero row), or undefined while the space is empty. */
  phraseVectors: SpaceScorer | undefined;
  /** Fact vectors (row = fact index; zero rows for facts without one), or undefined while the space is empty. */
  factVectors: SpaceScorer | undefined;
}

/** M from the fact endpoints: one entry per (endpoint, fact); a fact whose subject is its object has one entry. */
export function incidenceMatrix(phrases: number, factSubject: Int32Array, factObject: Int32Array): CsrMatrix {
  const facts = factSubject.length;
  const rows: number[] = [];
  const columns: number[] = [];
  for (let fact = 0; fact < facts; fact++) {
    const subject = factSubject[fact] as number;
    const object = factObject[fact] as number;
    rows.push(subject);
    columns.push(fact);
    if (object !== subject) {
      rows.push(object);
      columns.push(fact);
    }
  }
  return csrFromTriplets(phrases, facts, rows, columns, new Float64Array(rows.length).fill(1));
}

/** Loads {@link RelationsGraph} once per index. */
export function relationsGraph(context: MethodContext): Promise<RelationsGraph> {
  return context.memo('relations:graph', async () => {
    const triples = await tripleIndex(context);
    const incidence = incidenceMatrix(triples.phraseTexts.length, triples.factSubject, triples.factObject);
    const [phrases, facts] = await Promise.all([phraseVectors(context), factVectors(context)]);
    return { triples, incidence, incidenceTransposed: transposeCsr(incidence), phraseVectors: phrases, factVectors: facts };
  });
}
