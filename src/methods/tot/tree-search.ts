import { InvalidActionError } from './invalid-action-error.js';
import { applyAction, applyAnswer, sampleActions, sampleAnswers } from './traversal-actions.js';
import type { TraversalContext } from './traversal-context.js';
import type { ActionState, TraversalState } from './traversal-state.js';
import { answerOf, evaluateState } from './value-function.js';

/** One node of the search tree (`StateTreeNode`). */
export interface SearchNode {
  /** Creation order; the root is 0. */
  id: number;
  parent: SearchNode | undefined;
  depth: number;
  state: TraversalState;
  children: SearchNode[];
  /** The value function's score; the root 1.0; −1 for an error child or a node that produced nothing. */
  value: number;
  /** The trajectory lines this node's action added (empty for the root). */
  action: string;
  /** When the node was expanded (0 = first), as the reference's `order`. */
  order?: number;
  /** The invalid action this error child records. */
  error?: string;
  /** Why the value reply could not be read (its value is then 0). */
  valueError?: string;
  /** Actions of this node's expansion that were invalid while others were valid (not children). */
  rejected: Array<{ action: string; error: string }>;
  /** An answer sampled by the fallback after the expansions ran out. */
  fallback?: boolean;
}

/** Why the search stopped. */
export type StopReason = 'answer-found' | 'max-expansions' | 'exhausted';

/** A search-tree node as plain JSON, for the trace and the web explorer. */
export interface SearchTraceNode {
  id: number;
  parent: number | null;
  depth: number;
  /** The action state the node is in. */
  state: ActionState;
  action: string;
  value: number;
  terminal: boolean;
  order?: number;
  error?: string;
  valueError?: string;
  rejected?: Array<{ action: string; error: string }>;
  fallback?: boolean;
}

/** The whole search as plain JSON (safe for `JSON.stringify`). */
export interface SearchTrace {
  nodes: SearchTraceNode[];
  /** Node ids from the root to the returned answer; empty when there is none. */
  path: number[];
  expansions: number;
  stopReason: StopReason;
  /** Whether forced answers were sampled at the best node because the expansions ran out with none. */
  fallback: boolean;
  answer: string | null;
  value: number | null;
}

/** What {@link runTreeSearch} returns. */
export interface TreeSearchResult {
  /** The best answer (highest value, then deepest), or undefined: "no answer found". */
  answer: string | undefined;
  value: number | undefined;
  answerNode: SearchNode | undefined;
  root: SearchNode;
  expansions: number;
  stopReason: StopReason;
  trace: SearchTrace;
}

/** The nodes of a (sub)tree, parents before children, children in creation order. */
export function* preOrder(node: SearchNode): Generator<SearchNode> {
  yield node;
  for (const child of node.children) yield* preOrder(child);
}

/**
 * The node to expand next (`select_node`): among the leaves that are not answers, the highest value;
 * candidates are visited deepest first (a stable sort of the pre-order) and only a strictly greater
 * value replaces the best, so ties go to the deeper node, then to the earlier one in pre-order.
 * Backtracking is implicit: an earlier leaf that outscores the frontier is picked next.
 */
/** An answered node (state DONE): never expanded. */
function isAnswer(node: SearchNode): boolean {
  return node.state.actionState === 'DONE';
}

export function selectNode(root: SearchNode): SearchNode | undefined {
  const candidates = [...preOrder(root)].sort((left, right) => right.depth - left.depth);
  let best: SearchNode | undefined;
  let bestValue = Number.NEGATIVE_INFINITY;
  for (const node of candidates) {
    if (node.value > bestValue && !isAnswer(node) && node.children.length === 0) {
      best = node;
      bestValue = node.value;
    }
  }
  return best;
}

/** The best answer node (`answer_node`): highest value, ties to the deepest, then the last in pre-order. */
function bestAnswerNode(root: SearchNode): SearchNode | undefined {
  let best: SearchNode | undefined;
  for (const node of preOrder(root)) {
    if (!isAnswer(node)) continue;
    if (!best || node.value > best.value || (node.value === best.value && node.depth >= best.depth)) best = node;
  }
  return best;
}

type Outcome = { state: TraversalState; action: string; value: number; valueError?: string } | { state: TraversalState; action: string; error: string };

/**
 * Best-first search over traversal states (Tree-of-Traversals, amazon-science/tree-of-traversals `treeoftraversals.py`; `run` and
 * `step` in `treeoftraversals.py`). Each step expands the best leaf: k actions are sampled, each distinct
 * one is applied to a copy of the state and scored; invalid ones are recorded. It stops when an answer
 * scores at least the threshold, after `maxExpansions` expansions, or when no leaf is left. If the
 * expansions ran out with no answer anywhere, k forced answers are sampled at the best leaf (the
 * reference's fallback). The result is the best answer in the tree, even below the threshold.
 */
