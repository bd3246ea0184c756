import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { backtrackingPolicy, lanternKeeperGraph, scriptedPolicy, traversalContext, twoHopPolicy, twoHopTrajectory, type PolicyRequest } from '../../../test/helpers/lantern-keeper-graph.js';
import type { KgEntity } from './kg/knowledge-graph.js';
import { initializeTraversal } from './initialize-traversal.js';
import type { TraversalContext } from './traversal-context.js';
import { TraversalState } from './traversal-state.js';
import { runTreeSearch, selectNode, type SearchNode, type SearchTraceNode } from './tree-search.js';

const film: KgEntity = { id: 'Q100', label: 'The Lantern Keeper', description: '1954 film', graph: 'wikidata' };

/** Initializes like the method does, then searches. */
async function search(context: TraversalContext) {
  const initial = await initializeTraversal(context);
  return { initial, result: await runTreeSearch(context, TraversalState.initial(initial.entities)) };
}

const nodeOf = (nodes: readonly SearchTraceNode[], id: number): SearchTraceNode => {
  const node = nodes.find((candidate) => candidate.id === id);
  assert.ok(node, `node ${id}`);
  return node;
};

describe('runTreeSearch', () => {
  test('answers the two-hop question by expanding the film along P57, then the director along P22', async () => {
    const model = scriptedPolicy(twoHopPolicy);
    const kg = lanternKeeperGraph();
    const { initial, result } = await search(traversalContext(kg, model, { sampleBreadth: 1 }));
    assert.deepEqual(
      initial.entities.map((entity) => entity.id),
      ['Q100'],
      'the film, not the novel',
    );
    const match = model.calls.find((call) => call.purpose === 'tot-match-entity');
    assert.match(match?.messages[0]?.content ?? '', /1: The Lantern Keeper \(1954 film\)\n2: The Lantern Keeper \(novel by Edwin Marsh\)/);
    assert.equal(match?.temperature, 0);
    assert.equal(result.answer, 'Thomas Ellison');
    assert.equal(result.value, 1, 'the final RATING line, not the 0.7 in the reasoning');
    assert.equal(result.stopReason, 'answer-found');
    assert.equal(result.expansions, 7);
    assert.deepEqual(
      kg.calls.filter((call) => call.operation === 'getEdges').map((call) => call.argument),
      [
        { entities: ['Q100'], relation: { id: 'P57', label: 'director', direction: 'forward', graph: 'wikidata' } },
        { entities: ['Q200'], relation: { id: 'P22', label: 'father', direction: 'forward', graph: 'wikidata' } },
      ],
    );
    assert.deepEqual(result.answerNode?.state.trajectory, twoHopTrajectory);
  });

  test('the trace is plain JSON and its path ends at the returned answer', async () => {
    const { result } = await search(traversalContext(lanternKeeperGraph(), scriptedPolicy(twoHopPolicy), { sampleBreadth: 1 }));
    const json = JSON.parse(JSON.stringify(result.trace)) as typeof result.trace;
    assert.deepEqual(json, result.trace);
    assert.deepEqual(json.path, [0, 1, 2, 3, 4, 5, 6, 7]);
    const last = nodeOf(json.nodes, json.path.at(-1) as number);
    assert.equal(last.action, 'ANSWER: Thomas Ellison');
    assert.equal(last.terminal, true);
    assert.equal(last.state, 'DONE');
    assert.equal(json.answer, 'Thomas Ellison');
    assert.equal(json.value, 1);
    assert.equal(json.expansions, 7);
    assert.equal(json.stopReason, 'answer-found');
    assert.deepEqual(
      json.nodes.map((node) => [node.id, node.parent, node.depth, node.state]),
      [
        [0, null, 0, 'DEFAULT'],
        [1, 0, 1, 'SELECTING_ENTITIES'],
        [2, 1, 2, 'SELECTING_RELATION'],
        [3, 2, 3, 'DEFAULT'],
        [4, 3, 4, 'SELECTING_ENTITIES'],
        [5, 4, 5, 'SELECTING_RELATION'],
        [6, 5, 6, 'DEFAULT'],
        [7, 6, 7, 'DONE'],
      ],
    );
  });

  test('a bad first branch is abandoned: the search backtracks to a better earlier leaf', async () => {
    const model = scriptedPolicy(backtrackingPolicy);
    const { result } = await search(traversalContext(lanternKeeperGraph(), model, { sampleBreadth: 2, question: 'Who directed The Lantern Keeper?' }));
    assert.equal(result.answer, 'Mara Ellison');
    const nodes = result.trace.nodes;
    const [expand, think] = result.root.children;
    assert.ok(expand && think);
    assert.equal(expand.value, 0.9);
    assert.equal(think.value, 0.7);
    const dead = expand.children[0]?.children[0] as SearchNode;
    assert.equal(dead.value, 0.2);
    assert.equal(dead.children.length, 0, 'the P577 leaf was never expanded');
    assert.equal(nodeOf(nodes, dead.id).order, undefined);
    assert.equal(think.order, 3, 'expanded right after the bad branch scored low');
    assert.deepEqual(result.trace.path.slice(0, 2), [0, think.id]);
    // After the THINK, THINK is no longer an option.
    const afterThink = model.calls.find((call) => call.purpose === 'tot-action' && (call.messages[0]?.content ?? '').includes('Previous actions:\nTHINK'));
    assert.match(afterThink?.messages[0]?.content ?? '', /Next action \[EXPAND\/ANSWER: <answer>\]:/);
  });

  test('invalid actions are recorded in the trajectory and the search goes on', async () => {
    // k = 1. First an unparseable action; then the film is expanded along P57 twice (the second time adds
    // nothing); then the endpoint fails on the first P22 lookup; then all works.
    let failures = 1;
    const kg = lanternKeeperGraph({
      onCall: (operation, argument) => {
        const relation = (argument as { relation?: { id: string } }).relation;
        if (operation === 'getEdges' && relation?.id === 'P22' && failures-- > 0) throw new Error('endpoint timed out');
      },
    });
    const policy = (request: PolicyRequest): string => {
      const { purpose, trajectory } = request;
      const count = (text: string): number => trajectory.filter((line) => line.includes(text)).length;
      const errors = count('ERROR');
      if (purpose === 'tot-action') {
        if (trajectory.length === 0) return 'Let me look around first';
        if (count('SELECT_RELATION: P57') === 1 && errors === 1) return 'EXPAND: the director again';
        if (count('SELECT_RELATION: P22') === 1) return 'ANSWER: Thomas Ellison';
        return count('SELECT_RELATION: P57') === 1 ? 'EXPAND: the father' : 'EXPAND: the director';
      }
      if (purpose === 'tot-select-entities') return count('EXPAND: the father') > 0 ? 'Q200' : 'Q100';
      if (purpose === 'tot-select-relation') return request.prompt.includes('The selected entities are: Mara Ellison') ? 'P22' : 'P57';
      return twoHopPolicy(request);
    };
    const model = scriptedPolicy(policy);
    // Each error costs a level, so the depth limit is raised to reach the answer by walking, not by force.
    const { result } = await search(traversalContext(kg, model, { sampleBreadth: 1, maxDepth: 20 }));
    assert.equal(result.answer, 'Thomas Ellison');
    const errors = result.trace.nodes.filter((node) => node.error !== undefined);
    assert.deepEqual(
      errors.map((node) => node.error),
      [
        "'Let me look around first' is not a valid action to pick",
        'SELECT_RELATION P57: the action resulted in no new entities or edges being added',
        'SELECT_RELATION P22: knowledge graph error: endpoint timed out',
      ],
    );
    assert.ok(errors.every((node) => node.value === -1 && node.state === 'DEFAULT' && node.action.startsWith('ERROR: ')));
    const trajectory = result.answerNode?.state.trajectory ?? [];
    assert.equal(trajectory.filter((line) => line.startsWith('ERROR: ')).length, 3, 'the errors stay in the trajectory the LLM reads');
    assert.ok(
      model.calls.some((call) => (call.messages[0]?.content ?? '').includes("ERROR: 'Let me look around first' is not a valid action to pick")),
      'the next prompt shows the error',
    );
  });

  test('a failing relation lookup becomes an error child', async () => {
    const kg = lanternKeeperGraph({
      onCall: (operation) => {
        if (operation === 'getRelations') throw new Error('503 Service Unavailable');
      },
    });
    const { result } = await search(traversalContext(kg, scriptedPolicy(twoHopPolicy), { sampleBreadth: 1, maxExpansions: 3 }));
    const failed = result.trace.nodes.find((node) => node.error !== undefined);
    assert.match(failed?.error ?? '', /knowledge graph error listing the relations of Q100: 503 Service Unavailable/);
    assert.equal(failed?.value, -1);
  });

  test('the expansion limit returns the best answer so far, even below the threshold', async () => {
    // k = 2: the root yields a poor answer (0.3) and an EXPAND (0.8); the second expansion is the last.
    const policy = (request: PolicyRequest): string => {
      if (request.purpose === 'tot-action') return request.sample === 0 ? 'ANSWER: Edwin Marsh' : 'EXPAND: the director';
      if (request.purpose === 'tot-evaluate-answer') return 'RATING: 0.3';
      return twoHopPolicy(request);
    };
    const model = scriptedPolicy(policy);
    const { result } = await search(traversalContext(lanternKeeperGraph(), model, { sampleBreadth: 2, maxExpansions: 2 }));
    assert.equal(result.stopReason, 'max-expansions');
    assert.equal(result.expansions, 2);
    assert.equal(result.answer, 'Edwin Marsh');
    assert.equal(result.value, 0.3);
    assert.equal(result.trace.fallback, false);
    assert.ok(!model.calls.some((call) => call.purpose === 'tot-answer'));
  });

  test('with no answer when the expansions run out, k answers are sampled at the best leaf', async () => {
    const policy = (request: PolicyRequest): string => {
      if (request.purpose === 'tot-answer') return 'THOUGHT: the graph shows the director.\nANSWER: Mara Ellison';
      if (request.purpose === 'tot-evaluate-answer') return 'RATING: 0.6';
      return twoHopPolicy(request);
    };
    const model = scriptedPolicy(policy);
    const { result } = await search(traversalContext(lanternKeeperGraph(), model, { sampleBreadth: 1, maxExpansions: 3 }));
    assert.equal(result.stopReason, 'max-expansions');
    assert.equal(result.trace.fallback, true);
    assert.equal(result.answer, 'Mara Ellison');
    assert.equal(result.value, 0.6);
    const answerNode = nodeOf(result.trace.nodes, result.trace.path.at(-1) as number);
    assert.equal(answerNode.fallback, true);
    assert.equal(answerNode.parent, 3, 'answered at the leaf after the P57 expansion');
    const call = model.calls.find((item) => item.purpose === 'tot-answer');
    assert.match(call?.messages[0]?.content ?? '', /Give your best answer based on the knowledge graph/);
  });

  test('no answer at all: undefined answer and an empty path', async () => {
    const policy = (request: PolicyRequest): string => (request.purpose === 'tot-answer' ? 'THOUGHT: I cannot tell.\nANSWER:' : twoHopPolicy(request));
    const { result } = await search(traversalContext(lanternKeeperGraph(), scriptedPolicy(policy), { sampleBreadth: 1, maxExpansions: 1 }));
    assert.equal(result.answer, undefined);
    assert.equal(result.value, undefined);
    assert.deepEqual(result.trace.path, []);
    assert.equal(result.trace.answer, null);
    assert.match(result.trace.nodes[1]?.rejected?.[0]?.error ?? '', /gives no answer/);
  });

  test('at the maximum depth a DEFAULT state must answer (ANSWER_PROMPT)', async () => {
    const policy = (request: PolicyRequest): string => (request.purpose === 'tot-action' ? 'THINK: the director is the key' : twoHopPolicy(request));
    const model = scriptedPolicy(policy);
    const { result } = await search(traversalContext(lanternKeeperGraph(), model, { sampleBreadth: 1, maxDepth: 1 }));
    assert.deepEqual(
      model.calls.filter((call) => call.purpose !== 'tot-extract-entities' && call.purpose !== 'tot-match-entity').map((call) => call.purpose),
      ['tot-action', 'tot-evaluate-state', 'tot-answer', 'tot-evaluate-answer'],
    );
    assert.equal(result.answer, 'Thomas Ellison');
    assert.equal(result.answerNode?.depth, 2);
  });

  test('selectNode: best value first, ties to the deeper node, then the earlier in pre-order', () => {
    const state = TraversalState.initial([film]);
    const done = state.clone();
    done.setActionState('DONE');
    const node = (id: number, depth: number, value: number, children: SearchNode[] = [], terminal = false): SearchNode => ({ id, parent: undefined, depth, state: terminal ? done : state, children, value, action: '', rejected: [] });
    const a = node(1, 1, 0.5);
    const b = node(3, 2, 0.5);
    const c = node(4, 2, 0.5);
    const answered = node(5, 1, 0.99, [], true);
    const root = node(0, 0, 1, [a, node(2, 1, 0.4, [b, c]), answered]);
    assert.equal(selectNode(root)?.id, 3);
    const better = node(6, 1, 0.6);
    root.children.push(better);
    assert.equal(selectNode(root)?.id, 6);
  });
});
