import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import { deflateRawSync } from 'node:zlib';
import { createLocalEmbedder } from '../../providers/embed/local-embedder.js';
import { embedderStateOf } from './embed-chunks-step.js';

test('the local embedder state is stored as exported and restores the same embedder; a deflated earlier state still loads', async () => {
  const fitted = createLocalEmbedder();
  fitted.fit(['the weir of the river Kester', 'a mill by the weir', 'floods in March 1947']);
  const state = fitted.exportState();
  // The id names the hash of the exported bytes, as it did when the state was hashed as exported.
  assert.ok(fitted.id.includes(createHash('sha256').update(state).digest('hex').slice(0, 12)), fitted.id);
  // Stored as exported: read back as it is, not inflated or copied.
  const stored = state;
  assert.equal(embedderStateOf(stored), stored);
  const deflatedEarlier = Buffer.concat([Buffer.from('kgz1'), deflateRawSync(state)]);
  for (const form of [stored, deflatedEarlier]) {
    const restored = createLocalEmbedder();
    restored.importState(embedderStateOf(form));
    assert.equal(restored.id, fitted.id);
    assert.deepEqual(await restored.embed(['the weir']), await fitted.embed(['the weir']));
  }
});
