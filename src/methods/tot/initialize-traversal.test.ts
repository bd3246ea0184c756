import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { lanternKeeperGraph, scriptedPolicy, traversalContext } from '../../../test/helpers/lantern-keeper-graph.js';
import { initializeTraversal, parseMatchReply, parseMentions, splitMention } from './initialize-traversal.js';

describe('initializeTraversal parsing', () => {
  test('mentions: after "Entities:", up to the first blank line, bullets dropped', () => {
    assert.deepEqual(parseMentions('The Lantern Keeper - film\nMara Ellison - \n\nQuery: something else'), ['The Lantern Keeper - film', 'Mara Ellison -']);
    assert.deepEqual(parseMentions('Sure.\nEntities:\n- Kester - river\n2. Edwin Marsh\n'), ['Kester - river', 'Edwin Marsh']);
  });

  test('a mention splits at its last " - "; a lone disambiguation becomes the label', () => {
    assert.deepEqual(splitMention('The Lantern Keeper - film'), { label: 'The Lantern Keeper', description: 'film' });
    assert.deepEqual(splitMention('Mara Ellison -'), { label: 'Mara Ellison', description: '' });
    assert.deepEqual(splitMention(' - Kester'), { label: 'Kester', description: '' });
    assert.deepEqual(splitMention('Spider-Man'), { label: 'Spider-Man', description: '' });
  });

  test('match replies: a 1-based index in range, else nothing', () => {
    assert.equal(parseMatchReply('2', 3), 1);
    assert.equal(parseMatchReply(' 1: The Lantern Keeper (1954 film)', 3), 0);
    assert.equal(parseMatchReply('None', 3), undefined);
    assert.equal(parseMatchReply('0', 3), undefined);
    assert.equal(parseMatchReply('4', 3), undefined);
    assert.equal(parseMatchReply('no idea', 3), undefined);
    assert.equal(parseMatchReply('The Lantern Keeper (1954 film) is entity 1', 3), 0, 'a year is not an index');
    assert.equal(parseMatchReply('Candidate 2.5 or 3', 3), 2, 'nor is a decimal');
  });
});

describe('initializeTraversal', () => {
  test('disambiguates at temperature 0; a single candidate with the exact label needs no call', async () => {
    const model = scriptedPolicy(({ purpose, prompt }) => {
      if (purpose === 'tot-extract-entities') return 'The Lantern Keeper - film\nKester - river\nKester - river';
      return prompt.includes('Entity to match: The Lantern Keeper - film') ? '1' : 'None';
    });
    const initialized = await initializeTraversal(traversalContext(lanternKeeperGraph(), model));
    assert.deepEqual(
      initialized.entities.map((entity) => entity.id),
      ['Q100', 'Q1'],
      'the film, and Kester once',
    );
    assert.deepEqual(
      initialized.mentions.map((mention) => [mention.label, mention.matched, mention.how]),
      [
        ['The Lantern Keeper', 'Q100', 'llm'],
        ['Kester', 'Q1', 'only-candidate'],
        ['Kester', 'Q1', 'only-candidate'],
      ],
    );
    assert.deepEqual(
      model.calls.map((call) => [call.purpose, call.temperature]),
      [
        ['tot-extract-entities', 0],
        ['tot-match-entity', 0],
      ],
    );
  });

  test('retries once when nothing matched', async () => {
    const model = scriptedPolicy(({ purpose, request }) => {
      if (purpose === 'tot-extract-entities') return request.temperature === 0 ? 'Lighthouse - object' : 'The Lantern Keeper - film';
      return '1';
    });
    const initialized = await initializeTraversal(traversalContext(lanternKeeperGraph(), model));
    assert.equal(initialized.attempts, 2);
    assert.deepEqual(
      initialized.entities.map((entity) => entity.id),
      ['Q100'],
    );
    const extractions = model.calls.filter((call) => call.purpose === 'tot-extract-entities');
    assert.deepEqual(
      extractions.map((call) => [call.temperature, call.seed]),
      [
        [0, 42],
        [1, 43],
      ],
    );
  });
});
