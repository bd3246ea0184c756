import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { lanternKeeperGraph, scriptedPolicy, traversalContext } from '../../../test/helpers/lantern-keeper-graph.js';
import type { KgEntity, KgRelation, KgRelationList, KnowledgeGraph } from './kg/knowledge-graph.js';
import { InvalidActionError } from './invalid-action-error.js';
import { actionOptions, answerInReply, applyAction, parseRelationChoice, sampleActions } from './traversal-actions.js';
import { TraversalState } from './traversal-state.js';

const entity = (id: string, label: string, description = ''): KgEntity => ({ id, label, description, graph: 'wikidata' });
const film = entity('Q100', 'The Lantern Keeper', '1954 film');
const all = [film, entity('Q200', 'Mara Ellison'), entity('Q12', 'Edwin Marsh'), entity('Q1', 'Kester')];

function selectingEntities(): TraversalState {
  const state = TraversalState.initial(all);
  state.addToTrajectory('EXPAND: look around');
  state.setActionState('SELECTING_ENTITIES');
  return state;
}

describe('entity selection', () => {
  const replies = ['Q200, Q100', 'Q12', 'I pick Q100 and Q200', 'Q1', 'nothing', 'Q12 please'];

  test('oversamples 2k with seeds base + i and keeps the k most common canonical selections', async () => {
    const model = scriptedPolicy(({ sample }) => replies[sample] ?? '');
    const context = traversalContext(lanternKeeperGraph(), model);
    const sampled = await sampleActions(context, selectingEntities(), 1);
    assert.deepEqual(
      model.calls.map((call) => call.seed),
      [42, 43, 44, 45, 46, 47],
    );
    assert.ok(model.calls.every((call) => call.purpose === 'tot-select-entities' && call.temperature === 1));
    // "Q200, Q100" and "Q100 and Q200" are one selection (2 votes); Q12 has 2 votes and comes first; Q1 1.
    assert.deepEqual(sampled.actions, ['Q100, Q200', 'Q12', 'Q1']);
  });

  test('is deterministic, ties broken by first occurrence', async () => {
    const tied = ['Q1', 'Q12', 'Q200', 'Q12', 'Q1', 'Q200'];
    const run = async () => (await sampleActions(traversalContext(lanternKeeperGraph(), scriptedPolicy(({ sample }) => tied[sample] ?? '')), selectingEntities(), 1)).actions;
    const first = await run();
    assert.deepEqual(first, ['Q1', 'Q12', 'Q200']);
    assert.deepEqual(await run(), first);
    const two = await sampleActions(traversalContext(lanternKeeperGraph(), scriptedPolicy(({ sample }) => tied[sample] ?? ''), { sampleBreadth: 2 }), selectingEntities(), 1);
    // k = 2 samples four: Q12 has two votes, Q1 and Q200 one each, and Q1 came first.
    assert.deepEqual(two.actions, ['Q12', 'Q1']);
  });

  test('selecting Q12 selects Q12 only, never Q1', async () => {
    const state = selectingEntities();
    await applyAction(traversalContext(lanternKeeperGraph(), scriptedPolicy(() => '')), state, 'Q12');
    assert.deepEqual(state.selectedEntities, ['Q12']);
    assert.equal(state.actionState, 'SELECTING_RELATION');
    assert.equal(state.trajectory.at(-1), 'SELECT_ENTITIES: [Q12]');
  });

  test('a reply naming no entity is kept only when nothing parsed, and is invalid', async () => {
    const context = traversalContext(lanternKeeperGraph(), scriptedPolicy(() => 'the film, I think'));
    const sampled = await sampleActions(context, selectingEntities(), 1);
    assert.deepEqual(sampled.actions, ['the film, I think']);
    await assert.rejects(applyAction(context, selectingEntities(), 'the film, I think'), InvalidActionError);
  });
});

describe('relation selection', () => {
  const options: KgRelation[] = [
    { id: 'P57', label: 'director', direction: 'forward', graph: 'wikidata' },
    { id: 'P22', label: 'father', direction: 'forward', graph: 'wikidata' },
    { id: 'P50', label: 'author', direction: 'backward', graph: 'wikidata' },
    { id: 'P57', label: 'director', direction: 'backward', graph: 'wikidata' },
  ];

  test('parses the first listed id, whole, with its direction', () => {
    assert.deepEqual(parseRelationChoice('I suggest selecting property: P22', options), options[1]);
    assert.deepEqual(parseRelationChoice('~P57: is director of', options), options[3]);
    assert.deepEqual(parseRelationChoice('P57', options), options[0]);
    assert.deepEqual(parseRelationChoice('P50', options), options[2], 'a forward id listed only backward is backward');
    assert.equal(parseRelationChoice('~P22', options), undefined, 'a ~id not listed backward selects nothing');
    assert.equal(parseRelationChoice('P5 or P570', options), undefined);
  });

  test('oversamples 3k, lists forward and backward options, and votes', async () => {
    const replies = ['P22', '~P57', 'P22', 'P999', 'P22 because', '~P57', 'P57', 'x', 'P57'];
    const model = scriptedPolicy(({ sample }) => replies[sample] ?? '');
    const state = TraversalState.initial([film, entity('Q200', 'Mara Ellison', 'British film director')]);
    state.selectEntities(['Q200']);
    state.setActionState('SELECTING_RELATION');
    const sampled = await sampleActions(traversalContext(lanternKeeperGraph(), model), state, 2);
    assert.equal(model.calls.length, 9);
    const prompt = model.calls[0]?.messages[0]?.content ?? '';
    assert.match(prompt, /The selected entities are: Mara Ellison\n\nThe options of properties to choose from are:\nP22: father\n~P57: is director of\n/);
    // Q200 has P57 only backward, so the bare "P57" replies vote for ~P57: four votes, P22 three.
    assert.deepEqual(sampled.actions, ['~P57', 'P22']);
    assert.equal(sampled.base.relationOptions?.relations.length, 2);
  });

  test('an incomplete list says why: the graph\'s warnings, else the limit', async () => {
    const base = lanternKeeperGraph();
    const promptFor = async (extra: Partial<KgRelationList>): Promise<string> => {
      const kg: KnowledgeGraph = { ...base, getRelations: async (ids, options) => ({ ...(await base.getRelations(ids, options)), ...extra }) };
      const model = scriptedPolicy(() => 'P22');
      const state = TraversalState.initial([entity('Q200', 'Mara Ellison')]);
      state.selectEntities(['Q200']);
      state.setActionState('SELECTING_RELATION');
      await sampleActions(traversalContext(kg, model, { sampleBreadth: 1 }), state, 2);
      return model.calls[0]?.messages[0]?.content ?? '';
    };
    assert.match(await promptFor({ truncated: true, limit: 100 }), /\(only the first 100 relations are listed\)/);
    const warned = await promptFor({ truncated: true, limit: 100, warnings: ['wikidata: backward relations could not be fetched, so only forward relations are listed: HTTP 500'] });
    assert.match(warned, /\(the list is incomplete: wikidata: backward relations could not be fetched, so only forward relations are listed: HTTP 500\)/);
    assert.doesNotMatch(warned, /only the first 100/);
  });
});