export async function runTreeSearch(context: TraversalContext, initial: TraversalState): Promise<TreeSearchResult> {
  let nextId = 0;
  const makeNode = (state: TraversalState, parent: SearchNode | undefined, fields: Partial<SearchNode>): SearchNode => {
    const node: SearchNode = {
      id: nextId++,
      parent,
      depth: parent ? parent.depth + 1 : 0,
      state,
      children: [],
      value: 0,
      action: parent ? state.trajectory.slice(parent.state.trajectory.length).join('\n') : '',
      rejected: [],
      ...fields,
    };
    parent?.children.push(node);
    return node;
  };
  const root = makeNode(initial, undefined, { value: 1 });
  const addScored = (parent: SearchNode, outcome: Extract<Outcome, { value: number }>, fields: Partial<SearchNode> = {}): SearchNode =>
    makeNode(outcome.state, parent, { value: outcome.value, ...(outcome.valueError === undefined ? {} : { valueError: outcome.valueError }), ...fields });

  /** Applies and scores one action; an invalid one comes back as an error state (`invalid_action`). */
  const tryAction = async (base: TraversalState, action: string, forcedAnswer = false): Promise<Outcome> => {
    const state = base.clone();
    try {
      if (forcedAnswer) applyAnswer(state, action);
      else await applyAction(context, state, action);
    } catch (error) {
      if (!(error instanceof InvalidActionError)) throw error;
      return { state: errorState(base, error.message), action, error: error.message };
    }
    const rating = await evaluateState(context, state);
    return { state, action, value: rating.value, ...(rating.error === undefined ? {} : { valueError: rating.error }) };
  };

  let expansions = 0;
  const reportProgress = (): void => {
    if (!context.onExpansion) return;
    const best = bestAnswerNode(root);
    context.onExpansion({ expansions, nodes: nextId, ...(best ? { best: { answer: answerOf(best.state), value: best.value } } : {}) });
  };
  let found = false;
  let exhausted = false;
  while (!found && expansions < context.maxExpansions) {
    context.signal?.throwIfAborted();
    const node = selectNode(root);
    if (!node) {
      exhausted = true;
      break;
    }
    node.order = expansions;
    expansions += 1;
    const sampled = await sampleActions(context, node.state, node.depth);
    if (sampled.error !== undefined) {
      makeNode(errorState(sampled.base, sampled.error), node, { value: -1, error: sampled.error });
      reportProgress();
      continue;
    }
    // Children are scored in parallel and added in sample order, so the tree never depends on timing.
    const outcomes = await Promise.all(sampled.actions.map((action) => tryAction(sampled.base, action)));
    let lastError: Extract<Outcome, { error: string }> | undefined;
    for (const outcome of outcomes) {
      if ('error' in outcome) {
        lastError = outcome;
        continue;
      }
      if (isAnswer(addScored(node, outcome)) && outcome.value >= context.answerThreshold) found = true;
    }
    if (node.children.length === 0) {
      // No valid child: the last error state becomes a child at −1, so the search can still go on from it
      // but prefers anything else; with nothing sampled at all the node itself drops to −1.
      if (lastError) makeNode(lastError.state, node, { value: -1, error: lastError.error });
      else node.value = -1;
    } else {
      node.rejected = outcomes.flatMap((outcome) => ('error' in outcome ? [{ action: outcome.action, error: outcome.error }] : []));
    }
    reportProgress();
  }

  let fallback = false;
  if (!found && !bestAnswerNode(root)) {
    const node = selectNode(root);
    if (node) {
      fallback = true;
      const answers = await sampleAnswers(context, node.state);
      const outcomes = await Promise.all(answers.map((action) => tryAction(node.state, action, true)));
      for (const outcome of outcomes) {
        if ('error' in outcome) node.rejected.push({ action: outcome.action, error: outcome.error });
        else addScored(node, outcome, { fallback: true });
      }
    }
  }

  const answerNode = bestAnswerNode(root);
  const stopReason: StopReason = found ? 'answer-found' : exhausted ? 'exhausted' : 'max-expansions';
  const answer = answerNode ? answerOf(answerNode.state) : undefined;
  const value = answerNode?.value;
  return {
    answer,
    value,
    answerNode,
    root,
    expansions,
    stopReason,
    trace: {
      nodes: [...preOrder(root)].sort((left, right) => left.id - right.id).map(traceNode),
      path: answerNode ? pathTo(answerNode) : [],
      expansions,
      stopReason,
      fallback,
      answer: answer ?? null,
      value: value ?? null,
    },
  };
}

/** The state an invalid action leaves: the base with `ERROR: …`, back in DEFAULT (`invalid_action`). */
function errorState(base: TraversalState, message: string): TraversalState {
  const state = base.clone();
  state.addToTrajectory(`ERROR: ${message}`);
  state.clearSelection();
  state.setActionState('DEFAULT');
  return state;
}

function pathTo(node: SearchNode): number[] {
  const ids: number[] = [];
  for (let current: SearchNode | undefined = node; current; current = current.parent) ids.unshift(current.id);
  return ids;
}

function traceNode(node: SearchNode): SearchTraceNode {
  return {
    id: node.id,
    parent: node.parent?.id ?? null,
    depth: node.depth,
    state: node.state.actionState,
    action: node.action,
    value: node.value,
    terminal: isAnswer(node),
    ...(node.order === undefined ? {} : { order: node.order }),
    ...(node.error === undefined ? {} : { error: node.error }),
    ...(node.valueError === undefined ? {} : { valueError: node.valueError }),
    ...(node.rejected.length === 0 ? {} : { rejected: node.rejected }),
    ...(node.fallback ? { fallback: true } : {}),
  };
}
