// A retrieval method written outside kgrag, loaded by `plugins: [./entity-bm25.js]` in kgrag.yaml: BM25 over the
// entity graph's names and descriptions, each matching entity voting for the passages it was extracted from, with
// its vote weighted by how rare the entity is across the corpus (an inverse document frequency its own index step
// computes once and stores, and every query reads back). Plain ES module JavaScript that imports only `kgrag`.
import { createHash } from 'node:crypto';
import { z } from 'kgrag';

const name = 'entity-bm25';
const weightsKey = `${name}:weights`;

/** The method's settings and query parameters, with their defaults (`methods.entity-bm25` in kgrag.yaml, `-p key=value`). */
const config = z
  .object({
    k: z.number().int().positive().max(1000).default(10).describe('Passages returned'),
    entities: z.number().int().positive().max(1000).default(20).describe('Entities taken from the BM25 search of names and descriptions'),
    idf: z.boolean().default(true).describe('Weight each entity by its inverse document frequency (from the index step); false counts every entity alike'),
  })
  .strict();

/** The question's words, lowercased, as the BM25 index of entity names and descriptions reads them. */
function terms(question) {
  return [...new Set(question.toLowerCase().match(/[\p{L}\p{N}]{3,}/gu) ?? [])];
}

/** The index step: one weight per entity, log(1 + passages / passages mentioning it), stored in the index's meta. */
function weightsStep(graphStep) {
  return {
    name: `${name}-weights`,
    version: 1,
    reads: ['chunk', graphStep],
    settings: () => ({}),
    async run(context) {
      const passages = await context.store.table('chunks').count();
      const entities = await context.store.table('entities').pick(['id', 'chunkIds']);
      const weights = Object.fromEntries(entities.map((entity) => [entity.id, Math.log(1 + passages / Math.max(1, entity.chunkIds.length))]));
      const text = JSON.stringify(Object.entries(weights).sort(([left], [right]) => left.localeCompare(right)));
      return {
        counts: { entities: entities.length },
        outputVersion: createHash('sha256').update(text).digest('hex'),
        write: (tx) => tx.setMeta(weightsKey, weights),
      };
    },
  };
}

/** @type {import('kgrag').AnyQueryMethod} */
export default {
  specificationVersion: 'kgrag-method-v1',
  name,
  description: 'BM25 over entity names and descriptions; each entity votes for its passages, weighted by its rarity',
  variants: [],
  config,
  ranking: { kind: 'native' },
  requires: ['chunk', `${name}-weights`],
  provides: [`${name}-weights`],
  indexSteps: async (build) => [weightsStep(build.graphStep)],

  async retrieve(context, question, params) {
    const hits = await context.trace.time('entity-search', () => context.store.searchText('entities', terms(question), params.entities), (found) => ({ hits: found.length }));
    const weights = params.idf ? ((await context.store.getMeta(weightsKey)) ?? {}) : {};
    const entities = await context.store.table('entities').get(hits.map((hit) => hit.id));
    const byId = new Map(entities.map((entity) => [entity.id, entity]));
    const scores = new Map();
    for (const hit of hits) {
      const entity = byId.get(hit.id);
      if (!entity) continue;
      const vote = hit.score * (params.idf ? (weights[hit.id] ?? 1) : 1);
      for (const chunkId of entity.chunkIds) scores.set(chunkId, (scores.get(chunkId) ?? 0) + vote);
    }
    const ranked = [...scores].sort((left, right) => right[1] - left[1] || left[0].localeCompare(right[0])).slice(0, params.k);
    return {
      chunks: await context.chunks(ranked.map(([id, score]) => ({ id, score, scores: { entityBm25: score } }))),
      entities: hits.flatMap((hit) => byId.get(hit.id) ?? []),
      state: undefined,
    };
  },
};
