import { contentId } from '../../core/ids.js';
import { ValuesById } from '../../core/values-by-id.js';
import { mapInDependencyOrder } from '../../core/map-in-dependency-order.js';
import { mapWithConcurrency } from '../../core/map-with-concurrency.js';
import { maxOf } from '../../core/max-of.js';
import type { ClaimRecord, CommunityRecord, EntityRecord, RelationRecord, ReportRecord } from '../../core/types.js';
import { buildCommunityReportContext } from '../../extract/reports/community-report-context.js';
import { communityReportPrompt, communityReportRepairPrompt } from '../../extract/reports/community-report-prompt.js';
import { createExtractiveReporter, extractiveChunkOrder, extractiveMaxChunks, extractiveMemberOrder, extractiveRating, extractiveReporterVersion, type EntityOrdering, type ReportSources } from '../../extract/reports/extractive-report.js';
import { createExtractiveReportInputs, extractiveEntityDigest } from '../../extract/reports/extractive-report-inputs.js';
import { generateCommunityReport } from '../../extract/reports/generate-community-report.js';
import { citedDataReferences, renumberDataReferences } from '../../extract/reports/renumber-data-references.js';
import type { LanguageModel } from '../../providers/llm/language-model.js';
import { withCallCount } from '../../providers/llm/with-call-count.js';
import { recordStatisticsEpoch, statisticsEpochOf } from '../corpus-statistics.js';
import { ownsItem } from '../owns-item.js';
import type { PipelineStep, StepContext, StepName } from '../pipeline-step.js';
import { chunkTextHashes } from './chunk-text-hashes.js';
import { communityMemberPositions, communityRowHashes } from './communities-step.js';
import { promptsHash } from './llm-extract-step.js';

/** Options of {@link createReportsStep}. */
export interface ReportsStepOptions {
  /** The step whose graph the reports describe. */
  graphStep: StepName;
  /** Generate reports with the LLM (standard mode), else extractively. */
  llm: boolean;
  /** Include claims in the report context (standard mode with claims enabled). */
  claims: boolean;
}

/** Meta key of the inputs hash of every report: community id → hash. */
export const reportInputsKey = 'reports:inputs';

/** The meta record under {@link reportInputsKey}. */
interface StoredReportInputs {
  version: 1;
  byCommunity: Record<string, string>;
  /** Per LLM report (by community id), the records its `[Data: …]` references cite: table, number shown, record id. */
  citations?: Record<string, Array<[table: string, label: string, id: string]>>;
  /**
   * The raw extractive rating rated 10: the highest one at the last refresh (a corpus statistic, see
   * corpus-statistics.ts). Kept between refreshes so that a new highest one does not re-rate, and rewrite, every report.
   */
  ratingScale?: number;
  /** What the extractive inputs of this run were hashed from, so that the next run carries unchanged ones forward. */
  extractiveBasis?: ExtractiveInputsBasis;
  /**
   * Each report's part of the step's output version (`reportHash`), by community id: an extractive update takes a kept
   * report's from here instead of reading and hashing its text (5,300 reports, 8 MB on 2Wiki). An index whose reports
   * were written before these were kept has none: its kept reports' texts are read once more.
   */
  reportHashes?: Record<string, string>;
  /**
   * The same, with the entities' digests as one object, as written before `extractiveBasis` (parsing it took four times
   * as long): read, no longer written. A version that reads only this finds none, and hashes every community again.
   */
  extractive?: Omit<ExtractiveInputsBasis, 'entityIds' | 'entityDigests'> & { entities: Record<string, string> };
}

/**
 * What `byCommunity` of extractive reports was hashed from: the settings hash, each community's row hash
 * (`communityRowHashes`), each entity's digest (`extractiveEntityDigest`), the entities listed in table order. A
 * community whose row hash and members' digests are the stored ones, under the same settings, has the stored inputs:
 * they are not hashed again.
 */
interface ExtractiveInputsBasis {
  settings: string;
  rows: Record<string, string>;
  entityIds: string[];
  /** The digest of each entity of `entityIds`, in its order. */
  entityDigests: string[];
  /**
   * The hash of each entity's own fields that the inputs hashed (`createExtractiveReportInputs`), in the order of
   * `entityIds` ('' for one no hashed community held): an entity whose digest is the stored one has the stored hash.
   */
  entityHashes?: string[];
}

/** Meta key of the degrees and frequencies extractive reports are ordered by between refreshes. */
export const reportOrderingKey = 'reports:ordering';

/**
 * The meta record under {@link reportOrderingKey}: every entity's degree and frequency at the last refresh. It is written
 * with the reports of that refresh, so the step's statistics epoch (`statisticsEpochOf`) says whether it is current; it
 * names no epoch itself, as an updated index must equal a fresh build after a refresh. Version 2 holds three lists, read
 * on every update in a third of the time version 1's object of 39,000 keys took (2Wiki: 37 ms against 100), and read still.
 */
type StoredReportOrdering =
  | { version: 2; ids: string[]; degrees: number[]; frequencies: number[] }
  | { version: 1; byEntity: Record<string, [degree: number, frequency: number]> };

/**
 * What orders the extractive reports of this run: between refreshes, the degrees and frequencies stored at the last
 * one (`ordering`); at a refresh, a first build, or when none are stored, the entities' own,
 * which `store` then holds for the next runs.
 */
async function extractiveOrdering(
  context: StepContext,
  entities: Iterable<Pick<EntityRecord, 'id' | 'degree' | 'frequency'>>,
  incremental: boolean,
): Promise<{ ordering: Map<string, EntityOrdering> | undefined; store: StoredReportOrdering | undefined }> {
  const stored = incremental ? await context.store.getMeta<StoredReportOrdering>(reportOrderingKey) : undefined;
  if (stored?.version === 2) {
    return { ordering: new Map(stored.ids.map((id, position) => [id, { degree: stored.degrees[position] as number, frequency: stored.frequencies[position] as number }])), store: undefined };
  }
  if (stored?.version === 1) {
    return { ordering: new Map(Object.entries(stored.byEntity).map(([id, [degree, frequency]]) => [id, { degree, frequency }])), store: undefined };
  }
  const ids: string[] = [];
  const degrees: number[] = [];
  const frequencies: number[] = [];
  for (const entity of entities) {
    ids.push(entity.id);
    degrees.push(entity.degree);
    frequencies.push(entity.frequency);
  }
  return { ordering: undefined, store: { version: 2, ids, degrees, frequencies } };
}

