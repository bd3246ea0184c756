import { builtInPrompts } from '../../src/core/prompt-library.js';
import { createInMemoryKnowledgeGraph, type InMemoryGraphData, type InMemoryKnowledgeGraph } from '../../src/methods/tot/kg/in-memory-knowledge-graph.js';
import type { ChatRequest } from '../../src/providers/llm/language-model.js';
import { createScriptedLanguageModel, type ScriptedLanguageModel } from '../../src/providers/llm/scripted-language-model.js';
import type { TraversalContext } from '../../src/methods/tot/traversal-context.js';
import type { KnowledgeGraph } from '../../src/methods/tot/kg/knowledge-graph.js';

/*
 * The Tree-of-Traversals test world, with the ids and labels of test/fixtures/wikidata-mini.ttl so that the
 * same scripts can run against the SPARQL fixture: The Lantern Keeper is a film (Q100, directed by Q200 Mara
 * Ellison, whose father is Q201 Thomas Ellison) and a novel (Q101, by Q12 Edwin Marsh); Q1 "Kester" is an
 * id that prefixes Q12.
 */

/** The in-memory Lantern Keeper graph; `overrides` can add an `onCall` fault or change the name. */
export function lanternKeeperGraph(overrides: Partial<InMemoryGraphData> = {}): InMemoryKnowledgeGraph {
  return createInMemoryKnowledgeGraph({
    name: 'wikidata',
    entities: [
      { id: 'Q100', label: 'The Lantern Keeper', description: '1954 film' },
      { id: 'Q101', label: 'The Lantern Keeper', description: 'novel by Edwin Marsh' },
      { id: 'Q200', label: 'Mara Ellison', description: 'British film director', aliases: ['M. Ellison'] },
      { id: 'Q201', label: 'Thomas Ellison', description: 'British shipwright' },
      { id: 'Q12', label: 'Edwin Marsh', description: 'English novelist', aliases: ['E. Marsh'] },
      { id: 'Q1', label: 'Kester', description: 'river' },
    ],
    properties: { P22: 'father', P50: 'author', P57: 'director', P577: 'publication date' },
    statements: [
      { subject: 'Q100', property: 'P57', object: 'Q200' },
      { subject: 'Q100', property: 'P577', value: '1954' },
      { subject: 'Q200', property: 'P22', object: 'Q201' },
      { subject: 'Q101', property: 'P50', object: 'Q12' },
    ],
    ...overrides,
  });
}

/** The question the two-hop tests ask. */
export const twoHopQuestion = 'Who was the father of the director of The Lantern Keeper?';

/** The trajectory of the answer {@link twoHopPolicy} leads to. */
export const twoHopTrajectory: readonly string[] = [
  'EXPAND: I should search for the director of The Lantern Keeper',
  'SELECT_ENTITIES: [Q100]',
  'SELECT_RELATION: P57 - has director',
  'Observation: 1 new entities, 1 new edges added',
  'EXPAND: I should search for the father of Mara Ellison',
  'SELECT_ENTITIES: [Q200]',
  'SELECT_RELATION: P22 - has father',
  'Observation: 1 new entities, 1 new edges added',
  'ANSWER: Thomas Ellison',
];

/** The text of a request's (only) user message. */
export const promptOf = (request: ChatRequest): string => request.messages.find((message) => message.role === 'user')?.content ?? '';

/** The trajectory block of a traversal prompt (between "Previous actions:" and the next blank line). */
export function trajectoryOf(prompt: string): string[] {
  const at = prompt.indexOf('Previous actions:\n');
  if (at < 0) return [];
  const block = prompt.slice(at + 'Previous actions:\n'.length).split('\n\n')[0] ?? '';
  return block.split('\n').filter((line) => line.length > 0);
}

/** What a scripted policy sees of a request. */
export interface PolicyRequest {
  purpose: string;
  prompt: string;
  trajectory: string[];
  /** Whether a trajectory line contains `text`. */
  has(text: string): boolean;
  /** The sample's seed minus the base seed (0 for the first sample of a group). */
  sample: number;
  request: ChatRequest;
}

