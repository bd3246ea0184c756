import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { lanternKeeperGraph, scriptedPolicy, traversalContext } from '../../../test/helpers/lantern-keeper-graph.js';
import { TraversalState } from './traversal-state.js';
import { evaluateState, parseRating } from './value-function.js';

describe('parseRating', () => {
  test('the last "RATING:" line wins over decimals earlier in the reasoning', () => {
    const reply = 'Scores: 0.0 if wrong, 0.5 if unsure, 0.7 if probably correct.\nThe graph confirms it, so 1.0 is not excessive.\nRATING: 0.9';
    assert.deepEqual(parseRating(reply), { value: 0.9, reply });
  });

  test('tolerates case, emphasis, the range tag and a trailing remark; the last rating line counts', () => {
    assert.equal(parseRating('Rating: 0.8').value, 0.8);
    assert.equal(parseRating('**RATING:** 0.6').value, 0.6);
    assert.equal(parseRating('RATING [0.1-1.0]: 0.3').value, 0.3);
    assert.equal(parseRating('RATING: 0.2\nsecond thoughts\nRATING: 0.7\nThanks.').value, 0.7);
  });

  test('a bare number on the last line is a rating (a completion after "RATING:")', () => {
    assert.equal(parseRating(' 0.7').value, 0.7);
    assert.equal(parseRating('The answer seems right.\n0.8.').value, 0.8);
  });

  test('clamps to [0, 1]', () => {
    assert.equal(parseRating('RATING: 7').value, 1);
    assert.equal(parseRating('RATING: -0.5').value, 0);
  });

  test('unparseable replies are 0 with the reason kept', () => {
    const rated = parseRating('This looks 0.9 likely but I will not say.');
    assert.equal(rated.value, 0);
    assert.match(rated.error ?? '', /RATING/);
    assert.equal(parseRating('').error, 'empty value reply');
  });
});

describe('evaluateState', () => {
  test('answers go to the answer prompt, other states to the state prompt, both at temperature 0', async () => {
    const model = scriptedPolicy(({ purpose }) => (purpose === 'tot-evaluate-answer' ? 'Mara is the director; 0.5 if unsure.\nRATING: 0.9' : 'RATING: 0.4'));
    const context = traversalContext(lanternKeeperGraph(), model);
    const state = TraversalState.initial([{ id: 'Q100', label: 'The Lantern Keeper', description: '1954 film', graph: 'wikidata' }]);
    state.addToTrajectory('THINK: the director first');
    assert.equal((await evaluateState(context, state)).value, 0.4);
    const answered = state.clone();
    answered.addToTrajectory('ANSWER: Mara Ellison');
    answered.setActionState('DONE');
    assert.equal((await evaluateState(context, answered)).value, 0.9);
    const [stateCall, answerCall] = model.calls;
    assert.equal(stateCall?.temperature, 0);
    assert.match(stateCall?.messages[0]?.content ?? '', /Previous actions:\nTHINK: the director first\n\nYour current task is to evaluate/);
    assert.match(answerCall?.messages[0]?.content ?? '', /Provided answer: Mara Ellison/);
    assert.doesNotMatch(answerCall?.messages[0]?.content ?? '', /Previous actions/);
  });
});