describe('DEFAULT actions', () => {
  const context = traversalContext(lanternKeeperGraph(), scriptedPolicy(() => ''));

  test('THINK, EXPAND and ANSWER move the state machine', async () => {
    const thinking = TraversalState.initial([film]);
    await applyAction(context, thinking, 'THINK: I need the director first ANSWER: nobody');
    assert.deepEqual(thinking.trajectory, ['THINK: I need the director first']);
    assert.equal(thinking.actionState, 'DEFAULT');
    const expanding = TraversalState.initial([film]);
    await applyAction(context, expanding, 'EXPAND: director of the film');
    assert.equal(expanding.actionState, 'SELECTING_ENTITIES');
    const answering = TraversalState.initial([film]);
    await applyAction(context, answering, 'ANSWER: Thomas Ellison');
    assert.equal(answering.actionState, 'DONE');
    assert.deepEqual(answering.trajectory, ['ANSWER: Thomas Ellison']);
  });

  test('no THINK right after a THINK: not offered, and rejected if given', async () => {
    const state = TraversalState.initial([film]);
    assert.equal(actionOptions(state), 'THINK: <thought>/EXPAND/ANSWER: <answer>');
    state.addToTrajectory('THINK: first thought');
    assert.equal(actionOptions(state), 'EXPAND/ANSWER: <answer>');
    await assert.rejects(applyAction(context, state.clone(), 'THINK: second thought'), /THINK cannot follow THINK/);
  });

  test('a sample the line-break stop emptied (a reply opening with a blank line) is asked again without the stop', async () => {
    // As a real server applies `stop: ["\n"]` to a reply that starts with a line break.
    const model = scriptedPolicy(({ request }) => (request.stop?.includes('\n') ? '' : '\nEXPAND: the director of the film\nmore text'));
    const sampled = await sampleActions(traversalContext(lanternKeeperGraph(), model, { sampleBreadth: 2 }), TraversalState.initial([film]), 0);
    assert.deepEqual(sampled.actions, ['EXPAND: the director of the film']);
    assert.deepEqual(
      model.calls.map((call) => [call.seed, call.stop ?? null]),
      [
        [42, ['\n']],
        [43, ['\n']],
        [42, null],
        [43, null],
      ],
    );
  });

  test('unparseable and empty actions are invalid', async () => {
    await assert.rejects(applyAction(context, TraversalState.initial([film]), 'Let me look around'), /is not a valid action to pick/);
    await assert.rejects(applyAction(context, TraversalState.initial([film]), 'ANSWER:'), /gives no answer/);
  });

  test('a forced answer is the first line after the last ANSWER:', () => {
    assert.equal(answerInReply('Mara directed it (see ANSWER: format)\nANSWER: Thomas Ellison\nDone.'), 'Thomas Ellison');
    assert.equal(answerInReply('Thomas Ellison'), 'Thomas Ellison');
  });
});

describe('state text', () => {
  test('kgText renders entities and grouped edges like the reference kg_str', async () => {
    const context = traversalContext(lanternKeeperGraph(), scriptedPolicy(() => ''));
    const state = TraversalState.initial([film]);
    state.selectEntities(['Q100']);
    state.setActionState('SELECTING_RELATION');
    state.setRelationOptions(await context.kg.getRelations(['Q100']));
    await applyAction(context, state, 'P57');
    const dated = state.clone();
    dated.selectEntities(['Q100']);
    dated.setActionState('SELECTING_RELATION');
    dated.setRelationOptions(await context.kg.getRelations(['Q100']));
    await applyAction(context, dated, 'P577');
    assert.equal(
      dated.kgText(),
      'KG Entities:\n\tQ100: The Lantern Keeper - 1954 film\n\tQ200: Mara Ellison - British film director\n\nKG EDGES:\nThe Lantern Keeper:\n\thas director: (count 1)\n\t\tMara Ellison\n\thas publication date: (count 1)\n\t\t1954',
    );
    assert.deepEqual(dated.trajectory.slice(-2), ['SELECT_RELATION: P577 - has publication date', 'Observation: 0 new entities, 1 new edges added']);
    assert.equal(state.trajectory.length + 2, dated.trajectory.length, 'the parent state did not change');
  });
});
