import { errorMessage } from '../../core/error-message.js';
import { fillPrompt } from '../../core/prompt-library.js';
import type { KgRelation, KgRelationList } from './kg/knowledge-graph.js';
import { findIds, wholeIdPattern } from './find-ids.js';
import { InvalidActionError } from './invalid-action-error.js';
import { mostCommon } from './most-common.js';
import { renderFullPrompt } from './render-full-prompt.js';
import { sampleReplies } from './sample-replies.js';
import { totPrompts } from './tot-prompts.js';
import type { TraversalContext } from './traversal-context.js';
import { relationKey, relationPhrase, type TraversalState } from './traversal-state.js';

/*
 * The action state machine of Tree-of-Traversals (amazon-science/tree-of-traversals `treeoftraversals.py`; `sample_actions`,
 * `default`, `select_entities_sub_action`, `select_relation_sub_action` in `treeoftraversals.py`):
 *
 *   DEFAULT ── THINK ──▶ DEFAULT          (never two THINKs in a row)
 *           ── ANSWER ─▶ DONE (terminal)
 *           ── EXPAND ─▶ SELECTING_ENTITIES ── ids ─▶ SELECTING_RELATION ── relation ─▶ DEFAULT
 *
 * A DEFAULT state at the depth limit can only answer (`ANSWER_PROMPT`). An action that does not parse,
 * adds nothing, or meets a graph error throws InvalidActionError.
 */

/** What a node's expansion sampled. */
export interface SampledActions {
  /** The state the children are made from: the node's own, plus the relation options when selecting one. */
  base: TraversalState;
  /** Distinct actions, in sample order. */
  actions: string[];
  /** Set when nothing could be sampled (the graph failed, nothing to select): becomes one error child. */
  error?: string;
}

/** The reply's first non-empty line: the reference stops action samples at a newline. */
const firstLine = (reply: string): string =>
  reply
    .split(/\r?\n/)
    .map((line) => line.trim())
    .find((line) => line.length > 0) ?? '';

const unique = (values: readonly string[]): string[] => [...new Set(values)];

/** Whether the graph call failed because the query was cancelled (never an invalid action). */
const aborted = (context: TraversalContext): boolean => context.signal?.aborted === true;

/**
 * The answer in a reply to the answer prompt: the first line after the last `ANSWER:`; without one, the
 * reply's last line (the reference kept the whole reply, reasoning included).
 */
export function answerInReply(reply: string): string {
  const at = reply.lastIndexOf('ANSWER:');
  if (at >= 0) return firstLine(reply.slice(at + 'ANSWER:'.length));
  const lines = reply
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line.length > 0);
  return lines.at(-1) ?? '';
}

/**
 * k forced answers (`sample_answer`): the answer prompt, no stop, 256 tokens, as `ANSWER: …` actions.
 * Used at the depth limit and by the fallback when the expansions run out with no answer in the tree.
 */
export async function sampleAnswers(context: TraversalContext, state: TraversalState): Promise<string[]> {
  const replies = await sampleReplies(context, renderFullPrompt(context, state, context.prompts.text(totPrompts.answer)), {
    purpose: 'tot-answer',
    count: context.sampleBreadth,
    temperature: context.temperature,
    maxOutputTokens: 256,
  });
  return unique(replies.map((reply) => `ANSWER: ${answerInReply(reply)}`));
}

/** Whether the state's last action was a THINK, so THINK is not offered again (`sample_default`). */
function thinkAllowed(state: TraversalState): boolean {
  return !(state.trajectory.at(-1) ?? '').startsWith('THINK');
}

/** The `{options}` of the action prompt. */
export function actionOptions(state: TraversalState): string {
  return thinkAllowed(state) ? 'THINK: <thought>/EXPAND/ANSWER: <answer>' : 'EXPAND/ANSWER: <answer>';
}

