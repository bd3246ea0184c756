import { contentId } from '../../core/ids.js';
import type { ClaimRecord, CommunityRecord, EntityRecord, RelationRecord, ReportRecord } from '../../core/types.js';
import type { Tokenizer } from '../../text/tokenizer.js';
import { csvRow } from './csv-row.js';

/** What a community report's context is built from. */
export interface CommunityReportContextInput {
  community: CommunityRecord;
  entities: ReadonlyMap<string, EntityRecord>;
  relations: ReadonlyMap<string, RelationRecord>;
  /** Claims by the id of an entity they concern (subject or object). */
  claims?: ReadonlyMap<string, readonly ClaimRecord[]>;
  /** Reports already generated for deeper levels, by community id. */
  subReports?: ReadonlyMap<string, ReportRecord>;
  /** Community records by id, to read the members of `community.children`; substitution needs it. */
  communities?: ReadonlyMap<string, CommunityRecord>;
  tokenizer: Tokenizer;
  /** Token budget of the context (config `reports.maxInputTokens`, GraphRAG max_input_length: 8000). */
  maxTokens: number;
}

/** A report context and what it holds. */
export interface CommunityReportContext {
  /** CSV sections `-----Reports-----`, `-----Entities-----`, `-----Relationships-----`, `-----Claims-----` (empty ones left out). */
  text: string;
  /** `tokenizer.count(text)`; never above `maxTokens`. */
  tokens: number;
  /** Communities whose report stands in the context, largest first. */
  usedSubReports: string[];
  /** True when some of the community's entities, relationships, claims or sub-reports are missing from the context. */
  truncated: boolean;
  entityIds: string[];
  relationIds: string[];
  claimIds: string[];
  /** `hid`s of the entities and relationships in the context (those that have one): the ids the report may cite. */
  entityHids: number[];
  relationHids: number[];
  /** Every row's table, the number the context shows for it (`human_readable_id`) and its record id. */
  labels: Array<{ table: Kind; label: string; id: string }>;
  /**
   * A hash of what the context tells the model: the set of its rows, each by kind, record id and text, without
   * the display numbers (`human_readable_id`, which shift when rows are inserted before them) and the degree
   * columns (which change whenever an entity gains an edge anywhere in the graph) and regardless of row order.
   * Two contexts with equal fingerprints hold the same entities, relationships, claims and sub-reports with
   * the same texts, so a report written from one stands for the other.
   */
  fingerprint: string;
}

type Kind = 'reports' | 'entities' | 'relationships' | 'claims';

const sectionOrder: readonly Kind[] = ['reports', 'entities', 'relationships', 'claims'];

const sectionHeads: Readonly<Record<Kind, string>> = {
  reports: '-----Reports-----\nhuman_readable_id,full_content',
  entities: '-----Entities-----\nhuman_readable_id,title,type,description,degree',
  relationships: '-----Relationships-----\nhuman_readable_id,source,target,description,combined_degree',
  claims: '-----Claims-----\nhuman_readable_id,subject,object,type,status,description',
};

interface Row {
  kind: Kind;
  id: string;
  hid: number | undefined;
  /** The number the context shows for the row (its first column). */
  label: string;
  text: string;
  /** What the row says, without its display number and degree columns: what the fingerprint hashes. */
  content: string;
}

/** Rows added together: an edge with its new endpoint rows and their claims, one entity, or one sub-report. */
type Step = readonly Row[];

/**
 * The context of one community report, after GraphRAG's `build_local_context`, `sort_context` and
 * `build_mixed_context` (microsoft/graphrag `index/operations/summarize_communities/`):
 *
 * 1. **Local context.** The community's relationships with both ends among its entities, sorted by
 *    `combinedDegree` descending then id, are added one at a time together with their source and target
 *    entity rows (first time seen) and those entities' claims. **Every** such relationship is eligible —
 *    GraphRAG's aggregation keeps at most one edge per node, a bug not copied. Entities without any edge
 *    follow, by degree then id (GraphRAG leaves them out). Growth stops at the first addition that would
 *    exceed `maxTokens`.
 * 2. **Fits?** If the whole local context fits, it is the context.
 * 3. **Substitution.** Otherwise, if sub-communities (`community.children` found in `communities`) have
 *    reports, the largest sub-communities (by size, then id) are replaced one at a time by their report's
 *    `full_content` in a `-----Reports-----` section: their inner relationships and their entities' rows
 *    leave the raw context (edges between sub-communities stay). The first mix that fits is the context.
 * 4. **Packing.** If none fits, sub-reports are packed largest first, each that fits, then the raw context
 *    of what they do not cover fills the rest in priority order; without sub-reports the local context is
 *    cut by priority. Either way `truncated` is true.
 *
 * Rows are CSV with the records' `hid` as `human_readable_id` (the id itself when a record has none);
 * descriptions are put on one line. Token counts of rows are summed while growing, then the final text is
 * counted exactly and the last additions are removed until it fits, so `tokens ≤ maxTokens` always holds.
 */
