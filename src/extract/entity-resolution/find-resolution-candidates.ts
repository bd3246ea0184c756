import { createDenseMatrix, dot } from '../../math/dense-vectors.js';
import { exactKnnGraphSync } from '../../math/exact-knn-graph.js';
import type { KnnGraph } from '../../math/knn-graph.js';
import { nnDescent } from '../../math/nn-descent.js';
import { entityTypesCompatible, normalizeEntityType } from './entity-type-compatibility.js';
import { gendersConflict, nameSimilarity, nearIdenticalNames, prepareName } from './name-similarity.js';
import type { PreparedName } from './name-similarity.js';
import type { ResolutionEntity } from './resolution-types.js';
import { UnionFind } from './union-find.js';

/** Options of {@link findResolutionCandidates}. */
export interface ResolutionCandidateOptions {
  /** {@link nameSimilarity} that makes a pair a candidate (config `resolution.nameSimilarity`, default 0.75). Must be above 0. */
  nameSimilarity: number;
  /** Cosine that makes a pair a candidate whatever the names (config `resolution.embeddingSimilarity`, default 0.9). */
  embeddingSimilarity: number;
  /** Largest group returned (config `resolution.maxGroupSize`, default 10). */
  maxGroupSize: number;
  /**
   * Blocking keys shared by more entities than this are not used to pair them (a word like "university"
   * would otherwise pair thousands). Such pairs are still found through any rarer key they share. @default 200
   */
  maxBlockSize?: number;
  /** Compare all pairs instead of blocking: O(n²), the reference the blocked search is tested against. @default false */
  exhaustive?: boolean;
}

/** Defaults of the optional {@link ResolutionCandidateOptions}. */
export const resolutionCandidateDefaults = {
  maxBlockSize: 200,
  /** Names compared per entity: the title and the first aliases. */
  maxNamesPerEntity: 8,
  /** Above this many vectors, the cosine-only neighbours come from NN-descent instead of the exact kNN graph. */
  exactKnnLimit: 10_000,
} as const;

interface Prepared {
  names: PreparedName[];
  type: string;
  vector: Float32Array | null;
}

interface CandidateEdge {
  left: number;
  right: number;
  score: number;
}

/**
 * Groups of entities that may be one thing (SPEC §4.3, second stage; GraphRAG has no resolution —
 * microsoft/graphrag#401, #847 — and LightRAG only a manual merge). Ids are grouped; nothing is merged here:
 * `confirmMerges` asks the LLM, `mergesWithoutLlm` applies only safe rules.
 *
 * **Candidate pair** (title and aliases of both compared, best pair of names counts):
 * - never when the names' honorifics conflict ("Mr. Smith" / "Mrs. Smith"), nor across incompatible types
 *   (`entityTypesCompatible`: person vs organization vs place vs event) unless the names are near-identical
 *   (`nearIdenticalNames`: equal compact forms, or Jaro–Winkler ≥ 0.97 on 6+ characters — extraction often
 *   types one name two ways);
 * - **by name**: `nameSimilarity` ≥ `options.nameSimilarity`, whatever the cosine;
 * - **by meaning**: cosine ≥ `options.embeddingSimilarity`, for aliases with unrelated spellings ("Miriam
 *   Marle" / "Miriam Quayle"); found through each entity's `maxGroupSize` nearest neighbours (exact kNN,
 *   NN-descent above 10,000 vectors).
 *
 * Either suffices because candidates are for recall: the LLM (or `mergesWithoutLlm`'s strict rules) decides.
 * Requiring both would tie recall to the embedder — descriptions of one person written from two documents
 * reach cosine 0.9 with a large API embedder but 0.3–0.5 with the hashed `local` one, which found no alias
 * of the sample corpus that way. The cosine still orders the joins.
 *
 * Vectors are unit "title: description" embeddings, so cosine is their dot product; vectors whose length
 * differs from the first one are treated as missing.
 *
 * **Blocking**: an inverted index over `PreparedName.keys` (name words, 3-letter word prefixes, the 4-letter
 * compact prefix) yields the pairs to score, plus one-word names paired with the names they are the acronym
 * of. Every name score above 0 implies one of these, so the result equals the all-pairs scan
 * (`exhaustive: true`) except for keys (or acronym sides) shared by more than `maxBlockSize` entities.
 *
 * **Groups**: candidate pairs are joined strongest first (score: mean of name similarity and cosine, or
 * the name similarity alone without vectors; ties by position). A join is skipped when the group would
 * exceed `maxGroupSize` — so large chains split deterministically at their weakest links — or when it would
 * put two entities that may not be one (conflicting honorifics, incompatible types) in one group, as a chain
 * through a vague name ("Watson" → "Dr. Watson", "Watson" → "Watson & Co") otherwise would.
 * Members are listed in input order, groups by their first member.
 */