/**
 * The option a reply selects (`select_relation_sub_action`): the first listed id in it, whole, with its
 * `~` for a backward relation. A forward id that is only listed backward is taken as backward, as the
 * reference does; a `~` id that is not listed backward selects nothing.
 */
export function parseRelationChoice(reply: string, options: readonly KgRelation[]): KgRelation | undefined {
  const pattern = wholeIdPattern(options.map((relation) => relation.id), '(?<backward>~)?');
  if (pattern === undefined) return undefined;
  for (const match of reply.matchAll(pattern)) {
    const folded = (match.groups?.id ?? '').toLowerCase();
    const forward = options.find((relation) => relation.direction === 'forward' && relation.id.toLowerCase() === folded);
    const backward = options.find((relation) => relation.direction === 'backward' && relation.id.toLowerCase() === folded);
    if (match.groups?.backward === '~') return backward;
    return forward ?? backward;
  }
  return undefined;
}

async function sampleDefault(context: TraversalContext, state: TraversalState): Promise<SampledActions> {
  const current = fillPrompt(context.prompts.text(totPrompts.selectAction), { options: actionOptions(state) });
  const replies = await sampleReplies(context, renderFullPrompt(context, state, current), {
    purpose: 'tot-action',
    count: context.sampleBreadth,
    temperature: context.temperature,
    stop: ['\n'],
    maxOutputTokens: 100,
  });
  // Exact duplicates are one action (`list(set(sampled_actions))`), kept in sample order rather than set order.
  return { base: state, actions: unique(replies.map(firstLine)) };
}

/**
 * Oversampled selections, voted: `oversample × k` replies (one when k = 1) stopped at the line end, each
 * reduced to its canonical selection, the k most common non-empty ones kept. When no reply selected
 * anything, the first reply is kept so that its parse error is recorded (the reference kept empty
 * reductions in the vote, where they could crowd out valid ones).
 */
async function voteSelections(
  context: TraversalContext,
  state: TraversalState,
  current: string,
  options: { purpose: string; oversample: number; maxOutputTokens: number },
  reduce: (reply: string) => string,
): Promise<string[]> {
  const replies = await sampleReplies(context, renderFullPrompt(context, state, current), {
    purpose: options.purpose,
    count: context.sampleBreadth === 1 ? 1 : options.oversample * context.sampleBreadth,
    temperature: context.temperature,
    stop: ['\n'],
    maxOutputTokens: options.maxOutputTokens,
  });
  const reduced = replies.map(reduce).filter((selection) => selection.length > 0);
  if (reduced.length === 0) return [firstLine(replies[0] ?? '')];
  return mostCommon(reduced, context.sampleBreadth);
}

/** The state's entities a reply names (ids matched whole), in state order. */
function selectedIds(state: TraversalState, reply: string): string[] {
  const options = state.entities.map((entity) => entity.id);
  const found = new Set(findIds(reply, options));
  return options.filter((id) => found.has(id));
}

async function sampleEntities(context: TraversalContext, state: TraversalState): Promise<SampledActions> {
  const options = state.entities.map((entity) => entity.id);
  if (options.length === 0) return { base: state, actions: [], error: 'EXPAND: the knowledge graph has no entities to expand' };
  const current = fillPrompt(context.prompts.text(totPrompts.selectEntities), { options: options.join(', ') });
  // A selection is canonical (state order), so "Q200, Q100" and "Q100, Q200" are one vote and one child.
  const canonical = (reply: string): string => selectedIds(state, reply).join(', ');
  // Oversampled 2k and voted (`sample_select_entities_sub_action`).
  return { base: state, actions: await voteSelections(context, state, current, { purpose: 'tot-select-entities', oversample: 2, maxOutputTokens: 128 }, canonical) };
}

