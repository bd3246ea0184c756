import { z } from 'zod';
import { mapWithConcurrency } from '../../core/map-with-concurrency.js';
import { builtInPrompts, fillPrompt } from '../../core/prompt-library.js';
import type { PromptLibrary } from '../../core/prompt-library.js';
import { generateObject } from '../../providers/llm/generate-object.js';
import type { LanguageModel } from '../../providers/llm/language-model.js';
import { LlmCallError } from '../../providers/llm/llm-call-error.js';
import { shortenText } from '../../text/shorten-text.js';
import { chooseCanonical } from './choose-canonical.js';
import { resolutionGroupKey } from './resolution-group-key.js';
import { resolveEntitiesPrompt } from './resolve-entities-prompt.js';
import type { EntityMerge, ResolutionEntity } from './resolution-types.js';

/** Options of {@link confirmMerges}. */
export interface ConfirmMergesOptions {
  /** Workspace prompt overrides. @default the built-in prompts */
  prompts?: PromptLibrary;
  abortSignal?: AbortSignal;
  /** Groups confirmed at once. @default 8 */
  concurrency?: number;
  /** Characters of each description shown to the model. @default 300 */
  maxDescriptionChars?: number;
  /**
   * Content hashes of the texts a group's entities were extracted from (`ChatRequest.sources`), to tag the cached
   * reply of its call. @default none
   */
  sourcesOf?: (entityIds: readonly string[]) => readonly string[];
  /**
   * Keys (`resolutionGroupKey`) of the groups an earlier run could not decide: their calls bypass the LLM cache, whose
   * replies to them were unusable, and ask the model again. @default none
   */
  askAgain?: ReadonlySet<string>;
}

/** Outcome of {@link confirmMerges}. */
export interface ConfirmMergesResult {
  merges: EntityMerge[];
  /**
   * Keys (`resolutionGroupKey`) of the groups whose reply was still invalid after the repair turn, in group order:
   * they merge nothing, and are not decided — a later run should ask again (`askAgain`).
   */
  undecided: string[];
  /** Ids in replies that were not records of the group, repeated a record already clustered, or named a canonical outside its cluster. */
  ignoredIds: number;
  /** Model calls made (a repaired reply costs two). */
  calls: number;
  /** Calls of the group that made the most: a repair turn waits for the reply it repairs. */
  criticalPath: number;
}

/** The reply: clusters of record numbers. Numbers may come back as strings; extra keys are dropped. */
export const entityClustersSchema = z.object({
  clusters: z.array(
    z.object({
      ids: z.array(z.union([z.number(), z.string()])),
      canonical: z.union([z.number(), z.string()]).optional(),
    }),
  ),
});

interface GroupOutcome {
  merges: EntityMerge[];
  /** The group's key when it could not be decided. */
  undecided: string | undefined;
  ignoredIds: number;
  calls: number;
}

/**
 * Asks the LLM which members of each candidate group (from `findResolutionCandidates`) are the same thing:
 * one structured call per group (`purpose: 'resolve-entities'`), several clusters per group allowed, each with
 * its canonical member. The records are numbered 1…n in the prompt and the reply's numbers are checked
 * against the group: unknown numbers, records already placed in an earlier cluster, and a canonical outside
 * its cluster are ignored and counted (a missing or ignored canonical falls back to `chooseCanonical`).
 * A reply still invalid after `generateObject`'s repair turn merges nothing for that group, which is listed in
 * `undecided`; provider errors (authentication, exhausted retries) propagate. Groups run through a bounded
 * pool; results are in group order whatever the completion order.
 */
