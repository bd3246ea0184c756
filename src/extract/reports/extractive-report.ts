import type { ChunkRecord, CommunityRecord, EntityRecord, RelationRecord, ReportFinding, ReportRecord } from '../../core/types.js';
import { splitSentences } from '../../text/sentences.js';
import { plainSentence } from '../../text/plain-sentence.js';

/*
 * Community reports without an LLM (SPEC §4.3): the structure of GraphRAG's report (title, summary,
 * findings, rating, full_content) filled with the community's most central entities and the sentences
 * of its chunks that mention the most of them — every word is quoted from the corpus, nothing invented.
 */

/** Options of {@link buildExtractiveReport}. */
export interface ExtractiveReportOptions {
  /** Findings per report. @default 5 */
  maxFindings?: number;
  /** Chunks read per community, those mentioning the most members first. @default {@link extractiveMaxChunks} */
  maxChunks?: number;
  /** Sentences in the summary. @default 2 */
  summarySentences?: number;
  /**
   * The degrees and frequencies that order members, sentences and neighbours, by entity id, where they are not the
   * entities' own: an update orders by the figures of the last refresh (see the reports step). An entity missing
   * from it orders by its own. The rating always reads the entities' own degrees.
   */
  ordering?: ReadonlyMap<string, EntityOrdering>;
  /**
   * Communities' members already ranked by {@link extractiveMemberOrder} with the same `ordering`, by community id: a
   * caller that ranked them to load only the findings' relations passes them, so that they are not ranked twice.
   */
  memberOrders?: ReadonlyMap<string, readonly EntityRecord[]>;
  /**
   * Communities' chunks already chosen by {@link extractiveChunkOrder} with the same `maxChunks`, by community id: a caller
   * that chose them to load only those chunks passes them, so that they are not chosen twice.
   */
  chunkOrders?: ReadonlyMap<string, readonly string[]>;
}

/**
 * Names what {@link createExtractiveReporter} writes from the same inputs: a report stored under another version is
 * written again rather than kept (2: sentences of equal score rank in the community's own reading order).
 */
export const extractiveReporterVersion = 2;

/** The chunks an extractive report reads at most, by default. */
export const extractiveMaxChunks = 40;

/** What orders an entity in an extractive report: its degree, then its frequency. */
export interface EntityOrdering {
  degree: number;
  frequency: number;
}

/** The graph and text a report is built from. */
export interface ReportSources {
  entities: ReadonlyMap<string, EntityRecord>;
  /**
   * Only the endpoints are read: a caller without an LLM loads no more of the relations. An extractive report reads
   * only the relations of its findings' entities (its first `maxFindings` members in {@link extractiveMemberOrder}): a
   * caller may load just those.
   */
  relations: ReadonlyMap<string, Pick<RelationRecord, 'source' | 'target'>>;
  chunks: ReadonlyMap<string, ChunkRecord>;
}

/**
 * A community's members in the order an extractive report ranks them: by degree, then frequency (of `ordering` where it
 * has the entity), then id. Members missing from `entities` are left out.
 */
export function extractiveMemberOrder(
  community: Pick<CommunityRecord, 'entityIds'>,
  entities: ReadonlyMap<string, EntityRecord>,
  ordering?: ReadonlyMap<string, EntityOrdering>,
): EntityRecord[] {
  // Each member's figures looked up once, not in every comparison: a top-level community has thousands of members.
  const keyed: Array<{ entity: EntityRecord; degree: number; frequency: number }> = [];
  for (const id of community.entityIds) {
    const entity = entities.get(id);
    if (entity === undefined) continue;
    const { degree, frequency } = ordering?.get(id) ?? entity;
    keyed.push({ entity, degree, frequency });
  }
  keyed.sort((left, right) => right.degree - left.degree || right.frequency - left.frequency || (left.entity.id < right.entity.id ? -1 : 1));
  return keyed.map((member) => member.entity);
}

/**
 * The chunks an extractive report reads: the community's chunks that mention the most of its members, at most
 * `maxChunks`, ties by chunk id.
 */
export function extractiveChunkOrder(community: Pick<CommunityRecord, 'chunkIds'>, members: readonly Pick<EntityRecord, 'chunkIds'>[], maxChunks: number): string[] {
  const communityChunks = new Set(community.chunkIds);
  const mentionsPerChunk = new Map<string, number>();
  for (const entity of members) {
    for (const chunkId of entity.chunkIds) if (communityChunks.has(chunkId)) mentionsPerChunk.set(chunkId, (mentionsPerChunk.get(chunkId) ?? 0) + 1);
  }
  return [...mentionsPerChunk.keys()]
    .sort((left, right) => (mentionsPerChunk.get(right) as number) - (mentionsPerChunk.get(left) as number) || (left < right ? -1 : 1))
    .slice(0, maxChunks);
}

interface ScoredSentence {
  text: string;
  score: number;
  members: Set<string>;
  order: number;
}

const maxSentenceLength = 500;

const wordCharacter = /[\p{L}\p{N}]/u;