/** The relation options in the prompt: `P57: director` and `~P57: is director of`. */
function relationOptionLines(list: KgRelationList): { outgoing: string; incoming: string } {
  const outgoing = list.relations.filter((relation) => relation.direction === 'forward').map((relation) => `${relation.id}: ${relation.label}`);
  const incoming = list.relations.filter((relation) => relation.direction === 'backward').map((relation) => `~${relation.id}: ${relationPhrase(relation)}`);
  // A cut list is said so, never silently (the reference's LIMIT 100 / 50 were silent); with the graph's
  // reasons when it gives them, since one limit cannot describe a list cut per direction or by a failure.
  if (list.warnings !== undefined && list.warnings.length > 0) incoming.push(`(the list is incomplete: ${list.warnings.join('; ')})`);
  else if (list.truncated) incoming.push(`(only the first ${list.limit ?? list.relations.length} relations are listed)`);
  return { outgoing: outgoing.join('\n'), incoming: incoming.join('\n') };
}

async function sampleRelation(context: TraversalContext, state: TraversalState): Promise<SampledActions> {
  const selected = state.selectedEntities;
  let list: KgRelationList;
  try {
    list = await context.kg.getRelations(selected, context.signal === undefined ? {} : { signal: context.signal });
  } catch (error) {
    if (aborted(context)) throw error;
    return { base: state, actions: [], error: `SELECT_RELATION: knowledge graph error listing the relations of ${selected.join(', ')}: ${errorMessage(error)}` };
  }
  if (list.relations.length === 0) return { base: state, actions: [], error: `SELECT_RELATION: ${selected.join(', ')} have no relations in the knowledge graph` };
  const base = state.clone();
  base.setRelationOptions(list);
  const current = fillPrompt(context.prompts.text(totPrompts.selectRelation), {
    selected_entities: selected.map((id) => state.entity(id)?.label ?? id).join(', '),
    ...relationOptionLines(list),
  });
  const reduce = (reply: string): string => {
    const choice = parseRelationChoice(reply, list.relations);
    return choice ? relationKey(choice) : '';
  };
  // Oversampled 3k and voted (`sample_select_relation_sub_action`); 32 tokens instead of 10 leave room for a
  // chat model's "I suggest selecting property: ~P57".
  return { base, actions: await voteSelections(context, state, current, { purpose: 'tot-select-relation', oversample: 3, maxOutputTokens: 32 }, reduce) };
}

/**
 * Samples the actions of a node (`sample_actions`): k for DEFAULT (forced answers at `maxDepth`), 2k
 * voted down to k entity selections, 3k voted down to k relations.
 */
export async function sampleActions(context: TraversalContext, state: TraversalState, depth: number): Promise<SampledActions> {
  switch (state.actionState) {
    case 'DEFAULT':
      if (depth >= context.maxDepth) return { base: state, actions: await sampleAnswers(context, state) };
      return sampleDefault(context, state);
    case 'SELECTING_ENTITIES':
      return sampleEntities(context, state);
    case 'SELECTING_RELATION':
      return sampleRelation(context, state);
    case 'DONE':
      return { base: state, actions: [], error: 'an answered state has no actions' };
  }
}

