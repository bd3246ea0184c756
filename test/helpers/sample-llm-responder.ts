import { readFileSync } from 'node:fs';
import { parseGraphTuples } from '../../src/extract/llm-graph/parse-graph-tuples.js';

/*
 * A deterministic stand-in for a real model over the sample corpus: extraction replies come from the
 * hand-written fixture (test/fixtures/llm), everything else (entity resolution, summaries, reports) is
 * answered by rules from the prompt itself. The reply depends only on the request, so it serves the
 * scripted fake and the fault-injecting HTTP mock alike, and a run through faults equals a clean run.
 */

interface FixtureEntry {
  format: 'json' | 'tuples';
  extract: string;
  glean: string;
}

interface Expectations {
  aliasGroups: string[][];
  derivedVariants: Array<{ name: string; canonical: string }>;
  mustNotMerge: string[][];
  keyEntities: Array<{ name: string; type: string }>;
  keyRelations: string[][];
  counts: { distinctEntitiesAfterMerge: number };
}

const fixtureDirectory = new URL('../fixtures/llm/', import.meta.url);
export const sampleExtraction = JSON.parse(readFileSync(new URL('sample-extraction.json', fixtureDirectory), 'utf8')) as Record<string, FixtureEntry>;
export const sampleExpectations = JSON.parse(readFileSync(new URL('expectations.json', fixtureDirectory), 'utf8')) as Expectations;

/** A chat request as both test doubles see it. */
export interface ResponderRequest {
  messages: ReadonlyArray<{ role: string; content: string }>;
}

const groupOfName = new Map<string, string>();
for (const group of sampleExpectations.aliasGroups) for (const name of group) groupOfName.set(name.toLowerCase(), group[0] as string);
for (const variant of sampleExpectations.derivedVariants) {
  const canonical = variant.canonical.toLowerCase();
  if (!groupOfName.has(canonical)) groupOfName.set(canonical, variant.canonical);
  groupOfName.set(variant.name.toLowerCase(), groupOfName.get(canonical) as string);
}

function documentOf(prompt: string): FixtureEntry | undefined {
  for (const [title, entry] of Object.entries(sampleExtraction)) {
    if (prompt.includes(`# ${title}\n`)) return entry;
  }
  return undefined;
}

/** The fixture reply in the format the request asked for (tuple replies converted for JSON requests). */
function inFormat(reply: string, format: FixtureEntry['format'], wantJson: boolean): string {
  if (!wantJson || format === 'json') return reply;
  const { graph } = parseGraphTuples(reply);
  return JSON.stringify({ entities: graph.entities, relationships: graph.relations });
}

function resolveEntities(prompt: string): string {
  const section = prompt.slice(prompt.lastIndexOf('---Entities---'), prompt.lastIndexOf('---Reminder---'));
  const records = [...section.matchAll(/^(\d+)\. ("(?:[^"\\\n]|\\.)*") \(/gm)].map((match) => ({ number: Number(match[1]), name: JSON.parse(match[2] as string) as string }));
  const clusters = new Map<string, Array<{ number: number; name: string }>>();
  for (const record of records) {
    const group = groupOfName.get(record.name.toLowerCase());
    if (!group) continue;
    let list = clusters.get(group);
    if (!list) clusters.set(group, (list = []));
    list.push(record);
  }
  return JSON.stringify({
    clusters: [...clusters.entries()]
      .filter(([, members]) => members.length > 1)
      .map(([canonical, members]) => ({
        ids: members.map((member) => member.number),
        canonical: (members.find((member) => member.name.toLowerCase() === canonical.toLowerCase()) ?? members[0])?.number,
      })),
  });
}

function summarize(prompt: string): string {
  const list = /Description list: (\[[\s\S]*?\])\s*$/m.exec(prompt)?.[1];
  const descriptions = list ? (JSON.parse(list) as string[]) : [];
  return descriptions.map((description) => description.replace(/\.$/, '')).join('; ') + '.';
}

function report(prompt: string): string {
  const entities = prompt.slice(prompt.lastIndexOf('-----Entities-----'));
  const titles = [...entities.matchAll(/^\d+,("?)([^,"]+)\1,/gm)].map((match) => match[2] as string).slice(0, 3);
  const title = titles.length > 0 ? titles.join(', ') : 'Kestermouth community';
  return JSON.stringify({
    title,
    summary: `This community centres on ${title}.`,
    rating: Math.min(10, 2 + titles.length * 2),
    rating_explanation: 'Importance follows the number of central entities.',
    findings: titles.map((name) => ({ summary: `${name} is central`, explanation: `${name} is connected to the rest of the community [Data: Entities (1)].` })),
  });
}

const openieSentinel = '\nParagraph:\n```\n';
const nonNames = new Set(['The', 'A', 'An', 'In', 'On', 'At', 'By', 'For', 'From', 'It', 'Its', 'He', 'She', 'They', 'This', 'That', 'After', 'Since', 'When', 'Below', 'Buses']);