export function findResolutionCandidates(
  entities: readonly ResolutionEntity[],
  vectors: ReadonlyMap<string, Float32Array>,
  options: ResolutionCandidateOptions,
): string[][] {
  const dimension = firstDimension(entities, vectors);
  const prepared: Prepared[] = entities.map((entity) => {
    const vector = vectors.get(entity.id);
    return {
      names: [entity.title, ...entity.aliases].slice(0, resolutionCandidateDefaults.maxNamesPerEntity).map(prepareName),
      type: normalizeEntityType(entity.type),
      vector: vector !== undefined && vector.length === dimension ? vector : null,
    };
  });

  const score = (left: number, right: number): number => {
    const a = prepared[left] as Prepared;
    const b = prepared[right] as Prepared;
    if (!mayBeOne(a, b)) return -1;
    let name = 0;
    for (const nameA of a.names) {
      for (const nameB of b.names) if (name < 1) name = Math.max(name, nameSimilarity(nameA, nameB));
    }
    const cosine = a.vector !== null && b.vector !== null ? dot(a.vector, b.vector) : null;
    if (name < options.nameSimilarity && (cosine === null || cosine < options.embeddingSimilarity)) return -1;
    return cosine === null ? name : (name + cosine) / 2;
  };

  const edges: CandidateEdge[] = [];
  const consider = (left: number, right: number): void => {
    const value = score(left, right);
    if (value >= 0) edges.push({ left, right, score: value });
  };
  if (options.exhaustive === true) {
    for (let left = 0; left < prepared.length; left++) for (let right = left + 1; right < prepared.length; right++) consider(left, right);
  } else {
    for (const pair of blockedPairs(prepared, options, dimension)) {
      consider(Math.floor(pair / prepared.length), pair % prepared.length);
    }
  }
  return groupEdges(edges, entities, prepared, options.maxGroupSize);
}

/**
 * Whether two entities may be one at all: honorifics must not conflict, and types must be compatible unless
 * some pair of their names is near-identical.
 */
function mayBeOne(a: Prepared, b: Prepared): boolean {
  if (gendersConflict(a.names[0] as PreparedName, b.names[0] as PreparedName)) return false;
  if (entityTypesCompatible(a.type, b.type)) return true;
  return a.names.some((nameA) => b.names.some((nameB) => nearIdenticalNames(nameA, nameB)));
}

function firstDimension(entities: readonly ResolutionEntity[], vectors: ReadonlyMap<string, Float32Array>): number {
  for (const entity of entities) {
    const vector = vectors.get(entity.id);
    if (vector !== undefined && vector.length > 0) return vector.length;
  }
  return 0;
}