/** A report with every `[Data: …]` number passed through `renumber` (see `renumberDataReferences`). */
function renumberReport(report: ReportRecord, renumber: (table: string, label: string) => string | undefined): ReportRecord {
  const rewrite = (text: string): string => renumberDataReferences(text, renumber);
  return {
    ...report,
    title: rewrite(report.title),
    summary: rewrite(report.summary),
    ratingExplanation: rewrite(report.ratingExplanation),
    fullContent: rewrite(report.fullContent),
    findings: report.findings.map((finding) => ({ summary: rewrite(finding.summary), explanation: rewrite(finding.explanation) })),
  };
}

/** A report row to store again: its `hid` is the stored row's, and a sub-report in a context is numbered by its community. */
function withoutHid<R extends { hid?: number }>(report: R): R {
  const copy = { ...report };
  delete copy.hid;
  return copy;
}

/**
 * What an extractive update reads of every stored report: enough to keep it and re-rate it. The other columns (the
 * texts, the findings' JSON most of all) are read only for the rows the update writes; the output version takes a kept
 * report's hash from `reports:inputs` (`reportHashes`).
 */
type StoredReportHead = Pick<ReportRecord, 'communityId' | 'level' | 'rating' | 'hid'>;

const storedReportHead = ['communityId', 'level', 'rating'] as const;

/** A report's part of the step's output version: what it says, under its community. */
function reportHash(report: Pick<ReportRecord, 'communityId' | 'fullContent'>): string {
  return contentId('report', report.communityId, report.fullContent);
}

/** The previous run's reports by the hash of their inputs, handed out again to communities with the same inputs. */
class EarlierReports<R extends StoredReportHead = ReportRecord> {
  private readonly byInputs = new Map<string, R>();
  private readonly citationsByInputs = new Map<string, Array<[string, string, string]>>();
  /** The inputs hash of every report of this run, by community id: what the next run compares with. */
  readonly inputs = new Map<string, string>();
  /** What every LLM report of this run cites, by community id. */
  readonly citations = new Map<string, Array<[string, string, string]>>();
  reused = 0;
  /** Communities whose kept report is the stored report of the same community, row for row but for its level and rating. */
  readonly keptInPlace = new Set<string>();
  /** The community whose stored report each kept report is, by the community keeping it. */
  readonly sourceOf = new Map<string, string>();
  /** The stored {@link StoredReportInputs.ratingScale}. */
  readonly ratingScale: number | undefined;
  private readonly storedInputs: StoredReportInputs | undefined;

  constructor(previous: readonly R[], stored: StoredReportInputs | undefined) {
    this.ratingScale = stored?.version === 1 ? stored.ratingScale : undefined;
    if (stored?.version !== 1) return;
    this.storedInputs = stored;
    for (const report of previous) {
      const inputs = stored.byCommunity[report.communityId];
      if (inputs === undefined) continue;
      this.byInputs.set(inputs, report);
      const cited = stored.citations?.[report.communityId];
      if (cited !== undefined) this.citationsByInputs.set(inputs, cited);
    }
  }

  /**
   * The LLM report for a context with these labels: a kept one has its references renumbered from the labels its
   * context showed then to the labels this context shows the same records under (display numbers shift when rows
   * are inserted before them). Records what it cites for the next run.
   */
  cite(report: ReportRecord, inputs: string, kept: boolean, labels: ReadonlyArray<{ table: string; label: string; id: string }>): ReportRecord {
    const labelOf = new Map(labels.map((row) => [`${row.table}\u0000${row.id}`, row.label]));
    const idOf = new Map(labels.map((row) => [`${row.table}\u0000${row.label}`, row.id]));
    let current = report;
    if (kept) {
      const earlierIds = new Map((this.citationsByInputs.get(inputs) ?? []).map(([table, label, id]) => [`${table}\u0000${label}`, id]));
      current = renumberReport(report, (table, label) => {
        const id = earlierIds.get(`${table}\u0000${label}`);
        return id === undefined ? undefined : labelOf.get(`${table}\u0000${id}`);
      });
    }
    const cited: Array<[string, string, string]> = [];
    for (const [table, label] of citedDataReferences(current.fullContent)) {
      const id = idOf.get(`${table}\u0000${label}`);
      if (id !== undefined) cited.push([table, label, id]);
    }
    this.citations.set(report.communityId, cited);
    return current;
  }

