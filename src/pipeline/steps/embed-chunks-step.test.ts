import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createLocalEmbedder } from '../../providers/embed/local-embedder.js';
import { embedderStateOf, storedEmbedderState } from './embed-chunks-step.js';

test('the local embedder state is stored deflated and restores the same embedder; an undeflated earlier state still loads', async () => {
  const fitted = createLocalEmbedder();
  fitted.fit(['the weir of the river Kester', 'a mill by the weir', 'floods in March 1947']);
  const state = fitted.exportState();
  const stored = storedEmbedderState(state);
  assert.ok(stored.byteLength < state.byteLength / 10);
  for (const form of [stored, state]) {
    const restored = createLocalEmbedder();
    restored.importState(embedderStateOf(form));
    assert.equal(restored.id, fitted.id);
    assert.deepEqual(await restored.embed(['the weir']), await fitted.embed(['the weir']));
  }
});