/** What a policy sees of a call with `purpose`, `prompt` and `seed`. */
function policyRequest(purpose: string, prompt: string, seed: number | undefined, baseSeed: number, request: ChatRequest): PolicyRequest {
  const trajectory = trajectoryOf(prompt);
  return { purpose, prompt, trajectory, has: (text) => trajectory.some((line) => line.includes(text)), sample: (seed ?? baseSeed) - baseSeed, request };
}

/** A scripted model whose replies come from `policy`, keyed by the call's purpose and prompt. */
export function scriptedPolicy(policy: (request: PolicyRequest) => string, baseSeed = 42): ScriptedLanguageModel {
  return createScriptedLanguageModel({
    responses: [{ reply: (request) => policy(policyRequest(request.purpose ?? '', promptOf(request), request.seed, baseSeed, request)) }],
  });
}

/**
 * The policy of a competent model on the two-hop question: the film, its director (P57), his father (P22),
 * then the answer; states rated 0.8, the answer 1.0 after reasoning that quotes other numbers.
 */
export function twoHopPolicy({ purpose, prompt, has }: PolicyRequest): string {
  switch (purpose) {
    case 'tot-extract-entities':
      return 'The Lantern Keeper - film';
    case 'tot-match-entity':
      return prompt.includes('1: The Lantern Keeper (1954 film)') ? '1' : 'None';
    case 'tot-action':
      if (has('SELECT_RELATION: P22')) return 'ANSWER: Thomas Ellison';
      if (has('SELECT_RELATION: P57')) return 'EXPAND: I should search for the father of Mara Ellison';
      return 'EXPAND: I should search for the director of The Lantern Keeper';
    case 'tot-select-entities':
      return has('SELECT_RELATION: P57') ? 'Q200' : 'Q100';
    case 'tot-select-relation':
      return prompt.includes('The selected entities are: Mara Ellison') ? 'P22' : 'P57';
    case 'tot-evaluate-state':
      return 'RATING: 0.8';
    case 'tot-evaluate-answer':
      return 'The film Q100 was directed by Mara Ellison (0.7 would mean probably correct), whose father is Thomas Ellison.\nSo the score for the provided answer should be high.\nRATING: 1.0';
    case 'tot-answer':
      return 'THOUGHT: Mara Ellison directed it and her father is Thomas Ellison.\nANSWER: Thomas Ellison';
    default:
      throw new Error(`unexpected purpose ${purpose}`);
  }
}

/**
 * The backtracking scenario (k = 2, "Who directed The Lantern Keeper?"): the root's EXPAND towards the
 * publication date rates 0.9, its THINK 0.7; the date branch reaches P577 and rates 0.2, so the THINK leaf
 * is expanded next and leads to the director.
 */
export function backtrackingPolicy({ purpose, trajectory, has, sample }: PolicyRequest): string {
  const last = trajectory.at(-1) ?? '';
  switch (purpose) {
    case 'tot-extract-entities':
      return 'The Lantern Keeper - film';
    case 'tot-match-entity':
      return '1';
    case 'tot-action':
      if (has('SELECT_RELATION: P57')) return 'ANSWER: Mara Ellison';
      if (last.startsWith('THINK')) return 'EXPAND: the director of the film';
      return sample === 0 ? 'EXPAND: check when it was published' : 'THINK: I need the director of the film';
    case 'tot-select-entities':
      return 'Q100';
    case 'tot-select-relation':
      return has('published') ? 'P577' : 'P57';
    case 'tot-evaluate-state':
      if (has('P577')) return 'RATING: 0.2';
      if (last.startsWith('EXPAND: check')) return 'RATING: 0.9';
      if (last.startsWith('THINK')) return 'RATING: 0.7';
      return 'RATING: 0.8';
    case 'tot-evaluate-answer':
      return 'RATING: 0.9';
    default:
      throw new Error(`unexpected purpose ${purpose}`);
  }
}

/**
 * A policy from replies by purpose (text, or a function of the request); a purpose it lacks fails the
 * test. Questions about the film start from `'tot-extract-entities': 'The Lantern Keeper - film'` and
 * `'tot-match-entity': '1'` unless given.
 */