  /**
   * What finds the stored extractive inputs of a community whose row and members are as they were when they were hashed
   * under `basis` (see {@link ExtractiveInputsBasis}): undefined for a community whose inputs must be hashed. The
   * entities that changed since are found once, here: those whose digest in `basis` is not the stored one (a new entity's
   * included) and those the stored basis lists that `basis` does not, each compared at its own position in the two lists
   * (table order, new entities last) and only the others by id. An entity whose digest `basis` does not hold yet counts
   * as changed until `settle` gives it: what `carried` says before is a superset of the communities to hash.
   */
  carrier(basis: Omit<ExtractiveInputsBasis, 'entityDigests'> & { entityDigests: ReadonlyArray<string | undefined> }): {
    carried: (communityId: string, members: ArrayLike<number>) => string | undefined;
    settle: (position: number, digest: string) => void;
    entityHashes: Map<string, string>;
  } {
    const entityHashes = new Map<string, string>();
    const none = { carried: () => undefined, settle: () => undefined, entityHashes };
    const stored = this.storedInputs;
    const before = stored?.extractiveBasis ?? stored?.extractive;
    if (!stored || before?.settings !== basis.settings) return none;
    const digests = stored.extractiveBasis ? ValuesById.ofLists(stored.extractiveBasis.entityIds, stored.extractiveBasis.entityDigests) : stored.extractive && ValuesById.ofRecord(stored.extractive.entities);
    if (!digests) return none;
    // Positions below are in `basis.entityIds`: an entity past the stored ones, when they begin it, is a new one.
    digests.alignTo(basis.entityIds);
    // Beside the digests, in their order (none in a basis stored before them).
    const hashes = stored.extractiveBasis?.entityHashes;
    const storedHashes = Array.isArray(hashes) && hashes.length === digests.size ? hashes : undefined;
    // By position in `basis.entityIds`, where members are numbered; an entity gone since is no current community's member.
    const changed = new Uint8Array(basis.entityIds.length);
    const settle = (position: number, current: string | undefined): void => {
      const id = basis.entityIds[position] as string;
      const index = digests.indexOf(id, position);
      const digest = index < 0 ? undefined : digests.values[index];
      changed[position] = current === undefined || digest !== current ? 1 : 0;
      if (changed[position] === 0) {
        const hash = storedHashes?.[index];
        if (typeof hash === 'string' && hash !== '') entityHashes.set(id, hash);
      }
    };
    basis.entityDigests.forEach((digest, position) => settle(position, digest));
    return {
      settle,
      carried: (communityId, members) => {
        const inputs = stored.byCommunity[communityId];
        const row = basis.rows[communityId];
        if (inputs === undefined || row === undefined || before.rows[communityId] !== row) return undefined;
        // A member not among the entities (−1) is hashed as missing: its community is hashed again.
        for (let slot = 0; slot < members.length; slot++) {
          const member = members[slot] as number;
          if (member < 0 || changed[member] === 1) return undefined;
        }
        return inputs;
      },
      entityHashes,
    };
  }

  /** The entities' digests of the stored basis, if it holds them as lists (`ExtractiveInputsBasis`). */
  storedDigests(): ValuesById | undefined {
    const basis = this.storedInputs?.extractiveBasis;
    return basis && ValuesById.ofLists(basis.entityIds, basis.entityDigests);
  }

  /** Records `community`'s inputs and returns the stored report written from the same inputs, if any (counted as reused). */
  take(inputs: string, community: Pick<CommunityRecord, 'id' | 'level'>): R | undefined {
    this.inputs.set(community.id, inputs);
    const earlier = this.byInputs.get(inputs);
    if (!earlier) return undefined;
    this.reused++;
    this.sourceOf.set(community.id, earlier.communityId);
    if (earlier.communityId === community.id) this.keptInPlace.add(community.id);
    return { ...withoutHid(earlier), communityId: community.id, level: community.level };
  }

  /** What to store for the next run: the inputs of `reports`, and the extractive rating scale they were rated on. */
  stored(reports: ReadonlyArray<Pick<ReportRecord, 'communityId'>>, ratingScale: number | undefined, basis?: ExtractiveInputsBasis, hashes?: ReadonlyMap<string, string>): StoredReportInputs {
    const byCommunity: Record<string, string> = {};
    for (const report of reports) {
      const inputs = this.inputs.get(report.communityId);
      if (inputs !== undefined) byCommunity[report.communityId] = inputs;
    }
    const citations: Record<string, Array<[string, string, string]>> = {};
    for (const report of reports) {
      const cited = this.citations.get(report.communityId);
      if (cited !== undefined && cited.length > 0) citations[report.communityId] = cited;
    }
    let extractiveBasis: ExtractiveInputsBasis | undefined;
    if (basis) {
      const rows: Record<string, string> = {};
      for (const report of reports) {
        const row = basis.rows[report.communityId];
        if (row !== undefined && byCommunity[report.communityId] !== undefined) rows[report.communityId] = row;
      }
      extractiveBasis = { ...basis, rows };
    }
    let reportHashes: Record<string, string> | undefined;
    if (hashes) {
      reportHashes = {};
      for (const report of reports) {
        const hash = hashes.get(report.communityId);
        if (hash !== undefined) reportHashes[report.communityId] = hash;
      }
    }
    return {
      version: 1,
      byCommunity,
      ...(Object.keys(citations).length > 0 ? { citations } : {}),
      ...(ratingScale === undefined ? {} : { ratingScale }),
      ...(extractiveBasis === undefined ? {} : { extractiveBasis }),
      ...(reportHashes === undefined ? {} : { reportHashes }),
    };
  }

  /** The hash (`reportHash`) stored for the report of `communityId` by the last run, if it stored one. */
  storedHash(communityId: string): string | undefined {
    return this.storedInputs?.reportHashes?.[communityId];
  }
}

/**
 * One report per community, bottom-up by level (GraphRAG `create_community_reports`). With an LLM, the
 * context of a community is its entities, relations (by combined degree) and claims within
 * `reports.maxInputTokens`, with the reports of its sub-communities substituted when it does not fit; a
 * report whose output stays unusable after its repair keeps an extractive report with the error recorded,
 * never silently absent. Without an LLM the reports are extractive, ratings rescaled to 0–10.
 *
 * Reports are regenerated only when what they are written from changed. Each report's inputs are hashed
 * (stored in the meta record `reports:inputs`) together with the step's settings (report settings, model,
 * prompts): for an LLM report, the fingerprint of its context (its entities, relationships, claims and
 * substituted sub-reports with their texts, without display numbers and degree columns), so a parent whose
 * context substitutes a regenerated sub-report is regenerated too, bottom-up; for an extractive report, its
 * members, their texts and mentions, and the community's chunks and inner relations
 * (`extractiveReportInputs`). An extractive update hashes only the communities whose row changed (`communities:rows`)
or one of whose members did (`extractiveEntityDigest`): the others carry their stored hash (`extractive` in
`reports:inputs`, count `inputsHashed`). A report whose hash is stored is kept as it was (its row and `hid` too, when
 * its community kept its id) and counted `reused`; the others are `regenerated`. Extractive ratings are
 * re-rated from their members' degrees, kept ones included, on a 0–10 scale whose 10 is the highest raw rating at
 * the last refresh of the corpus statistics (`ratingScale` in `reports:inputs`; capped at 10 between refreshes): the
 * scale is read as absolute (`minCommunityRank`, the extractive global answer's prior), so it stays, but refitting
 * it on every update would re-rate and rewrite every report whenever the highest one moves. For the same reason an
 * extractive report built between refreshes orders its members, sentences and neighbours by the degrees and
 * frequencies of the last refresh (`reports:ordering`; an entity new since orders by its own): degrees move whenever
 * an entity gains an edge anywhere, and a report rebuilt for one new member would otherwise reshuffle its title and
 * findings around the old ones. A refresh orders by the current figures, as a fresh build does.
 *
 * Prefetch (LLM reports only): an item is a community, owned by its id; its round is its height in the community
 * tree (0 without sub-communities, else one more than its highest sub-community), so a round's reports need only
 * reports of earlier rounds. A prefetch replays, from the cache, the sub-reports its contexts substitute; a kept
 * report makes no call.
 */