export function buildCommunityReportContext(input: CommunityReportContextInput): CommunityReportContext {
  const { community, entities, relations, tokenizer, maxTokens } = input;
  const members = unique(community.entityIds).flatMap((id) => {
    const entity = entities.get(id);
    return entity ? [entity] : [];
  });
  const memberIds = new Set(members.map((entity) => entity.id));
  const edges = unique(community.relationIds)
    .flatMap((id) => {
      const relation = relations.get(id);
      return relation && memberIds.has(relation.source) && memberIds.has(relation.target) ? [relation] : [];
    })
    .sort((left, right) => right.combinedDegree - left.combinedDegree || compare(left.id, right.id));

  const titleOf = (id: string): string => entities.get(id)?.title ?? id;
  const entityRow = (entity: EntityRecord): Row => {
    const fields = [entity.title, entity.type, oneLine(entity.description)];
    const label = String(entity.hid ?? entity.id);
    return { kind: 'entities', id: entity.id, hid: entity.hid, label, text: csvRow([label, ...fields, entity.degree]), content: csvRow(fields) };
  };
  const claimRow = (claim: ClaimRecord): Row => {
    const fields = [titleOf(claim.subject), claim.object === null ? '' : titleOf(claim.object), claim.type, claim.status, oneLine(claim.description)];
    const label = String(claim.hid ?? claim.id);
    return { kind: 'claims', id: claim.id, hid: claim.hid, label, text: csvRow([label, ...fields]), content: csvRow(fields) };
  };
  const relationRow = (relation: RelationRecord): Row => {
    const fields = [titleOf(relation.source), titleOf(relation.target), oneLine(relation.description)];
    const label = String(relation.hid ?? relation.id);
    return { kind: 'relationships', id: relation.id, hid: relation.hid, label, text: csvRow([label, ...fields, relation.combinedDegree]), content: csvRow(fields) };
  };
  const reportRow = (child: CommunityRecord, report: ReportRecord): Row => {
    const label = String(report.hid ?? child.hid ?? child.id);
    return { kind: 'reports', id: child.id, hid: report.hid, label, text: csvRow([label, report.fullContent]), content: report.fullContent };
  };

  /** The local context in priority order, leaving out what the sub-communities in `covered` report on. */
  const localSteps = (covered: ReadonlyMap<string, string>): Step[] => {
    const seenEntities = new Set<string>();
    const seenClaims = new Set<string>();
    const entityRows = (id: string): Row[] => {
      const entity = entities.get(id);
      if (!entity || covered.has(id) || seenEntities.has(id)) return [];
      seenEntities.add(id);
      const rows = [entityRow(entity)];
      for (const claim of input.claims?.get(id) ?? []) {
        if (seenClaims.has(claim.id)) continue;
        seenClaims.add(claim.id);
        rows.push(claimRow(claim));
      }
      return rows;
    };
    const steps: Step[] = [];
    for (const relation of edges) {
      const sourceChild = covered.get(relation.source);
      if (sourceChild !== undefined && sourceChild === covered.get(relation.target)) continue;
      steps.push([...entityRows(relation.source), ...entityRows(relation.target), relationRow(relation)]);
    }
    const isolated = members.filter((entity) => !seenEntities.has(entity.id) && !covered.has(entity.id));
    isolated.sort((left, right) => right.degree - left.degree || compare(left.id, right.id));
    for (const entity of isolated) steps.push(entityRows(entity.id));
    return steps;
  };

  const counter = new TokenCounter(tokenizer);
  const result = (steps: readonly Step[], truncated: boolean): CommunityReportContext => {
    const rows = steps.flat();
    const text = render(rows);
    const pick = (kind: Kind): Row[] => rows.filter((row) => row.kind === kind);
    const hids = (kind: Kind): number[] => pick(kind).flatMap((row) => (row.hid === undefined ? [] : [row.hid]));
    return {
      text,
      tokens: tokenizer.count(text),
      usedSubReports: pick('reports').map((row) => row.id),
      truncated,
      entityIds: pick('entities').map((row) => row.id),
      relationIds: pick('relationships').map((row) => row.id),
      claimIds: pick('claims').map((row) => row.id),
      entityHids: hids('entities'),
      relationHids: hids('relationships'),
      labels: rows.map((row) => ({ table: row.kind, label: row.label, id: row.id })),
      fingerprint: contentId('report-context', rows.map((row) => `${row.kind}\u0000${row.id}\u0000${row.content}`).sort()),
    };
  };
  // The estimate only screens out contexts far over budget; the decision is the exact count.
  const fitsWhole = (steps: readonly Step[]): boolean =>
    counter.estimate(steps) <= maxTokens * 1.1 + 16 && tokenizer.count(render(steps.flat())) <= maxTokens;

  const local = localSteps(new Map());
  if (fitsWhole(local)) return result(local, false);

  const children = unique(community.children)
    .flatMap((id) => {
      const child = input.communities?.get(id);
      const report = input.subReports?.get(id);
      return child && report ? [{ child, report }] : [];
    })
    .sort((left, right) => right.child.size - left.child.size || compare(left.child.id, right.child.id));
  const coverageOf = (chosen: ReadonlyArray<{ child: CommunityRecord }>): Map<string, string> => {
    const covered = new Map<string, string>();
    for (const { child } of chosen) for (const id of child.entityIds) if (memberIds.has(id) && !covered.has(id)) covered.set(id, child.id);
    return covered;
  };
  for (let count = 1; count <= children.length; count++) {
    const chosen = children.slice(0, count);
    const mixed = [...chosen.map(({ child, report }): Step => [reportRow(child, report)]), ...localSteps(coverageOf(chosen))];
    if (fitsWhole(mixed)) return result(mixed, false);
  }

  const packer = new ContextPacker(counter, maxTokens);
  const packedChildren: Array<{ child: CommunityRecord }> = [];
  for (const { child, report } of children) if (packer.add([reportRow(child, report)])) packedChildren.push({ child });
  for (const step of localSteps(coverageOf(packedChildren))) if (!packer.add(step)) break;
  const packed = [...packer.steps];
  while (packed.length > 0 && tokenizer.count(render(packed.flat())) > maxTokens) packed.pop();
  return result(packed, true);
}

