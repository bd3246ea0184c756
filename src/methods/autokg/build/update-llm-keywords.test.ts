import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { builtInPrompts } from '../../../core/prompt-library.js';
import { createScriptedLanguageModel } from '../../../testing/scripted-language-model.js';
import { createTokenizer } from '../../../text/tokenizer.js';
import type { LanguageModel } from '../../../providers/llm/language-model.js';
import { type ClusterToName, updateLlmKeywords } from './update-llm-keywords.js';

/** The text between the markers of a prompt. */
const between = (prompt: string, start: string, end: string): string => prompt.slice(prompt.lastIndexOf(start) + start.length, prompt.lastIndexOf(end)).trim();

describe('updateLlmKeywords', () => {
  const texts = ['Ferry Inn history', 'Ferry Inn ledger', 'Weir Bridge repairs', 'Weir Bridge flood', 'Mill Yard slipway', 'Mill Yard dredging'];
  const stored = {
    method: 'k-means' as const,
    list: { input: ['Ferry Inn', 'Weir Bridge', 'Mill Yard'], output: ['Ferry Inn', 'Weir Bridge', 'Mill Yard'] },
  };
  const final = { input: ['Ferry Inn', 'Weir Bridge', 'Mill Yard'], output: ['Ferry Inn', 'Weir Bridge', 'Mill Yard'] };
  const model = (extractReply: string) =>
    createScriptedLanguageModel({
      responses: [
        { match: 'already appeared', reply: () => extractReply },
        { match: 'Output:', reply: (request) => between(request.messages[0]?.content ?? '', '\nInput: ', '\nOutput:') },
        { match: 'Processed keywords:', reply: (request) => between(request.messages[0]?.content ?? '', '\nKeywords: ', '\n\nProcessed keywords:') },
      ],
    });
  /** Updates the one stored clustering whose clusters are now `clusters`. */
  const update = async (llm: LanguageModel, clusters: ClusterToName[]) =>
    updateLlmKeywords(llm, {
      clusterings: [{ ...stored, clusters }],
      final,
      chunkTexts: texts,
      tokenizer: await createTokenizer('cl100k_base'),
      prompts: builtInPrompts,
      seed: 42,
    });

  test('asks only for the changed cluster, avoiding the other clusters\' keywords in cluster order; the list passes run again when their input changed', async () => {
    const llm = model('Weir Bridge flood, Flood wall');
    const result = await updateLlmKeywords(llm, {
      clusterings: [
        {
          ...stored,
          clusters: [{ kept: { keywords: ['Ferry Inn'], shown: [0, 1] } }, { show: Int32Array.from([3, 2]) }, { kept: { keywords: ['Mill Yard'], shown: [4, 5] } }],
        },
      ],
      final,
      chunkTexts: texts,
      chunkSources: texts.map((_, index) => `hash-${index}`),
      tokenizer: await createTokenizer('cl100k_base'),
      prompts: builtInPrompts,
      seed: 42,
    });
    assert.deepEqual(
      llm.calls.map((call) => call.purpose),
      ['autokg-extract', 'autokg-refine', 'autokg-refine-all', 'autokg-final', 'autokg-final', 'autokg-final'],
    );
    const extraction = llm.calls[0]?.messages[0]?.content ?? '';
    assert.match(extraction, /terms: <Ferry Inn,Mill Yard>/);
    assert.ok(extraction.indexOf('Weir Bridge flood') < extraction.indexOf('Weir Bridge repairs'), 'chunks shown in the order given');
    assert.deepEqual(llm.calls[0]?.sources, ['hash-0', 'hash-1', 'hash-2', 'hash-3', 'hash-4', 'hash-5']);
    assert.deepEqual(result.named[0], [
      { keywords: ['Ferry Inn'], shown: [0, 1] },
      { keywords: ['Weir Bridge flood', 'Flood wall'], shown: [3, 2] },
      { keywords: ['Mill Yard'], shown: [4, 5] },
    ]);
    assert.deepEqual(result.lists[0], { input: ['Ferry Inn', 'Weir Bridge flood', 'Flood wall', 'Mill Yard'], output: ['Ferry Inn', 'Weir Bridge flood', 'Flood wall', 'Mill Yard'] });
    assert.deepEqual(result.keywords, ['Ferry Inn', 'Weir Bridge flood', 'Flood wall', 'Mill Yard']);
    assert.deepEqual(result.final, { input: result.keywords, output: result.keywords });
    assert.equal(result.criticalPath, 6);
  });

  test('a renamed cluster that comes back with its keywords costs only its own two calls; a cluster without members loses its keywords', async () => {
    const llm = model('Weir Bridge');
    const unchanged = await update(llm, [{ kept: { keywords: ['Ferry Inn'], shown: [0, 1] } }, { show: Int32Array.from([2]) }, { kept: { keywords: ['Mill Yard'], shown: [4, 5] } }]);
    assert.deepEqual(
      llm.calls.map((call) => call.purpose),
      ['autokg-extract', 'autokg-refine'],
    );
    assert.deepEqual(unchanged.keywords, final.output);

    const emptied = createScriptedLanguageModel({ responses: [{ match: 'Output:', reply: 'Ferry Inn, Weir Bridge' }, { match: 'Processed keywords:', reply: 'Ferry Inn, Weir Bridge' }] });
    const result = await update(emptied, [{ kept: { keywords: ['Ferry Inn'], shown: [0, 1] } }, { kept: { keywords: ['Weir Bridge'], shown: [2, 3] } }, { show: new Int32Array(0) }]);
    assert.deepEqual(
      emptied.calls.map((call) => call.purpose),
      ['autokg-refine-all', 'autokg-final', 'autokg-final', 'autokg-final'],
    );
    assert.deepEqual(result.named[0]?.[2], { keywords: [], shown: [] });
    assert.deepEqual(result.keywords, ['Ferry Inn', 'Weir Bridge']);
  });
});
