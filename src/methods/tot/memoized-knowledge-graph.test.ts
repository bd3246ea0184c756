import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createInMemoryKnowledgeGraph } from './kg/in-memory-knowledge-graph.js';
import type { KgRelation } from './kg/knowledge-graph.js';
import { memoizedKnowledgeGraph } from './memoized-knowledge-graph.js';

describe('memoizedKnowledgeGraph', () => {
  const data = {
    name: 'wikidata',
    entities: [
      { id: 'Q1', label: 'The Lantern Keeper', description: 'film' },
      { id: 'Q2', label: 'Ada Voss', description: 'director' },
    ],
    properties: { P57: 'director' },
    statements: [{ subject: 'Q1', property: 'P57', object: 'Q2' }],
  };
  const director: KgRelation = { id: 'P57', label: 'director', direction: 'forward', graph: 'wikidata' };

  test('asks the graph once per selection and relation; other selections and directions are asked', async () => {
    const graph = createInMemoryKnowledgeGraph(data);
    const kg = memoizedKnowledgeGraph(graph);
    const first = await kg.getRelations(['Q1']);
    assert.equal(await kg.getRelations(['Q1']), first);
    await kg.getRelations(['Q2']);
    const edges = await kg.getEdges(['Q1'], director);
    assert.equal(await kg.getEdges(['Q1'], director), edges);
    await kg.getEdges(['Q2'], { ...director, direction: 'backward' });
    assert.deepEqual(
      graph.calls.filter((call) => call.operation !== 'getEntities').map((call) => call.operation),
      ['getRelations', 'getRelations', 'getEdges', 'getEdges'],
    );
    assert.equal(kg.name, 'wikidata');
    assert.deepEqual((await kg.searchEntities('Ada Voss')).map((entity) => entity.id), ['Q2']);
  });

  test('forgets a failed lookup, so a later branch asks again', async () => {
    let failures = 1;
    const graph = createInMemoryKnowledgeGraph({
      ...data,
      onCall: (operation) => {
        if (operation === 'getRelations' && failures-- > 0) throw new Error('endpoint returned 503');
      },
    });
    const kg = memoizedKnowledgeGraph(graph);
    await assert.rejects(kg.getRelations(['Q1']), /503/);
    assert.deepEqual((await kg.getRelations(['Q1'])).relations.map((relation) => relation.id), ['P57']);
    assert.equal(graph.calls.filter((call) => call.operation === 'getRelations').length, 2);
  });
});