/** The paragraph of an OpenIE prompt (its last fenced block). */
function openieParagraph(prompt: string): string {
  const start = prompt.lastIndexOf(openieSentinel) + openieSentinel.length;
  return prompt.slice(start, prompt.indexOf('\n```', start));
}

/** OpenIE NER by rule: runs of capitalized words, each once. */
function openieEntities(prompt: string): string {
  const names = [...openieParagraph(prompt).matchAll(/[A-Z][\p{L}'’-]*(?: (?:of |the )?[A-Z][\p{L}'’-]*)*/gu)].map((match) => match[0]);
  return JSON.stringify({ named_entities: [...new Set(names.filter((name) => !nonNames.has(name)))] });
}

/** OpenIE triples by rule: consecutive named entities of a sentence are linked. */
function openieTriples(prompt: string): string {
  const entities = (JSON.parse(prompt.slice(prompt.lastIndexOf('{"named_entities"'), prompt.lastIndexOf('}') + 1)) as { named_entities: string[] }).named_entities;
  const triples: string[][] = [];
  for (const sentence of openieParagraph(prompt).split(/(?<=[.!?])\s+/)) {
    const present = entities.filter((entity) => sentence.includes(entity));
    for (let index = 1; index < present.length; index++) triples.push([present[index - 1] as string, 'appears with', present[index] as string]);
  }
  return JSON.stringify({ triples });
}

/** AutoKG keyword extraction by rule: the most frequent capitalized names of the fragments, minus the avoid list. */
function autokgKeywords(prompt: string): string {
  const limit = Number(/at most (\d+) keywords/.exec(prompt)?.[1] ?? '10');
  const information = prompt.slice(prompt.indexOf("Information: '''"), prompt.lastIndexOf("'''"));
  const avoid = new Set((/appeared theme terms: <([^>]*)>/.exec(prompt)?.[1] ?? '').split(',').map((term) => term.trim().toLowerCase()));
  const counts = new Map<string, number>();
  for (const match of information.matchAll(/[A-Z][\p{L}'’-]*(?: [A-Z][\p{L}'’-]*){0,2}/gu)) {
    const name = match[0];
    if (nonNames.has(name) || name === 'Information' || avoid.has(name.toLowerCase())) continue;
    counts.set(name, (counts.get(name) ?? 0) + 1);
  }
  const ranked = [...counts.entries()].sort((left, right) => right[1] - left[1]).map(([name]) => name);
  return ranked.slice(0, limit).join(', ') + '.';
}

/** AutoKG refinement and final passes by rule: the list given, unchanged (a model with nothing to merge). */
function autokgEcho(prompt: string, marker: string): string {
  return prompt.slice(prompt.lastIndexOf(marker) + marker.length).replace(/\n(?:Output|Processed keywords):\s*$/, '').trim();
}

/** The first line of kgrag's repair turn (`generateObject`), sent after a reply that could not be used. */
const repairTurnStart = 'Your previous reply could not be used:';

/**
 * Answers one request of the standard pipeline over the sample corpus. A repair turn gets the reply the
 * original request would have had, as a model that follows the instruction would give.
 */
export function sampleLlmReply(request: ResponderRequest): string {
  const lastMessage = request.messages[request.messages.length - 1];
  if (lastMessage?.role === 'user' && lastMessage.content.startsWith(repairTurnStart) && request.messages.length >= 3) {
    return sampleLlmReply({ messages: request.messages.slice(0, -2) });
  }
  const first = request.messages.find((message) => message.role === 'user')?.content ?? '';
  const system = request.messages.find((message) => message.role === 'system')?.content ?? '';
  const last = [...request.messages].reverse().find((message) => message.role === 'user')?.content ?? '';
  const all = `${system}\n${first}`;
  if (first.includes('Please avoid the following already appeared theme terms')) return autokgKeywords(first);
  if (first.startsWith('You will be given a list of keywords. Process it')) return autokgEcho(first, '\nInput: ');
  if (first.startsWith('You will be given a list of keywords separated by commas.')) return autokgEcho(first, '\nKeywords: ');
  if (first.includes(openieSentinel) && first.includes('{"named_entities": [...]}')) return openieEntities(first);
  if (first.includes(openieSentinel) && first.includes('{"triples": [[subject, predicate, object], ...]}')) return openieTriples(first);
  const entry = documentOf(first) ?? documentOf(system);
  if (entry && /entit/i.test(all) && /relationship/i.test(all)) {
    const assistantTurns = request.messages.filter((message) => message.role === 'assistant').length;
    const wantJson = /"relationships"/.test(all) && !/<\|>/.test(all);
    if (assistantTurns === 0) return inFormat(entry.extract, entry.format, wantJson);
    if (/\bY\b.*\bN\b|answer Y or N|single letter/i.test(last) && assistantTurns >= 2) return 'N';
    return inFormat(entry.glean, entry.format, wantJson);
  }
  if (all.includes('{"clusters"')) return resolveEntities(all);
  if (all.includes('Description list:')) return summarize(all);
  if (all.includes('-----Entities-----') || all.includes('-----Reports-----')) return report(all);
  if (/claim/i.test(all)) return JSON.stringify({ claims: [] });
  return 'N';
}