/** Grows a context step by step while its estimated size stays within the budget. */
class ContextPacker {
  readonly steps: Step[] = [];
  private readonly open = new Set<Kind>();
  private used = 0;

  constructor(
    private readonly counter: TokenCounter,
    private readonly maxTokens: number,
  ) {}

  /** Adds `step` if it fits, and says whether it did. */
  add(step: Step): boolean {
    const opened = new Set<Kind>();
    let cost = 0;
    for (const row of step) {
      cost += this.counter.count(`${row.text}\n`);
      if (!this.open.has(row.kind) && !opened.has(row.kind)) {
        opened.add(row.kind);
        cost += this.counter.head(row.kind);
      }
    }
    if (this.used + cost > this.maxTokens) return false;
    this.used += cost;
    for (const kind of opened) this.open.add(kind);
    this.steps.push(step);
    return true;
  }
}

/** Sums per-row token counts (cached) to estimate a context before counting it exactly. */
class TokenCounter {
  private readonly cache = new Map<string, number>();

  constructor(private readonly tokenizer: Tokenizer) {}

  /** Tokens of a section's title and header lines, with the blank line before them. */
  head(kind: Kind): number {
    return this.count(`\n\n${sectionHeads[kind]}\n`);
  }

  /** Estimated tokens of the whole context made of `steps`. */
  estimate(steps: readonly Step[]): number {
    const rows = steps.flat();
    let total = 0;
    for (const kind of new Set(rows.map((row) => row.kind))) total += this.head(kind);
    for (const row of rows) total += this.count(`${row.text}\n`);
    return total;
  }

  count(text: string): number {
    let tokens = this.cache.get(text);
    if (tokens === undefined) {
      tokens = this.tokenizer.count(text);
      this.cache.set(text, tokens);
    }
    return tokens;
  }
}

function render(rows: readonly Row[]): string {
  const sections: string[] = [];
  for (const kind of sectionOrder) {
    const lines = rows.filter((row) => row.kind === kind).map((row) => row.text);
    if (lines.length > 0) sections.push(`${sectionHeads[kind]}\n${lines.join('\n')}`);
  }
  return sections.join('\n\n');
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

function unique(ids: readonly string[]): string[] {
  return [...new Set(ids)];
}

function compare(left: string, right: string): number {
  return left < right ? -1 : left > right ? 1 : 0;
}