export function createReportsStep(options: ReportsStepOptions): PipelineStep {
  const step: PipelineStep = {
    name: 'reports',
    version: 3,
    reads: ['communities', options.graphStep, 'statistics', ...(options.claims ? (['claims'] as const) : [])],
    settings: (config, environment) => ({
      reports: config.reports,
      llm: options.llm ? { model: environment.llmModel, prompts: promptsHash(environment.prompts, [communityReportPrompt, communityReportRepairPrompt], null) } : null,
      // A new extractive reporter reruns the step, which then rewrites the extractive reports (their inputs hash names it too).
      extractive: extractiveReporterVersion,
    }),

    async run(context) {
      const { epoch, incremental } = await statisticsEpochOf(context, 'reports');
      const llm = options.llm ? context.llm : undefined;
      const communityRows = context.store.table('communities');
      let communities: CommunityHead[];
      let outcome: ReportsOutcome;
      if (llm) {
        const whole = await communityRows.all();
        communities = whole;
        outcome = await llmRun(context, options, llm, { ...(await reportInputs(context, options, whole)), entities: await allEntities(context), llmRelations: await allRelations(context) });
      } else {
        communities = await communityRows.pick([...communityHead]);
        outcome = await extractiveRun(context, { ...(await reportInputs(context, options, communities)), incremental });
      }
      const { earlier, reports, previous } = outcome;
      context.progress(communities.length, communities.length, 'communities');
      const byCommunity = new Map(reports.map((report) => [report.communityId, report]));
      const inCommunityOrder = communities.map((community) => byCommunity.get(community.id)).filter((report) => report !== undefined);
      const failed = outcome.failed;
      if (failed > 0) context.warn('report-failed', `${failed} community reports could not be generated by the LLM; they keep extractive reports with the error recorded`);
      const current = new Set(inCommunityOrder.map((report) => report.communityId));
      const removed = previous.filter((report) => !current.has(report.communityId)).map((report) => report.communityId);
      // Extractive runs keep each report's hash for the next one; LLM runs read every stored report whole anyway.
      const inputs = earlier.stored(inCommunityOrder, outcome.ratingScale, outcome.basis, llm ? undefined : outcome.hashes);
      // Written in community order, as a fresh build writes them: new rows take their `hid` in that order.
      const position = new Map(inCommunityOrder.map((report, index) => [report.communityId, index]));
      const changed = [...outcome.changed].sort((left, right) => (position.get(left.communityId) ?? 0) - (position.get(right.communityId) ?? 0));
      return {
        counts: {
          reports: inCommunityOrder.length,
          failed,
          reused: earlier.reused,
          regenerated: inCommunityOrder.length - earlier.reused,
          ...(outcome.hashed === undefined ? {} : { inputsHashed: outcome.hashed }),
          ...(outcome.entitiesRead === undefined ? {} : { entitiesRead: outcome.entitiesRead }),
          written: changed.length,
          ...(outcome.criticalPath === undefined ? {} : { llmCriticalPath: outcome.criticalPath }),
        },
        outputVersion: contentId('reports', inCommunityOrder.map((report) => outcome.hashes.get(report.communityId) as string)),
        async write(tx) {
          // Rows of kept communities are replaced in place (same hid); reports of vanished communities go.
          if (previous.length > 0) await tx.table('reports').deleteWhere('communityId', removed);
          else await tx.table('reports').clear();
          await tx.table('reports').upsert(changed);
          await tx.setMeta(reportInputsKey, inputs);
          if (outcome.orderingToStore) await tx.setMeta(reportOrderingKey, outcome.orderingToStore);
          await recordStatisticsEpoch(tx, 'reports', epoch);
        },
      };
    },
  };
  if (!options.llm) return step;
  return {
    ...step,
    async prefetchRounds(context) {
      if (!context.llm) return 0;
      const rounds = reportRounds(await context.store.table('communities').pick(['id', 'children']));
      return rounds.size === 0 ? 0 : maxOf([...rounds.values()]) + 1;
    },
    async prefetch(context, shard) {
      const llm = context.llm;
      if (!llm) return { items: 0, calls: 0 };
      const { settingsHash, bottomUp } = await reportInputs(context, options, await context.store.table('communities').all());
      const entities = await allEntities(context);
      const llmRelations = await allRelations(context);
      const { earlier } = await earlierLlmReports(context);
      const round = shard.round ?? 0;
      const rounds = reportRounds(bottomUp);
      const owned = bottomUp.filter((community) => rounds.get(community.id) === round && ownsItem(shard, community.id));
      if (owned.length === 0) return { items: 0, calls: 0 };
      const { sources, extractive } = await reportSources(context, entities, llmRelations, undefined);
      const writer = await createLlmReportWriter(context, bottomUp, { ...sources, relations: llmRelations }, extractive, { withClaims: options.claims, earlier, settingsHash });
      const counted = withCallCount(llm);
      // Every report this prefetch writes or replays, once: siblings share their sub-communities' replays.
      const written = new Map<string, Promise<ReportRecord>>();
      const reportOf = (community: CommunityRecord): Promise<ReportRecord> => {
        let report = written.get(community.id);
        if (report === undefined) {
          report = (async () => {
            // Only a context that overflows with its own rows substitutes sub-reports; then they are replayed first,
            // from the cache that earlier rounds filled, as `run` will have them.
            const children = writer.readsSubReports(community) ? writer.childrenOf(community) : [];
            const subReports = new Map(await Promise.all(children.map(async (child) => [child.id, await reportOf(child)] as const)));
            return (await writer.write(community, subReports, counted.model)).report;
          })();
          written.set(community.id, report);
        }
        return report;
      };
      let done = 0;
      context.progress(done, owned.length, 'communities');
      await mapWithConcurrency(
        owned,
        Math.max(1, context.config.llm.concurrency * 2),
        async (community) => {
          await reportOf(community);
          context.progress(++done, owned.length, 'communities');
        },
        context.signal,
      );
      return { items: owned.length, calls: counted.calls() };
    },
  };
}

