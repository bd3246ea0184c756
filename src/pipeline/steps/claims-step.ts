import { KgragError } from '../../core/errors.js';
import { contentId, sha256 } from '../../core/ids.js';
import { mapWithConcurrency } from '../../core/map-with-concurrency.js';
import type { ClaimRecord, ExtractionRecord } from '../../core/types.js';
import { extractClaimsFromText } from '../../extract/claims/extract-claims-from-text.js';
import { extractClaimsPrompts } from '../../extract/claims/extract-claims-prompt.js';
import { normalizeEntityName } from '../../extract/entity-resolution/normalize-entity-name.js';
import type { ExtractedClaim } from '../../extract/llm-graph/extracted-graph.js';
import { LlmCallError } from '../../providers/llm/llm-call-error.js';
import type { LanguageModel } from '../../providers/llm/language-model.js';
import { withCallCount } from '../../providers/llm/with-call-count.js';
import { prefetchOwnedChunks } from '../prefetch-owned-chunks.js';
import type { PipelineStep, StepContext } from '../pipeline-step.js';
import { storedExtractions } from './stored-extractions.js';
import { promptsHash } from './llm-extract-step.js';

const claimsExtractor = 'llm-claims';

function claimsModel(context: StepContext): LanguageModel {
  if (context.llm) return context.llm;
  throw new KgragError('claims need an LLM', { code: 'INDEX_MODE_NEEDS_LLM', category: 'config', hint: 'configure an LLM or set extract.claims.enabled: false' });
}

/** The chunks of the index, the claim extractions of them that can be reused, and those still to extract. */
async function claimsWork(context: StepContext, llm: LanguageModel) {
  const { store, config } = context;
  const format = config.extract.llm.format;
  const variant = extractClaimsPrompts[format];
  const hash = promptsHash(context.prompts, [variant.extract, variant.continue, extractClaimsPrompts.loop], { ...config.extract.claims, types: config.extract.llm.entityTypes, format, model: llm.modelId });
  const chunks = await store.table('chunks').pick(['id', 'text']);
  const { reusable: stored, staleIds } = await storedExtractions(store, claimsExtractor, hash, new Set(chunks.map((chunk) => chunk.id)));
  const pending = chunks.filter((chunk) => !stored.has(chunk.id));
  return { hash, chunks, stored, staleIds, pending };
}

/** A chunk's claim conversation (its first turn and gleanings) and the record `run` stores of it; `calls` were made one after another. */
async function extractChunkClaims(context: StepContext, llm: LanguageModel, hash: string, chunk: { id: string; text: string }): Promise<{ record: ExtractionRecord; calls: number }> {
  const { config } = context;
  let claims: ExtractedClaim[] = [];
  let raw: string[] = [];
  let problems: string[] = [];
  const counted = withCallCount(llm);
  try {
    const result = await extractClaimsFromText(counted.model, {
      text: chunk.text,
      entitySpecs: config.extract.llm.entityTypes,
      claimDescription: config.extract.claims.description,
      maxGleanings: config.extract.claims.maxGleanings,
      format: config.extract.llm.format,
      prompts: context.prompts,
      sources: [sha256(chunk.text)],
      ...(context.signal === undefined ? {} : { abortSignal: context.signal }),
    });
    ({ claims, problems } = result);
    raw = result.turns;
  } catch (error) {
    if (!(LlmCallError.isInstance(error) && error.code === 'LLM_INVALID_OUTPUT')) throw error;
    problems = [error.message];
  }
  const record: ExtractionRecord = {
    id: contentId('extraction', chunk.id, claimsExtractor, hash),
    chunkId: chunk.id,
    extractor: claimsExtractor,
    model: llm.modelId,
    promptHash: hash,
    raw: JSON.stringify(raw),
    parsed: { claims, problems },
  };
  return { record, calls: counted.calls() };
}

const openConversations = (context: StepContext): number => Math.max(1, context.config.llm.concurrency * 2);

/**
 * GraphRAG's claim (covariate) extraction, opt-in: per chunk, claims about entities of the configured
 * types, with gleanings whose output is kept (GraphRAG pays for them and throws them away). Subjects and
 * objects are linked to the resolved entities by name where possible; replies are stored in `extractions`.
 *
 * Prefetch: an item is a chunk without a stored claim extraction of the current prompts and settings, owned by its
 * chunk id; one round (the calls do not read the entities, only the linking after them does).
 */
export const claimsStep: PipelineStep = {
  name: 'claims',
  version: 1,
  reads: ['summarize'],
  settings: (config, environment) => ({
    claims: config.extract.claims,
    types: config.extract.llm.entityTypes,
    format: config.extract.llm.format,
    model: environment.llmModel,
    prompts: promptsHash(environment.prompts, [extractClaimsPrompts[config.extract.llm.format].extract, extractClaimsPrompts[config.extract.llm.format].continue, extractClaimsPrompts.loop], null),
  }),

  async prefetch(context, shard) {
    const llm = claimsModel(context);
    if ((shard.round ?? 0) !== 0) return { items: 0, calls: 0 };
    const { hash, pending } = await claimsWork(context, llm);
    return prefetchOwnedChunks(context, shard, llm, pending, openConversations(context), (model, chunk) => extractChunkClaims(context, model, hash, chunk));
  },

  async run(context) {
    const { store } = context;
    const llm = claimsModel(context);
    const { hash, chunks, stored, staleIds, pending } = await claimsWork(context, llm);
    let done = chunks.length - pending.length;
    let criticalPath = 0;
    const created = await mapWithConcurrency(
      pending,
      openConversations(context),
      async (chunk): Promise<ExtractionRecord> => {
        const { record, calls } = await extractChunkClaims(context, llm, hash, chunk);
        criticalPath = Math.max(criticalPath, calls);
        done++;
        context.progress(done, chunks.length, 'chunks');
        return record;
      },
      context.signal,
    );

    const entityOfName = new Map<string, string>();
    for (const entity of await store.table('entities').pick(['id', 'title', 'aliases'])) {
      for (const name of [entity.title, ...entity.aliases]) if (!entityOfName.has(normalizeEntityName(name))) entityOfName.set(normalizeEntityName(name), entity.id);
    }
    const link = (name: string): string => entityOfName.get(normalizeEntityName(name)) ?? name;
    const byChunk = new Map([...stored.values(), ...created].map((record) => [record.chunkId, record]));
    const records = new Map<string, ClaimRecord>();
    for (const chunk of chunks) {
      const parsed = byChunk.get(chunk.id)?.parsed as { claims: ExtractedClaim[] } | undefined;
      for (const claim of parsed?.claims ?? []) {
        const id = contentId('claim', chunk.id, claim.subject, claim.type, claim.description);
        records.set(id, {
          id,
          subject: link(claim.subject),
          object: claim.object === null ? null : link(claim.object),
          type: claim.type,
          status: claim.status,
          startDate: claim.startDate,
          endDate: claim.endDate,
          description: claim.description,
          sourceText: claim.sourceText,
          chunkId: chunk.id,
        });
      }
    }
    const claims = [...records.values()];
    return {
      counts: { chunks: chunks.length, extracted: created.length, reused: stored.size, claims: claims.length, llmCriticalPath: criticalPath },
      outputVersion: contentId('claims', claims.map((claim) => `${claim.id}:${claim.subject}`)),
      async write(tx) {
        await tx.table('extractions').deleteWhere('id', staleIds);
        await tx.table('extractions').upsert(created);
        await tx.table('claims').clear();
        await tx.table('claims').upsert(claims);
      },
    };
  },
};