/**
 * Whether `lowerText` names `lowerName` as whole words. A plain scan with boundary checks: compiling a
 * Unicode-aware regular expression per entity dominated report building on 8k entities.
 */
function namesEntity(lowerText: string, lowerNames: readonly string[]): boolean {
  for (const name of lowerNames) {
    let from = lowerText.indexOf(name);
    while (from !== -1) {
      const before = from === 0 ? '' : (lowerText[from - 1] as string);
      const after = lowerText[from + name.length] ?? '';
      if ((before === '' || !wordCharacter.test(before)) && (after === '' || !wordCharacter.test(after))) return true;
      from = lowerText.indexOf(name, from + 1);
    }
  }
  return false;
}

function joinTitles(titles: readonly string[]): string {
  if (titles.length <= 1) return titles[0] ?? 'Community';
  return `${titles.slice(0, -1).join(', ')} and ${titles[titles.length - 1]}`;
}

/**
 * The raw rating of an extractive report: the log of its members' total degree, summed in the order given (`degreeOf`
 * of a member: its degree, 0 for one not in the graph). Callers rescale the ratings of all reports to 0–10, so a kept
 * report is re-rated with the others; members may be ids or numbers, as long as the sum runs in the same order.
 */
export function extractiveRating<Member>(members: Iterable<Member>, degreeOf: (member: Member) => number): number {
  let totalDegree = 0;
  for (const member of members) totalDegree += degreeOf(member);
  return Math.log(1 + totalDegree);
}

/** Renders a report as GraphRAG's markdown `full_content`. */
export function reportMarkdown(title: string, summary: string, findings: readonly ReportFinding[]): string {
  const sections = findings.map((finding) => `## ${finding.summary}\n\n${finding.explanation}`);
  return [`# ${title}`, summary, ...sections].join('\n\n');
}

interface ChunkSentence {
  text: string;
  /** Entities named in the sentence. */
  entityIds: string[];
}

/**
 * Creates a report builder over one graph. Sentences of each chunk, and the entities each sentence
 * names, are found once per chunk and shared by every community (and level) that reads the chunk.
 * The `rating` of a report is the raw importance (log of its members' total degree); callers rescale
 * ratings to 0–10 across all communities.
 */