/**
 * A community row without its relation, chunk and entity lists, which are most of its bytes (7, 1 and 4 MB of 12 on
 * 2Wiki): what an extractive run reads of every community. Its members come as numbers (`communityMemberPositions`);
 * the lists are read only of the communities whose inputs it hashes.
 */
type CommunityHead = Omit<CommunityRecord, 'relationIds' | 'chunkIds' | 'entityIds'>;

const communityHead = ['id', 'level', 'parent', 'children', 'title', 'size'] as const;

/**
 * What the reports of `communities` (whole rows, or heads for an extractive run) are written from, read from the
 * committed steps as `run` and `prefetch` both need it.
 */
async function reportInputs<C extends CommunityHead>(context: StepContext, options: ReportsStepOptions, communities: readonly C[]): Promise<ReportsRunInputs<C>> {
  const { store, config } = context;
  const settingsHash = contentId(
    'report-settings',
    JSON.stringify({
      reports: config.reports,
      llm: options.llm && context.llm ? { model: context.llm.modelId, prompts: promptsHash(context.prompts, [communityReportPrompt, communityReportRepairPrompt], null), claims: options.claims } : null,
      // An LLM report is not written by the extractive reporter (its fallback on a failure aside): a new reporter
      // version rewrites extractive reports, and calls the LLM for none.
      ...(options.llm && context.llm ? {} : { extractive: extractiveReporterVersion }),
    }),
  );
  const bottomUp = [...communities].sort((left, right) => right.level - left.level);
  return { settingsHash, bottomUp };
}

/** Every entity, whole, by id: what LLM report contexts read. */
async function allEntities(context: StepContext): Promise<Map<string, EntityRecord>> {
  return new Map((await context.store.table('entities').all()).map((entity) => [entity.id, entity]));
}

/**
 * The whole rows of the entities `ids`, by id, added to `into`: none read when there are none, every row when they are
 * most of the table (`count`), where one scan costs less than looking each up.
 */
async function addWholeEntities(context: StepContext, into: Map<string, EntityRecord>, ids: readonly string[], count: number): Promise<void> {
  if (ids.length === 0) return;
  const table = context.store.table('entities');
  for (const entity of ids.length > count / 2 ? await table.all() : await table.get([...ids])) into.set(entity.id, entity);
}

/** Every relation by id: what LLM report contexts are built from. */
async function allRelations(context: StepContext): Promise<Map<string, RelationRecord>> {
  return new Map((await context.store.table('relations').all()).map((relation) => [relation.id, relation]));
}

/** The stored reports, whole, by the hash of their inputs: what LLM reports are kept from. */
async function earlierLlmReports(context: StepContext): Promise<{ previous: ReportRecord[]; earlier: EarlierReports }> {
  const previous = await context.store.table('reports').all();
  return { previous, earlier: new EarlierReports(previous, await context.store.getMeta<StoredReportInputs>(reportInputsKey)) };
}

/** What one run of the step made, and what it writes. */
interface ReportsOutcome {
  earlier: EarlierReports<StoredReportHead>;
  /** Every report of this run; a kept extractive one may be its stored head only (it is written only if it changed). */
  reports: StoredReportHead[];
  previous: ReadonlyArray<Pick<ReportRecord, 'communityId'>>;
  /** The rows to write: the reports that differ from their stored rows, whole. */
  changed: ReportRecord[];
  /** The hash of every report of this run (`reportHash`), by community id. */
  hashes: Map<string, string>;
  failed: number;
  ratingScale?: number;
  basis?: ExtractiveInputsBasis;
  orderingToStore?: StoredReportOrdering;
  hashed?: number;
  /** Entities an extractive run read whole (the others: id, degree and frequency only). */
  entitiesRead?: number;
  criticalPath?: number;
}

interface ReportsRunInputs<C extends CommunityHead = CommunityRecord> {
  settingsHash: string;
  bottomUp: C[];
}

async function llmRun(
  context: StepContext,
  options: ReportsStepOptions,
  llm: LanguageModel,
  { settingsHash, entities, bottomUp, llmRelations }: ReportsRunInputs & { entities: Map<string, EntityRecord>; llmRelations: Map<string, RelationRecord> },
): Promise<ReportsOutcome> {
  const { previous, earlier } = await earlierLlmReports(context);
  const { sources, extractive } = await reportSources(context, entities, llmRelations, undefined);
  const writer = await createLlmReportWriter(context, bottomUp, { ...sources, relations: llmRelations }, extractive, { withClaims: options.claims, earlier, settingsHash });
  const { reports, criticalPath } = await llmReports(context, llm, bottomUp, writer);
  const previousById = new Map(previous.map((report) => [report.communityId, report]));
  return {
    earlier,
    reports,
    previous,
    changed: reports.filter((report) => !sameReport(report, previousById.get(report.communityId))),
    hashes: new Map(reports.map((report) => [report.communityId, reportHash(report)])),
    failed: reports.filter((report) => report.error !== null).length,
    criticalPath,
  };
}