/** Pairs `left · n + right` (left < right) sharing a usable blocking key or close in embedding space. */
function blockedPairs(prepared: readonly Prepared[], options: ResolutionCandidateOptions, dimension: number): Set<number> {
  const n = prepared.length;
  const maxBlockSize = options.maxBlockSize ?? resolutionCandidateDefaults.maxBlockSize;
  const postings = new Map<string, number[]>();
  prepared.forEach((entry, index) => {
    for (const key of new Set(entry.names.flatMap((name) => name.keys))) push(postings, key, index);
  });
  const pairs = new Set<number>();
  const add = (a: number, b: number): void => {
    if (a !== b) pairs.add(Math.min(a, b) * n + Math.max(a, b));
  };
  for (const list of postings.values()) {
    if (list.length < 2 || list.length > maxBlockSize) continue;
    for (let i = 0; i < list.length; i++) {
      for (let j = i + 1; j < list.length; j++) add(list[i] as number, list[j] as number);
    }
  }
  // Acronyms pair one-word names with the multi-word names they abbreviate, never multi-word names with
  // each other: "John Holmes" and "Jane Hudson" share the initials "jh", which says nothing.
  const oneWordNames = new Map<string, number[]>();
  const acronyms = new Map<string, number[]>();
  prepared.forEach((entry, index) => {
    for (const name of entry.names) {
      if (name.words.length === 1 && (name.words[0] as string).length >= 2) push(oneWordNames, name.words[0] as string, index);
      if (name.acronym !== null && name.acronym.length >= 2) push(acronyms, name.acronym, index);
    }
  });
  for (const [word, singles] of oneWordNames) {
    const multis = acronyms.get(word);
    if (multis === undefined || singles.length > maxBlockSize || multis.length > maxBlockSize) continue;
    for (const single of singles) for (const multi of multis) add(single, multi);
  }

  const withVectors = prepared.flatMap((entry, index) => (entry.vector === null ? [] : [index]));
  const k = Math.min(options.maxGroupSize, withVectors.length - 1);
  if (k >= 1 && dimension > 0) {
    const matrix = createDenseMatrix(withVectors.length, dimension);
    withVectors.forEach((index, row) => matrix.data.set(prepared[index]?.vector as Float32Array, row * dimension));
    const graph: KnnGraph = withVectors.length <= resolutionCandidateDefaults.exactKnnLimit ? exactKnnGraphSync(matrix, k) : nnDescent(matrix, k);
    for (let row = 0; row < graph.n; row++) {
      for (let slot = 0; slot < graph.k; slot++) {
        const neighbour = graph.indices[row * graph.k + slot] as number;
        if (neighbour < 0 || (graph.similarities[row * graph.k + slot] as number) < options.embeddingSimilarity - 1e-6) continue;
        add(withVectors[row] as number, withVectors[neighbour] as number);
      }
    }
  }
  return pairs;
}

function push(lists: Map<string, number[]>, key: string, index: number): void {
  const list = lists.get(key);
  if (list === undefined) lists.set(key, [index]);
  else if (list[list.length - 1] !== index) list.push(index);
}

function groupEdges(edges: CandidateEdge[], entities: readonly ResolutionEntity[], prepared: readonly Prepared[], maxGroupSize: number): string[][] {
  edges.sort((x, y) => y.score - x.score || x.left - y.left || x.right - y.right);
  const sets = new UnionFind(entities.length);
  const membersOf = new Map<number, number[]>();
  const members = (root: number): number[] => membersOf.get(root) ?? [root];
  for (const edge of edges) {
    const rootLeft = sets.find(edge.left);
    const rootRight = sets.find(edge.right);
    if (rootLeft === rootRight || sets.size(rootLeft) + sets.size(rootRight) > maxGroupSize) continue;
    const left = members(rootLeft);
    const right = members(rootRight);
    // Cannot-link: a chain through a vague name ("Watson") must not join a person to a firm, or Mr. to Mrs.
    if (!left.every((x) => right.every((y) => mayBeOne(prepared[x] as Prepared, prepared[y] as Prepared)))) continue;
    sets.union(rootLeft, rootRight);
    membersOf.delete(rootLeft);
    membersOf.delete(rootRight);
    membersOf.set(sets.find(rootLeft), [...left, ...right]);
  }
  const groups = new Map<number, number[]>();
  for (const edge of edges) {
    for (const index of [edge.left, edge.right]) {
      const root = sets.find(index);
      if (sets.size(root) < 2) continue;
      let members = groups.get(root);
      if (!members) groups.set(root, (members = []));
      if (!members.includes(index)) members.push(index);
    }
  }
  return [...groups.values()]
    .map((members) => members.sort((a, b) => a - b))
    .sort((a, b) => (a[0] as number) - (b[0] as number))
    .map((members) => members.map((index) => entities[index]?.id as string));
}