export function filmPolicy(replies: Readonly<Record<string, string | ((request: PolicyRequest) => string)>>): (request: PolicyRequest) => string {
  const all: Record<string, string | ((request: PolicyRequest) => string)> = { 'tot-extract-entities': 'The Lantern Keeper - film', 'tot-match-entity': '1', ...replies };
  return (request) => {
    const reply = all[request.purpose];
    if (reply === undefined) throw new Error(`unexpected purpose ${request.purpose}`);
    return typeof reply === 'string' ? reply : reply(request);
  };
}

/** The question that needs one edge of the sample corpus's index and one of the Wikidata fixture. */
export const collegeQuestion = 'In what year was the college where Clara Ivesley studied founded?';

/** The id a prompt's "KG Entities" block gives `label`. */
const idIn = (prompt: string, label: string): string => new RegExp(`\\t(\\S+): ${label}( - |\\n)`).exec(prompt)?.[1] ?? 'none';

/**
 * {@link collegeQuestion} over `index` + `wikidata`: Clara Ivesley (index) along "related to" to Brennard
 * Technical College, linked by label to Wikidata's Q301, then its inception (P571): 1889.
 */
export function collegePolicy({ purpose, prompt, has }: PolicyRequest): string {
  switch (purpose) {
    case 'tot-extract-entities':
      return 'Clara Ivesley - civil engineer';
    case 'tot-match-entity':
      return /(\d+): Clara Ivesley \(/.exec(prompt)?.[1] ?? 'None';
    case 'tot-action':
      if (has('SELECT_RELATION: P571')) return 'ANSWER: 1889';
      if (has('related to')) return 'EXPAND: when was Brennard Technical College founded';
      return 'EXPAND: which college did Clara Ivesley attend';
    case 'tot-select-entities':
      return has('related to') ? idIn(prompt, 'Brennard Technical College') : idIn(prompt, 'Clara Ivesley');
    case 'tot-select-relation':
      if (prompt.includes('The selected entities are: Brennard Technical College')) return 'P571';
      return /(R\d+): related to/.exec(prompt)?.[1] ?? 'none';
    case 'tot-evaluate-state':
      return 'RATING: 0.8';
    case 'tot-evaluate-answer':
      return 'Clara Ivesley studied at Brennard Technical College, whose inception is 1889.\nRATING: 1.0';
    default:
      throw new Error(`unexpected purpose ${purpose}`);
  }
}

/** What a traversal prompt asks for, read from its text as a real model would (HTTP carries no purpose). */
export function purposeOfPrompt(prompt: string): string {
  if (prompt.includes('Identify unique knowledge graph entities')) return 'tot-extract-entities';
  if (prompt.includes('Entity to match:')) return 'tot-match-entity';
  if (prompt.includes('Provided answer:')) return 'tot-evaluate-answer';
  if (prompt.includes('Your current task is to evaluate')) return 'tot-evaluate-state';
  if (prompt.includes('SELECT ENTITIES:')) return 'tot-select-entities';
  if (prompt.includes('SELECT PROPERTY:')) return 'tot-select-relation';
  if (prompt.includes('Give your best answer based on the knowledge graph')) return 'tot-answer';
  return 'tot-action';
}

/** A reply function for the mock OpenAI server that plays `policy` (seeds relative to `baseSeed`). */
export function httpPolicyReply(policy: (request: PolicyRequest) => string, baseSeed = 42): (request: { messages: Array<{ content: string }>; seed?: number }) => string {
  return (request) => {
    const prompt = request.messages.map((message) => message.content).join('\n');
    return policy(policyRequest(purposeOfPrompt(prompt), prompt, request.seed, baseSeed, { messages: [] }));
  };
}

/** A traversal context over `kg` with the paper's defaults, overridable. */
export function traversalContext(kg: KnowledgeGraph, model: ScriptedLanguageModel, overrides: Partial<TraversalContext> = {}): TraversalContext {
  return {
    question: twoHopQuestion,
    kg,
    model: (purpose) => ({ provider: model.provider, modelId: model.modelId, generate: (request) => model.generate({ ...request, purpose }), stream: (request) => model.stream({ ...request, purpose }) }),
    prompts: builtInPrompts,
    sampleBreadth: 3,
    maxDepth: 7,
    maxExpansions: 20,
    answerThreshold: 0.8,
    temperature: 1,
    seed: 42,
    candidates: 10,
    ...overrides,
  };
}