async function extractiveRun(context: StepContext, { settingsHash, bottomUp, incremental }: ReportsRunInputs<CommunityHead> & { incremental: boolean }): Promise<ReportsOutcome> {
  const table = context.store.table('reports');
  const previous: StoredReportHead[] = await table.pick([...storedReportHead]);
  const earlier = new EarlierReports(previous, await context.store.getMeta<StoredReportInputs>(reportInputsKey));
  // Every entity's id, degree and frequency (which rate and order the reports), in table order, in one read; whole rows
  // only of the entities the run reads more of: those it digests, and the members of the communities whose inputs it
  // hashes (every report built is one of them).
  const light = await context.store.table('entities').pick(['id', 'degree', 'frequency']);
  const entityIds = light.map((entity) => entity.id);
  const entities = new Map<string, EntityRecord>();
  // An entity the run did not write since the step last ran has the digest stored then; only the others are digested.
  const written = context.changedKeys?.('entities');
  const storedDigests = written && earlier.storedDigests();
  const entityDigests: Array<string | undefined> = entityIds.map((id, position) => (storedDigests && !written.has(id) ? storedDigests.get(id, position) : undefined));
  const rows = { ...(await communityRowHashes(context.store)) };
  // Each community's members as positions in `entityIds`, by its place in `bottomUp`.
  const { members } = await communityMemberPositions(context.store, bottomUp.map((community) => community.id), entityIds);
  const membersAt = (index: number): Int32Array => members[index] as Int32Array;
  // The entities read whole, in one read: those to digest, and the members of every community that may not carry its
  // inputs — the carrier counts each entity to digest as changed until it is digested, so a superset of those to hash.
  const { carried, settle, entityHashes } = earlier.carrier({ settings: settingsHash, rows, entityIds, entityDigests });
  const read = Uint8Array.from(entityDigests, (digest) => (digest === undefined ? 1 : 0));
  bottomUp.forEach((community, index) => {
    if (carried(community.id, membersAt(index)) === undefined) for (const position of membersAt(index)) if (position >= 0) read[position] = 1;
  });
  await addWholeEntities(context, entities, entityIds.filter((_, position) => read[position] === 1), entityIds.length);
  entityIds.forEach((id, position) => {
    if (entityDigests[position] !== undefined) return;
    entityDigests[position] = extractiveEntityDigest(entities.get(id) as EntityRecord);
    settle(position, entityDigests[position]);
  });
  const basis: ExtractiveInputsBasis = { settings: settingsHash, rows, entityIds, entityDigests: entityDigests as string[] };
  let hashed = 0;
  // An unchanged entity's own hash is the stored one; the others are hashed as the inputs need them, and kept for next time.
  const inputsOf = createExtractiveReportInputs(entities, entityHashes);
  // Whole rows only of the communities whose inputs are hashed, and of those built.
  const carriedInputs = bottomUp.map((community, index) => carried(community.id, membersAt(index)));
  const wholeRows = await wholeCommunities(context, bottomUp.flatMap((community, index) => (carriedInputs[index] === undefined ? [community.id] : [])));
  const planned = bottomUp.map((community, index) => {
    let inputs = carriedInputs[index];
    if (inputs === undefined) {
      inputs = contentId('report-inputs', settingsHash, inputsOf(wholeRows.get(community.id) as CommunityRecord));
      hashed++;
    }
    return { community, kept: earlier.take(inputs, community) };
  });
  // A community whose stored inputs name no stored report (a row lost under the writer lock cannot be) is built too.
  const unread = planned.flatMap(({ community, kept }) => (kept || wholeRows.has(community.id) ? [] : [community.id]));
  for (const [id, row] of await wholeCommunities(context, unread)) wholeRows.set(id, row);
  // Their members are read whole too: the report built reads them.
  planned.forEach(({ community, kept }, index) => {
    if (!kept && carriedInputs[index] !== undefined) for (const position of membersAt(index)) if (position >= 0) read[position] = 1;
  });
  await addWholeEntities(context, entities, entityIds.filter((id, position) => read[position] === 1 && !entities.has(id)), entityIds.length);
  // Only the reports built anew read chunk texts and relations: an update loads those of the changed communities.
  const built = planned.flatMap(({ community, kept }) => (kept ? [] : [wholeRows.get(community.id) as CommunityRecord]));
  const { ordering, store: orderingToStore } = await extractiveOrdering(context, light, incremental);
  const { extractive } = await reportSources(context, entities, undefined, built, ordering);
  // A kept report is rated over its members as positions: the degrees a built one sums by id, in the same order.
  const degrees = Float64Array.from(light, (entity) => entity.degree);
  const degreeAt = (position: number): number => (position < 0 ? 0 : (degrees[position] as number));
  const builtReports = new Map<string, ReportRecord>();
  const reports: StoredReportHead[] = planned.map(({ community, kept }, index) => {
    if (index % 50 === 0) context.progress(index, bottomUp.length, 'communities');
    if (!kept) {
      const report = extractive(wholeRows.get(community.id) as CommunityRecord);
      builtReports.set(community.id, report);
      return report;
    }
    return { ...kept, rating: extractiveRating(membersAt(index), degreeAt) };
  });
  // Between refreshes the scale fitted at the last one stays (a report above it is rated 10), so a new highest
  // rating re-rates no other report; a refresh rates the highest one 10, as a fresh build does.
  const ratingScale = incremental && earlier.ratingScale !== undefined ? earlier.ratingScale : Math.max(1e-9, maxOf(reports.map((report) => report.rating)));
  for (const report of reports) report.rating = Math.min(10, Math.round((report.rating / ratingScale) * 100) / 10);
  // A kept report in place differs from its row at most in level and rating; the others are compared whole. Whole
  // stored rows are read only for these: the rows of the changed communities, and the rows kept reports come from.
  const previousById = new Map(previous.map((report) => [report.communityId, report]));
  const candidates = reports.filter((report) => {
    const stored = previousById.get(report.communityId);
    return stored === undefined || !earlier.keptInPlace.has(report.communityId) || stored.level !== report.level || stored.rating !== report.rating;
  });
  const wholeIds = new Set<string>();
  for (const report of candidates) {
    if (previousById.has(report.communityId)) wholeIds.add(report.communityId);
    const source = earlier.sourceOf.get(report.communityId);
    if (source !== undefined) wholeIds.add(source);
  }
  const whole = new Map((await table.get([...wholeIds])).map((report) => [report.communityId, report]));
  const changed: ReportRecord[] = [];
  for (const report of candidates) {
    const source = earlier.sourceOf.get(report.communityId);
    const sourceRow = source === undefined ? undefined : whole.get(source);
    const row = sourceRow === undefined ? builtReports.get(report.communityId) : { ...withoutHid(sourceRow), communityId: report.communityId, level: report.level, rating: report.rating };
    // Cannot happen under the writer lock (the table is as read); a row not found is not written half.
    if (row === undefined) continue;
    if (earlier.keptInPlace.has(report.communityId) || !sameReport(row, whole.get(report.communityId))) changed.push(row);
  }
  basis.entityHashes = entityIds.map((id) => entityHashes.get(id) ?? '');
  return { earlier, reports, previous, changed, hashes: await extractiveReportHashes(context, earlier, reports, [...builtReports.values(), ...changed]), failed: 0, ratingScale, basis, orderingToStore, hashed, entitiesRead: entities.size };
}

