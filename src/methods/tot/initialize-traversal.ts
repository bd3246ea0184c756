import { fillPrompt } from '../../core/prompt-library.js';
import type { KgEntity } from './kg/knowledge-graph.js';
import { foldLabel } from '../../text/fold-label.js';
import type { TraversalContext } from './traversal-context.js';
import { totPrompts } from './tot-prompts.js';

/** How one mention of the question was linked to the graph. */
export interface MentionMatch {
  /** The extracted line, e.g. `The Lantern Keeper - film`. */
  mention: string;
  /** Its label part, which was searched. */
  label: string;
  candidates: Array<{ id: string; label: string }>;
  /** The chosen entity's id, if any. */
  matched?: string;
  /** `only-candidate`: one candidate with exactly the label, taken without a call; `llm`: the match prompt chose. */
  how: 'only-candidate' | 'llm' | 'none';
  /** The match prompt's reply, when it was asked. */
  reply?: string;
  /** 1, or 2 for the retry. */
  attempt: number;
}

/** The root of the search: the matched entities and how each mention fared. */
export interface InitializedTraversal {
  entities: KgEntity[];
  mentions: MentionMatch[];
  /** 2 when the first attempt matched nothing and was retried. */
  attempts: number;
}

/**
 * The mention lines of an extraction reply (`initialize_state`): the text after `Entities:` when the reply
 * repeats it, up to the first blank line, one mention per non-empty line (list bullets dropped).
 */
export function parseMentions(reply: string): string[] {
  const at = reply.indexOf('Entities:');
  const body = (at >= 0 ? reply.slice(at + 'Entities:'.length) : reply).trimStart();
  const block = body.split(/\n[ \t]*\n/)[0] ?? '';
  return block
    .split('\n')
    .map((line) => line.replace(/^\s*(?:[-*•]\s+|\d+[.)]\s+)/, '').trim())
    .filter((line) => line.length > 0);
}

/**
 * Label and disambiguation of a mention line (`get_all_candidate_qids`): split at the last ` - `; a
 * trailing ` -` means no disambiguation; a line that is only a disambiguation is used as the label.
 */
export function splitMention(line: string): { label: string; description: string } {
  const at = line.lastIndexOf(' - ');
  let label = line;
  let description = '';
  if (at >= 0) {
    label = line.slice(0, at).trim();
    description = line.slice(at + 3).trim();
  } else if (/\s-$/.test(line)) {
    label = line.slice(0, -1).trim();
  }
  if (label.length === 0 && description.length > 0) return { label: description, description: '' };
  return { label, description };
}

/**
 * The candidate a match reply picks (`match_entity`): the first whole number in range as a 1-based index;
 * `None`, or no number in range, picks nothing (the reference took the first number, so its index 0 became
 * −1 and picked the last candidate). Numbers out of range are skipped, so a chat model's "The Lantern Keeper
 * (1954 film) is entity 1" picks 1, not nothing for 1954.
 */
export function parseMatchReply(reply: string, count: number): number | undefined {
  if (/^\W*none\b/i.test(reply)) return undefined;
  for (const match of reply.matchAll(/(?<![\d.])\d+(?![\d.]\d)/g)) {
    const index = Number(match[0]) - 1;
    if (index >= 0 && index < count) return index;
  }
  return undefined;
}

async function attempt(context: TraversalContext, number: number): Promise<InitializedTraversal> {
  // The retry samples (temperature of the actions, the next seed): at temperature 0 with a cached first
  // attempt it would only repeat it. The reference's retry differed because its matching was sampled.
  const temperature = number === 1 ? 0 : context.temperature;
  const seed = context.seed + number - 1;
  const callOptions = context.signal === undefined ? {} : { abortSignal: context.signal };
  const extraction = await context.model('tot-extract-entities').generate({
    messages: [{ role: 'user', content: fillPrompt(context.prompts.text(totPrompts.extractEntities), { query: context.question }) }],
    temperature,
    seed,
    maxOutputTokens: 256,
    ...callOptions,
  });
  const mentions = parseMentions(extraction.text);
  const matches = await Promise.all(
    mentions.map(async (mention): Promise<{ match: MentionMatch; entity?: KgEntity }> => {
      const { label } = splitMention(mention);
      const candidates = await context.kg.searchEntities(label, { limit: context.candidates, ...(context.signal === undefined ? {} : { signal: context.signal }) });
      const listed = candidates.map((candidate) => ({ id: candidate.id, label: candidate.label }));
      const base = { mention, label, candidates: listed, attempt: number };
      if (candidates.length === 0) return { match: { ...base, how: 'none' } };
      const only = candidates[0] as KgEntity;
      // One candidate carrying exactly the mention's label needs no disambiguation (saves a call per
      // unambiguous name); several candidates, or a different label, are left to the match prompt.
      if (candidates.length === 1 && foldLabel(only.label) === foldLabel(label)) return { match: { ...base, matched: only.id, how: 'only-candidate' }, entity: only };
      const options = candidates.map((candidate, index) => `${index + 1}: ${candidate.label} (${candidate.description})`).join('\n');
      const reply = await context.model('tot-match-entity').generate({
        messages: [{ role: 'user', content: fillPrompt(context.prompts.text(totPrompts.matchEntity), { options, text: mention }) }],
        // Temperature 0: the reference matched at its sampling temperature (1.1 for OpenAI), so the root
        // of the tree changed from run to run.
        temperature,
        seed,
        stop: ['\n\n'],
        maxOutputTokens: 16,
        ...callOptions,
      });
      const index = parseMatchReply(reply.text, candidates.length);
      const entity = index === undefined ? undefined : candidates[index];
      return entity ? { match: { ...base, matched: entity.id, how: 'llm', reply: reply.text }, entity } : { match: { ...base, how: 'none', reply: reply.text } };
    }),
  );
  const entities = new Map<string, KgEntity>();
  for (const { entity } of matches) if (entity && !entities.has(entity.id)) entities.set(entity.id, entity);
  return { entities: [...entities.values()], mentions: matches.map(({ match }) => match), attempts: number };
}

/**
 * The root entities of a question (`construct_initial_state` + `initialize_state` +
 * `match_entities_wikidata`, amazon-science/tree-of-traversals `wikidata/`): the LLM names the question's entities
 * (temperature 0), each is searched in the graph, and the match prompt picks one candidate or none.
 * When nothing matched, it is tried once more, as in the reference.
 */
export async function initializeTraversal(context: TraversalContext): Promise<InitializedTraversal> {
  const first = await attempt(context, 1);
  if (first.entities.length > 0) return first;
  const second = await attempt(context, 2);
  return { ...second, mentions: [...first.mentions, ...second.mentions] };
}