export function createExtractiveReporter(sources: ReportSources, options: ExtractiveReportOptions = {}): (community: CommunityRecord) => ReportRecord {
  const maxFindings = options.maxFindings ?? 5;
  const maxChunks = options.maxChunks ?? extractiveMaxChunks;
  const summarySentences = options.summarySentences ?? 2;
  const ordering = options.ordering;
  const orderOf = (entity: EntityRecord): EntityOrdering => ordering?.get(entity.id) ?? entity;
  // Only chunks the sources hold have sentences to read: a caller may load just the ones its reports read.
  const entitiesByChunk = new Map<string, EntityRecord[]>();
  for (const entity of sources.entities.values()) {
    for (const chunkId of entity.chunkIds) {
      if (!sources.chunks.has(chunkId)) continue;
      let list = entitiesByChunk.get(chunkId);
      if (!list) entitiesByChunk.set(chunkId, (list = []));
      list.push(entity);
    }
  }
  const names = new Map<string, string[]>();
  const namesOf = (entity: EntityRecord): string[] => {
    let list = names.get(entity.id);
    if (!list) {
      list = [entity.title, ...entity.aliases].filter((name) => name.length >= 2).map((name) => name.toLowerCase());
      names.set(entity.id, list);
    }
    return list;
  };
  // The other end of each of an entity's relations, in relation id order (the order a community lists its relations
  // in), built once on first use: a hub is a finding of its community at every level, and each level reads its
  // thousands of neighbours without looking a relation up.
  let otherEnds: Map<string, string[]> | undefined;
  const otherEndsOf = (entityId: string): readonly string[] => {
    if (otherEnds === undefined) {
      const ends = new Map<string, string[]>();
      const add = (entity: string, other: string): void => {
        const list = ends.get(entity);
        if (list === undefined) ends.set(entity, [other]);
        else list.push(other);
      };
      for (const id of [...sources.relations.keys()].sort()) {
        const { source, target } = sources.relations.get(id) as Pick<RelationRecord, 'source' | 'target'>;
        add(source, target);
        if (target !== source) add(target, source);
      }
      otherEnds = ends;
    }
    return otherEnds.get(entityId) ?? [];
  };
  // A member's weight in sentence scores depends on the entity alone: computed once, for the members sentences mention.
  const weights = new Map<string, number>();
  const weightOf = (entityId: string): number => {
    let weight = weights.get(entityId);
    if (weight === undefined) {
      const entity = sources.entities.get(entityId);
      weight = entity === undefined ? 0 : Math.log(2 + orderOf(entity).degree);
      weights.set(entityId, weight);
    }
    return weight;
  };
  const sentenceCache = new Map<string, ChunkSentence[]>();
  const sentencesOf = (chunkId: string): ChunkSentence[] => {
    let sentences = sentenceCache.get(chunkId);
    if (sentences) return sentences;
    sentences = [];
    const chunk = sources.chunks.get(chunkId);
    const named = entitiesByChunk.get(chunkId) ?? [];
    if (chunk && named.length > 0) {
      const namedNames = named.map(namesOf);
      for (const span of splitSentences(chunk.text)) {
        // Prose, as entity descriptions are: a heading the sentence splitter glued to it, list markers and emphasis left out.
        const raw = plainSentence(chunk.text.slice(span.start, span.end));
        if (raw.length < 20) continue;
        // List items and headlines have no closing punctuation; joined into prose they would run into the next sentence.
        const text = /[.!?…]["'”’)\]]?$/u.test(raw) ? raw : `${raw}.`;
        const lower = text.toLowerCase();
        const entityIds: string[] = [];
        for (let index = 0; index < named.length; index++) if (namesEntity(lower, namedNames[index] as string[])) entityIds.push((named[index] as EntityRecord).id);
        if (entityIds.length > 0) {
          sentences.push({ text: text.length > maxSentenceLength ? `${text.slice(0, maxSentenceLength - 1)}…` : text, entityIds });
        }
      }
    }
    sentenceCache.set(chunkId, sentences);
    return sentences;
  };

  return (community) => {
    const members = options.memberOrders?.get(community.id) ?? extractiveMemberOrder(community, sources.entities, ordering);
    const memberIds = new Set<string>();
    for (const entity of members) memberIds.add(entity.id);

    const chunkIds = options.chunkOrders?.get(community.id) ?? extractiveChunkOrder(community, members, maxChunks);

    const sentences: ScoredSentence[] = [];
    const seen = new Set<string>();
    for (const chunkId of chunkIds) {
      for (const sentence of sentencesOf(chunkId)) {
        const mentioned = new Set(sentence.entityIds.filter((id) => memberIds.has(id)));
        if (mentioned.size === 0 || seen.has(sentence.text)) continue;
        seen.add(sentence.text);
        let score = 0;
        for (const id of mentioned) score += weightOf(id);
        // Ties rank in the community's own reading order (its chunks as chosen, then the text's): not in the order the
        // reporter first split the chunks, which depends on the communities reported before this one in the run.
        sentences.push({ text: sentence.text, score, members: mentioned, order: sentences.length });
      }
    }
    const ranked = [...sentences].sort((left, right) => right.score - left.score || left.order - right.order);
    const used = new Set<string>();
    const summaryParts = ranked.slice(0, summarySentences).map((sentence) => {
      used.add(sentence.text);
      return sentence.text;
    });
    const top = members.slice(0, maxFindings);
    // Names make better titles than common noun phrases ("civil engineer").
    const named: EntityRecord[] = [];
    for (const entity of members) {
      if (named.length === 3) break;
      if (entity.type !== 'noun phrase') named.push(entity);
    }
    const title = joinTitles((named.length > 0 ? named : members.slice(0, 3)).map((entity) => entity.title));
    const summary =
      summaryParts.length > 0
        ? summaryParts.join(' ')
        : `A group of ${members.length} related entities: ${joinTitles(members.slice(0, 6).map((entity) => entity.title))}.`;

    // Only the findings' entities name their neighbours, met through their own relations: a relation inside the
    // community is one whose two ends are members. Walking the community's inner relations instead (a top-level
    // community lists tens of thousands, and every level lists them again) cost most of the reports. They are met in
    // id order, the order the community lists them in: among equal degrees, neighbours are named in that order.
    const neighbours = new Map(
      top.map((entity) => {
        // The entity is a member: a relation is inside the community when its other end is one too.
        const met = new Set<string>();
        for (const other of otherEndsOf(entity.id)) if (memberIds.has(other)) met.add(other);
        return [entity.id, met];
      }),
    );
    const findings: ReportFinding[] = top.map((entity) => {
      const evidence = ranked.find((sentence) => sentence.members.has(entity.id) && !used.has(sentence.text));
      if (evidence) used.add(evidence.text);
      const related = [...(neighbours.get(entity.id) ?? [])]
        .map((id) => sources.entities.get(id))
        .filter((neighbour): neighbour is EntityRecord => neighbour !== undefined)
        .sort((left, right) => orderOf(right).degree - orderOf(left).degree)
        .slice(0, 4)
        .map((neighbour) => neighbour.title);
      const explanation = [evidence?.text ?? entity.description, related.length > 0 ? `Connected here to ${joinTitles(related)}.` : '']
        .filter((part) => part.length > 0)
        .join(' ');
      return { summary: `${entity.title} (${entity.type})`, explanation };
    });

    return {
      communityId: community.id,
      level: community.level,
      title,
      summary,
      findings,
      rating: extractiveRating(community.entityIds, (id) => sources.entities.get(id)?.degree ?? 0),
      ratingExplanation: `Connectivity, not a judgement of importance: no language model rated this report. The score grows with the log of the members' total degree, on a 0–10 scale whose 10 is the best-connected community at the last refresh; ${members.length} entities, ${community.relationIds.length} relations inside it.`,
      fullContent: reportMarkdown(title, summary, findings),
      generatedBy: 'extractive',
      error: null,
    };
  };
}