/**
 * The hash of every report of an extractive run: of the rows it has whole (`rows`: those built or written), and the
 * stored one of a report kept in place. Only a kept report with none stored (an index written before they were) is read.
 */
async function extractiveReportHashes(
  context: StepContext,
  earlier: EarlierReports<StoredReportHead>,
  reports: readonly StoredReportHead[],
  rows: readonly ReportRecord[],
): Promise<Map<string, string>> {
  const hashes = new Map(rows.map((row) => [row.communityId, reportHash(row)]));
  const unread: string[] = [];
  for (const { communityId } of reports) {
    if (hashes.has(communityId)) continue;
    const stored = earlier.keptInPlace.has(communityId) ? earlier.storedHash(communityId) : undefined;
    if (stored === undefined) unread.push(communityId);
    else hashes.set(communityId, stored);
  }
  if (unread.length > 0) for (const row of await context.store.table('reports').pick(['communityId', 'fullContent'], { column: 'communityId', values: unread })) hashes.set(row.communityId, reportHash(row));
  return hashes;
}

/**
 * The graph and texts reports are built from, and the extractive reporter over them. `built`: the only communities
 * whose extractive reports will be built (their chunks are read, and the relations only if there is one), else every chunk.
 */
async function reportSources(
  context: StepContext,
  entities: ReadonlyMap<string, EntityRecord>,
  llmRelations: ReadonlyMap<string, RelationRecord> | undefined,
  built: readonly CommunityRecord[] | undefined,
  ordering?: ReadonlyMap<string, EntityOrdering>,
): Promise<{ sources: ReportSources; extractive: (community: CommunityRecord) => ReportRecord }> {
  const { store, config } = context;
  const { maxFindings } = config.reports;
  // The built reports' members ranked once, and their chunks chosen once: the findings' entities among them are the
  // only ones whose relations the reports read, the chosen chunks the only ones whose texts they read (a top-level
  // community lists most of the corpus's chunks, and reads 40), and the reporter takes both as they are.
  const memberOrders = built && new Map(built.map((community) => [community.id, extractiveMemberOrder(community, entities, ordering)]));
  const chunkOrders = built && new Map(built.map((community) => [community.id, extractiveChunkOrder(community, memberOrders?.get(community.id) ?? [], extractiveMaxChunks)]));
  const chunkRows = chunkOrders === undefined ? await store.table('chunks').all() : await store.table('chunks').get([...new Set([...chunkOrders.values()].flat())]);
  const findingEntities = memberOrders && [...new Set([...memberOrders.values()].flatMap((members) => members.slice(0, maxFindings).map((entity) => entity.id)))];
  const sources: ReportSources = {
    entities,
    relations: llmRelations ?? (await relationEndpoints(context, findingEntities)),
    chunks: new Map(chunkRows.map((chunk) => [chunk.id, chunk])),
  };
  return { sources, extractive: createExtractiveReporter(sources, { maxFindings, maxChunks: extractiveMaxChunks, ...(ordering ? { ordering } : {}), ...(memberOrders ? { memberOrders } : {}), ...(chunkOrders ? { chunkOrders } : {}) }) };
}

/** The whole rows of the communities `ids`, by id: none read when there are none, every row when they are most. */
async function wholeCommunities(context: StepContext, ids: readonly string[]): Promise<Map<string, CommunityRecord>> {
  if (ids.length === 0) return new Map();
  const table = context.store.table('communities');
  const rows = ids.length > (await table.count()) / 2 ? await table.all() : await table.get([...ids]);
  return new Map(rows.map((community) => [community.id, community]));
}

/**
 * The endpoints of the relations extractive reports read: of the relations of `findingEntities` (every relation's when
 * undefined). Only the endpoints, no descriptions and chunk lists to decode; on an update, only the relations of the
 * few entities the rebuilt reports name findings after, not the inner relations of every rebuilt community (a
 * top-level community holds most of the table).
 */
async function relationEndpoints(context: StepContext, findingEntities: readonly string[] | undefined): Promise<Map<string, Pick<RelationRecord, 'source' | 'target'>>> {
  const table = context.store.table('relations');
  if (findingEntities === undefined) return new Map((await table.pick(['id', 'source', 'target'])).map((relation) => [relation.id, relation]));
  // Both ends in one read: the table has no index on either, and each read scanned it (70-130 ms on 2Wiki).
  return new Map((await table.pick(['id', 'source', 'target'], { column: ['source', 'target'], values: findingEntities })).map((relation) => [relation.id, relation]));
}

/** Whether a report row equals the stored one in every field it has (a stored row may carry the table's own `hid`). */
function sameReport(report: ReportRecord, stored: ReportRecord | undefined): boolean {
  if (stored === undefined) return false;
  return (Object.keys(report) as Array<keyof ReportRecord>).every((field) => JSON.stringify(report[field]) === JSON.stringify(stored[field]));
}

/**
 * The prefetch round of every community: its height in the community tree, counting only sub-communities the
 * index holds (those `run` waits for). A report's context reads only reports of lower rounds.
 */