const actionPattern = /^[\s"'`*>#-]*(?:I suggest the next action is\s*:?\s*)?(THINK|EXPAND|ANSWER)(?![\p{L}\p{N}_])\s*:?\s*([\s\S]*)$/iu;

/** Records an answer (`answer`): the state is done, whatever it was in. */
function answer(state: TraversalState, action: string, argument: string): void {
  const text = (argument.includes('ANSWER:') ? argument.slice(argument.lastIndexOf('ANSWER:') + 'ANSWER:'.length) : argument).trim();
  if (text.length === 0) throw new InvalidActionError(`'${action}' gives no answer`);
  state.addToTrajectory(`ANSWER: ${text}`);
  state.clearSelection();
  state.setActionState('DONE');
}

/**
 * Applies a forced answer (`ANSWER: …` from {@link sampleAnswers}) in any state: the fallback may answer
 * at a leaf that was selecting entities or a relation, as the reference calls `answer` directly there.
 */
export function applyAnswer(state: TraversalState, action: string): void {
  answer(state, action, action);
}

/** DEFAULT (`default`, `think`, `answer`, `expand_kg`). */
function applyDefault(state: TraversalState, action: string): void {
  const match = actionPattern.exec(action.trim());
  if (!match) throw new InvalidActionError(`'${action}' is not a valid action to pick`);
  const kind = (match[1] ?? '').toUpperCase();
  const argument = match[2] ?? '';
  if (kind === 'ANSWER') {
    answer(state, action, argument);
    return;
  }
  // A THINK or EXPAND that runs on into an answer keeps only its own part, as the reference cuts at "ANSWER:".
  const text = (argument.split('ANSWER:')[0] ?? '').trim();
  if (kind === 'THINK') {
    if (!thinkAllowed(state)) throw new InvalidActionError(`'${action}': THINK cannot follow THINK`);
    if (text.length === 0) throw new InvalidActionError(`'${action}' has no thought`);
    state.addToTrajectory(`THINK: ${text}`);
    return;
  }
  state.addToTrajectory(text.length > 0 ? `EXPAND: ${text}` : 'EXPAND');
  state.setActionState('SELECTING_ENTITIES');
}

/** SELECTING_ENTITIES (`select_entities_sub_action`), ids matched whole. */
function applyEntities(state: TraversalState, action: string): void {
  const selected = selectedIds(state, action);
  if (selected.length === 0) throw new InvalidActionError(`SELECT_ENTITIES: could not parse any entities from '${action}'`);
  state.selectEntities(selected);
  state.addToTrajectory(`SELECT_ENTITIES: [${selected.join(', ')}]`);
  state.setActionState('SELECTING_RELATION');
}

/** SELECTING_RELATION (`select_relation_sub_action`): the edges are fetched and whatever is new is added. */
async function applyRelation(context: TraversalContext, state: TraversalState, action: string): Promise<void> {
  const options = state.relationOptions?.relations ?? [];
  const relation = parseRelationChoice(action, options);
  if (!relation) throw new InvalidActionError(`SELECT_RELATION: unable to find a listed relation in '${action}'`);
  const key = relationKey(relation);
  const selected = state.selectedEntities;
  let found;
  try {
    found = await context.kg.getEdges(selected, relation, context.signal === undefined ? {} : { signal: context.signal });
  } catch (error) {
    if (aborted(context)) throw error;
    throw new InvalidActionError(`SELECT_RELATION ${key}: knowledge graph error: ${errorMessage(error)}`, { cause: error });
  }
  let newEntities = 0;
  for (const entity of found.entities) if (state.addEntity(entity)) newEntities += 1;
  let newEdges = 0;
  for (const edge of found.edges) if (state.addEdge(edge)) newEdges += 1;
  if (newEntities === 0 && newEdges === 0) throw new InvalidActionError(`SELECT_RELATION ${key}: the action resulted in no new entities or edges being added`);
  state.addToTrajectory(`SELECT_RELATION: ${key} - ${relationPhrase(relation)}`);
  const cut = found.truncated ? ` (the graph returned only the first ${found.limit ?? found.edges.length} edges)` : '';
  state.addToTrajectory(`Observation: ${newEntities} new entities, ${newEdges} new edges added${cut}`);
  state.clearSelection();
  state.setActionState('DEFAULT');
}

/**
 * Applies one sampled action to `state` (a fresh clone of the sampling base), or throws
 * {@link InvalidActionError}; errors of the model or a cancellation propagate.
 */
export async function applyAction(context: TraversalContext, state: TraversalState, action: string): Promise<void> {
  switch (state.actionState) {
    case 'DEFAULT':
      applyDefault(state, action);
      return;
    case 'SELECTING_ENTITIES':
      applyEntities(state, action);
      return;
    case 'SELECTING_RELATION':
      await applyRelation(context, state, action);
      return;
    case 'DONE':
      throw new InvalidActionError('an answered state takes no actions');
  }
}