export async function confirmMerges(
  model: LanguageModel,
  groups: readonly (readonly string[])[],
  entitiesById: ReadonlyMap<string, ResolutionEntity>,
  options: ConfirmMergesOptions = {},
): Promise<ConfirmMergesResult> {
  const prompts = options.prompts ?? builtInPrompts;
  const maxDescriptionChars = options.maxDescriptionChars ?? 300;
  const outcomes = await mapWithConcurrency(
    groups,
    options.concurrency ?? 8,
    async (group): Promise<GroupOutcome> => {
      const members = group.flatMap((id) => {
        const entity = entitiesById.get(id);
        return entity ? [entity] : [];
      });
      if (members.length < 2) return { merges: [], undecided: undefined, ignoredIds: 0, calls: 0 };
      const key = resolutionGroupKey(group);
      const prompt = fillPrompt(prompts.text(resolveEntitiesPrompt), { entities: renderEntities(members, maxDescriptionChars) });
      try {
        const reply = await generateObject({
          model,
          messages: [{ role: 'user', content: prompt }],
          schema: entityClustersSchema,
          schemaName: 'entity_clusters',
          temperature: 0,
          purpose: 'resolve-entities',
          ...(options.sourcesOf ? { sources: options.sourcesOf(members.map((entity) => entity.id)) } : {}),
          ...(options.abortSignal ? { abortSignal: options.abortSignal } : {}),
          ...(options.askAgain?.has(key) ? { refreshCache: true } : {}),
        });
        return { ...readClusters(reply.object, members), undecided: undefined, calls: reply.attempts };
      } catch (error) {
        if (LlmCallError.isInstance(error) && error.code === 'LLM_INVALID_OUTPUT') return { merges: [], undecided: key, ignoredIds: 0, calls: 2 };
        throw error;
      }
    },
    options.abortSignal,
  );
  return {
    merges: outcomes.flatMap((outcome) => outcome.merges),
    undecided: outcomes.flatMap((outcome) => (outcome.undecided === undefined ? [] : [outcome.undecided])),
    ignoredIds: outcomes.reduce((sum, outcome) => sum + outcome.ignoredIds, 0),
    calls: outcomes.reduce((sum, outcome) => sum + outcome.calls, 0),
    criticalPath: outcomes.reduce((longest, outcome) => Math.max(longest, outcome.calls), 0),
  };
}

function renderEntities(members: readonly ResolutionEntity[], maxDescriptionChars: number): string {
  return members
    .map((entity, index) => {
      const aliases = entity.aliases.length > 0 ? `, also called ${entity.aliases.slice(0, 5).map((alias) => JSON.stringify(alias)).join(', ')}` : '';
      const type = entity.type.trim() || 'unknown';
      const description = shortenText(entity.description, maxDescriptionChars) || '(no description)';
      return `${index + 1}. ${JSON.stringify(entity.title)} (${type}${aliases}): ${description}`;
    })
    .join('\n');
}

function readClusters(reply: z.output<typeof entityClustersSchema>, members: readonly ResolutionEntity[]): Omit<GroupOutcome, 'undecided' | 'calls'> {
  const indexOf = (value: number | string): number => {
    const number = typeof value === 'number' ? value : Number(value.trim());
    return Number.isInteger(number) && number >= 1 && number <= members.length ? number - 1 : -1;
  };
  const placed = new Set<number>();
  const merges: EntityMerge[] = [];
  let ignoredIds = 0;
  for (const cluster of reply.clusters) {
    const indices: number[] = [];
    for (const value of cluster.ids) {
      const index = indexOf(value);
      if (index === -1 || placed.has(index)) {
        ignoredIds++;
        continue;
      }
      if (!indices.includes(index)) indices.push(index);
    }
    if (indices.length < 2) continue;
    for (const index of indices) placed.add(index);
    indices.sort((a, b) => a - b);
    const clustered = indices.map((index) => members[index] as ResolutionEntity);
    let canonical = cluster.canonical === undefined ? -1 : indexOf(cluster.canonical);
    if (cluster.canonical !== undefined && !indices.includes(canonical)) {
      ignoredIds++;
      canonical = -1;
    }
    const chosen = canonical === -1 ? (chooseCanonical(clustered) as ResolutionEntity) : (members[canonical] as ResolutionEntity);
    merges.push({ canonical: chosen.id, members: clustered.map((entity) => entity.id) });
  }
  return { merges, ignoredIds };
}