function reportRounds(communities: ReadonlyArray<Pick<CommunityRecord, 'id' | 'children'>>): Map<string, number> {
  const byId = new Map(communities.map((community) => [community.id, community]));
  const rounds = new Map<string, number>();
  const roundOf = (community: Pick<CommunityRecord, 'id' | 'children'>, path: Set<string>): number => {
    const known = rounds.get(community.id);
    if (known !== undefined) return known;
    // A cycle cannot be built by the communities step; were one stored, its members wait on nothing here.
    path.add(community.id);
    let round = 0;
    for (const id of community.children) {
      const child = byId.get(id);
      if (child !== undefined && !path.has(id)) round = Math.max(round, roundOf(child, path) + 1);
    }
    path.delete(community.id);
    rounds.set(community.id, round);
    return round;
  };
  for (const community of communities) roundOf(community, new Set());
  return rounds;
}

/** Writes one LLM report at a time, given its sub-communities' reports: what `run` and `prefetch` share. */
interface LlmReportWriter {
  /** The report of `community` (a kept one, an LLM one, or an extractive one recording why the LLM's failed); `calls` were made one after another. */
  write(community: CommunityRecord, subReports: ReadonlyMap<string, ReportRecord>, model: LanguageModel): Promise<{ report: ReportRecord; calls: number }>;
  /** Whether the context of `community` substitutes sub-reports: its own rows do not fit the budget. */
  readsSubReports(community: CommunityRecord): boolean;
  /** The sub-communities of `community` that the index holds. */
  childrenOf(community: CommunityRecord): CommunityRecord[];
}

async function createLlmReportWriter(
  context: StepContext,
  bottomUp: readonly CommunityRecord[],
  sources: ReportSources & { relations: ReadonlyMap<string, RelationRecord> },
  extractive: (community: CommunityRecord) => ReportRecord,
  { withClaims, earlier, settingsHash }: { withClaims: boolean; earlier: EarlierReports; settingsHash: string },
): Promise<LlmReportWriter> {
  const { store, config, tokenizer } = context;
  const claims = new Map<string, ClaimRecord[]>();
  if (withClaims) {
    for (const claim of await store.table('claims').all()) {
      for (const entity of [claim.subject, claim.object]) {
        if (entity === null) continue;
        let list = claims.get(entity);
        if (!list) claims.set(entity, (list = []));
        list.push(claim);
      }
    }
  }
  const communitiesById = new Map(bottomUp.map((community) => [community.id, community]));
  // A report is written from its members' descriptions and its inner relations: its cached reply goes with any of their chunks.
  const hashes = await chunkTextHashes(store);
  const sourcesOf = (community: CommunityRecord): string[] =>
    hashes.of([...community.chunkIds, ...community.entityIds.flatMap((id) => sources.entities.get(id)?.chunkIds ?? [])]);
  const contextOf = (community: CommunityRecord, subReports: ReadonlyMap<string, ReportRecord> | undefined) =>
    buildCommunityReportContext({
      community,
      entities: sources.entities,
      relations: sources.relations,
      claims,
      ...(subReports === undefined ? {} : { subReports }),
      communities: communitiesById,
      tokenizer,
      maxTokens: config.reports.maxInputTokens,
    });
  return {
    // Without sub-reports a context is cut (`truncated`) exactly when its own rows do not fit; when they fit, the
    // context never reads the sub-reports.
    readsSubReports: (community) => contextOf(community, undefined).truncated,
    childrenOf: (community) => [...new Set(community.children)].flatMap((id) => communitiesById.get(id) ?? []),
    async write(community, subReports, model) {
      const reportContext = contextOf(community, subReports);
      const inputs = contentId('report-inputs', settingsHash, reportContext.fingerprint);
      const kept = earlier.take(inputs, community);
      if (kept) return { report: kept.generatedBy === 'llm' ? earlier.cite(kept, inputs, true, reportContext.labels) : kept, calls: 0 };
      const counted = withCallCount(model);
      const result = await generateCommunityReport(counted.model, {
        context: reportContext.text,
        maxWords: config.reports.maxWords,
        prompts: context.prompts,
        sources: sourcesOf(community),
        ...(context.signal === undefined ? {} : { abortSignal: context.signal }),
      });
      if (!result.ok) return { report: { ...extractive(community), rating: 0, error: result.error }, calls: counted.calls() };
      const { title, summary, findings, rating, ratingExplanation, fullContent } = result.report;
      const report = earlier.cite(
        { communityId: community.id, level: community.level, title, summary, findings, rating, ratingExplanation, fullContent, generatedBy: 'llm', error: null },
        inputs,
        false,
        reportContext.labels,
      );
      return { report, calls: counted.calls() };
    },
  };
}

async function llmReports(context: StepContext, llm: LanguageModel, bottomUp: readonly CommunityRecord[], writer: LlmReportWriter): Promise<{ reports: ReportRecord[]; criticalPath: number }> {
  const reports = new Map<string, ReportRecord>();
  // Calls on the longest chain ending in each community's report: its own calls after its sub-communities'.
  const chains = new Map<string, number>();
  let done = 0;
  // A community's report needs only its own sub-communities' reports, so each starts as soon as those are
  // done instead of after its whole level; `bottomUp` puts the deepest levels, the longest chains, first.
  const generated = await mapInDependencyOrder(
    bottomUp,
    { key: (community) => community.id, dependencies: (community) => community.children, concurrency: Math.max(1, context.config.llm.concurrency * 2), abortSignal: context.signal },
    async (community): Promise<ReportRecord> => {
      const { report, calls } = await writer.write(community, reports, llm);
      done++;
      context.progress(done, bottomUp.length, 'communities');
      reports.set(community.id, report);
      chains.set(community.id, calls + community.children.reduce((longest, child) => Math.max(longest, chains.get(child) ?? 0), 0));
      return report;
    },
  );
  let criticalPath = 0;
  for (const chain of chains.values()) criticalPath = Math.max(criticalPath, chain);
  return { reports: generated, criticalPath };
}
