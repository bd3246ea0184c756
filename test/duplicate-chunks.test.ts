import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { createKgrag } from '../src/api/create-kgrag.js';
import { KgragError } from '../src/core/errors.js';
import { createRandom } from '../src/core/random.js';
import type { PipelineEvent } from '../src/pipeline/pipeline-step.js';

/*
 * Issue 35, item 5: a log of one repeated line is thousands of identical chunks, and the AutoKG knn-graph step
 * compared them pair by pair, copying neighbour lists (85 s for 2,000 chunks, in one synchronous call Ctrl-C could
 * not stop). Small chunks keep these indexes quick; the cost is the number of chunks, not their size.
 */

const root = mkdtempSync(join(tmpdir(), 'kgrag-duplicate-chunks-'));
after(() => rmSync(root, { recursive: true, force: true }));

const logLine = '2024-05-17T12:34:56.789Z INFO [http-server] GET /api/v1/items?page=2 200 12ms user=alice session=abc123 request handled\n';

describe('identical chunks', () => {
  test('4,000 copies of one chunk leave one chunk in the AutoKG graph', async () => {
    const kgrag = await createKgrag({
      workspace: join(root, 'copies'),
      env: {},
      // One line of the log is 44 tokens: a chunk of 44 with no overlap is one line, every chunk the same text.
      config: { store: { path: ':memory:' }, chunking: { size: 44, overlap: 0 }, embeddings: { dimensions: 64 } },
    });
    try {
      const summary = await kgrag.index([{ title: 'server.log', text: logLine.repeat(4000) }], { mode: 'fast', methods: ['autokg'] });
      assert.equal(summary.counts.chunk?.added, 4000);
      assert.deepEqual([summary.counts['chunk-graph']?.chunks, summary.counts['chunk-graph']?.duplicates], [1, 3999]);
    } finally {
      await kgrag.close();
    }
  });

  test('the knn-graph step stops where its signal aborts, between its pauses', async () => {
    // Distinct chunks, so that the near-duplicate search has thousands of vectors to sort through.
    const random = createRandom(5);
    const words = Array.from({ length: 2000 }, (_, index) => `w${index.toString(36)}`);
    const text = Array.from({ length: 30_000 }, () => words[Math.floor(random() * words.length)]).join(' ');
    const kgrag = await createKgrag({ workspace: join(root, 'abort'), env: {}, config: { store: { path: ':memory:' }, chunking: { size: 10, overlap: 0 }, embeddings: { dimensions: 64 } } });
    try {
      const controller = new AbortController();
      const afterAbort: PipelineEvent[] = [];
      let progress: Extract<PipelineEvent, { type: 'step-progress' }> | undefined;
      const indexing = kgrag.index([{ title: 'words', text }], {
        mode: 'fast',
        methods: ['autokg'],
        signal: controller.signal,
        onEvent: (event) => {
          if (controller.signal.aborted) afterAbort.push(event);
          else if (event.type === 'step-progress' && event.step === 'chunk-graph') {
            progress = event;
            controller.abort();
          }
        },
      });
      await assert.rejects(indexing, (error: unknown) => KgragError.isInstance(error) && error.code === 'PIPELINE_ABORTED');
      assert.ok(progress !== undefined && progress.done < progress.total, `the abort came in the middle of the search: ${JSON.stringify(progress)}`);
      assert.deepEqual(afterAbort, [], 'nothing more happened after the abort');
      // The next run builds the graph the aborted one did not keep (and stops there: the keywords would take long).
      const stop = new AbortController();
      const resumed = kgrag.index([], {
        mode: 'fast',
        methods: ['autokg'],
        stopAfterStep: stop.signal,
        onEvent: (event) => {
          if (event.type === 'step-end' && event.step === 'chunk-graph') {
            assert.ok((event.counts.chunks ?? 0) > 2900, JSON.stringify(event.counts));
            stop.abort();
          }
        },
      });
      await assert.rejects(resumed, (error: unknown) => KgragError.isInstance(error) && error.code === 'PIPELINE_STOPPED');
      assert.ok(stop.signal.aborted, 'the knn-graph step ran to its end');
    } finally {
      await kgrag.close();
    }
  });
});
