import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { createKgrag, type Kgrag } from '../src/api/create-kgrag.js';
import { builtInMethods } from '../src/api/built-in-methods.js';
import { createMethodRegistry } from '../src/api/method-registry.js';
import { promptTemplates } from '../src/api/prompt-templates.js';
import { contentId } from '../src/core/ids.js';
import { extractOpenie } from '../src/extract/triples/extract-openie.js';
import { openiePrompts } from '../src/extract/triples/openie-prompts.js';
import { buildTripleIndex } from '../src/extract/triples/triple-index.js';
import type { InputDocument, PipelineEvent } from '../src/pipeline/pipeline-step.js';
import type { ChatRequest } from '../src/providers/llm/language-model.js';
import { createScriptedLanguageModel, type ScriptedLanguageModel } from '../src/testing/index.js';

/*
 * HippoRAG's LLM OpenIE with the scripted fake model: the two calls per chunk, tolerance of malformed
 * replies, and the `triples` step's resumability (stored replies are never paid for twice).
 */

const root = mkdtempSync(join(tmpdir(), 'kgrag-triples-openie-'));
after(() => rmSync(root, { recursive: true, force: true }));

const userText = (request: ChatRequest): string => request.messages.find((message) => message.role === 'user')?.content ?? '';

/** The paragraph an OpenIE prompt was filled with (the last fenced block). */
function paragraphOf(request: ChatRequest): string {
  const text = userText(request);
  const start = text.lastIndexOf('Paragraph:\n```\n') + 'Paragraph:\n```\n'.length;
  return text.slice(start, text.indexOf('\n```', start));
}

/** A model that answers NER with the capitalized words of the paragraph and links them pairwise, plus two malformed triples. */
function openieModel(options: { unusable?: string } = {}): ScriptedLanguageModel {
  return createScriptedLanguageModel({
    responses: [
      { match: (request) => options.unusable !== undefined && paragraphOf(request).includes(options.unusable), reply: 'I cannot help with that.' },
      {
        match: (request) => request.purpose === 'openie-ner',
        reply: (request) => ({ named_entities: [...new Set(paragraphOf(request).match(/\b[A-Z][a-z]+(?: [A-Z][a-z]+)*/g) ?? [])] }),
      },
      {
        match: (request) => request.purpose === 'openie-triples',
        reply: (request) => {
          const entities = (JSON.parse(/\{"named_entities":.*\}$/m.exec(userText(request))?.[0] ?? '{}') as { named_entities?: string[] }).named_entities ?? [];
          const triples: unknown[] = entities.slice(1).map((entity, index) => [entities[index], 'is linked to', entity]);
          return { triples: [...triples, ['only', 'two'], [entities[0] ?? 'x', 42, 'y']] };
        },
      },
    ],
  });
}

const documents: InputDocument[] = [
  { title: 'Ada Lovelace', text: 'Ada Lovelace wrote notes on the Analytical Engine of Charles Babbage in London.' },
  { title: 'Analytical Engine', text: 'The Analytical Engine was designed by Charles Babbage. Ada Lovelace described it.' },
  { title: 'Charles Babbage', text: 'Charles Babbage was a mathematician in London. He designed the Difference Engine.' },
  { title: 'London', text: 'London is the capital of England. The Royal Society met in London.' },
  { title: 'Royal Society', text: 'The Royal Society is a learned society in London. Charles Babbage was a Fellow.' },
];

async function open(workspace: string, llm: ScriptedLanguageModel): Promise<Kgrag> {
  return createKgrag({ workspace, env: {}, llm, config: { extract: { triples: { extractor: 'llm' } }, llm: { concurrency: 1 } } });
}

const countPurpose = (llm: ScriptedLanguageModel, purpose: string): number => llm.calls.filter((call) => call.purpose === purpose).length;

describe('LLM OpenIE of one chunk', () => {
  test('asks for the named entities, then for triples given them; drops and counts malformed entries', async () => {
    const model = createScriptedLanguageModel({
      responses: [
        { match: (request) => request.purpose === 'openie-ner', reply: { named_entities: ['Ada Lovelace', 7, '', 'Analytical Engine', 'Ada Lovelace', null] } },
        {
          match: (request) => request.purpose === 'openie-triples',
          reply: {
            triples: [
              ['Ada Lovelace', 'wrote notes on', 'Analytical Engine'],
              ['Ada Lovelace', 'worked on'],
              ['a', 'b', 'c', 'd'],
              ['x', 1, 'y'],
              ['', 'is', 'z'],
              'Ada Lovelace knew Babbage',
              [' Analytical Engine ', 'designed by', 'Charles Babbage'],
            ],
          },
        },
      ],
    });
    const result = await extractOpenie(model, { text: 'Ada Lovelace wrote notes on the Analytical Engine of Charles Babbage.' });
    assert.deepEqual(result.entities, ['Ada Lovelace', 'Analytical Engine']);
    assert.deepEqual(result.triples, [
      ['Ada Lovelace', 'wrote notes on', 'Analytical Engine'],
      ['Analytical Engine', 'designed by', 'Charles Babbage'],
    ]);
    assert.deepEqual(result.dropped, { entities: 3, triples: 5 });
    assert.equal(result.calls, 2);
    assert.deepEqual(
      model.calls.map((call) => [call.purpose, call.priority]),
      [
        ['openie-ner', 'batch'],
        ['openie-triples', 'batch'],
      ],
    );
    const [ner, triples] = model.calls.map(userText);
    assert.ok(ner?.includes('Ada Lovelace wrote notes on the Analytical Engine of Charles Babbage.'));
    assert.ok(triples?.includes('{"named_entities":["Ada Lovelace","Analytical Engine"]}'), 'the triples call is conditioned on the entities found');
    assert.ok(model.calls.every((call) => call.responseFormat?.type === 'json'), 'structured JSON output');
  });

  test('the prompts are built-in templates a workspace can override', () => {
    const names = promptTemplates(createMethodRegistry(builtInMethods)).map((template) => template.name);
    assert.ok(names.includes(openiePrompts.ner.name) && names.includes(openiePrompts.triples.name));
    assert.match(openiePrompts.ner.text, /\{passage\}/);
    assert.match(openiePrompts.triples.text, /\{passage\}[\s\S]*\{named_entity_json\}/);
  });
});

describe('the triples step with LLM OpenIE', () => {
  test('extracts every chunk with two calls, stores content-hash ids, embeds phrases and facts, and counts dropped triples', async () => {
    const llm = openieModel();
    const kgrag = await open(join(root, 'full'), llm);
    try {
      const summary = await kgrag.index(documents);
      assert.ok(summary.ran.includes('triples') && summary.ran.includes('embed-triples'));
      assert.equal(countPurpose(llm, 'openie-ner'), 5);
      assert.equal(countPurpose(llm, 'openie-triples'), 5);
      assert.equal(llm.calls.length, 10, 'fast mode makes no other LLM call');
      const counts = summary.counts.triples ?? {};
      assert.equal(counts['extracted'], 5);
      assert.equal(counts['droppedTriples'], 10, 'two malformed triples per chunk');
      const triples = await kgrag.store.table('triples').all();
      assert.ok(triples.length >= 5);
      for (const triple of triples) assert.equal(triple.id, contentId('triple', triple.chunkId, triple.subject, triple.predicate, triple.object));
      const index = buildTripleIndex(triples);
      assert.deepEqual((await kgrag.store.vectors('phrases').ids()).sort(), [...index.phraseIds].sort());
      assert.deepEqual((await kgrag.store.vectors('facts').ids()).sort(), [...index.factIds].sort());
      assert.equal((await kgrag.store.table('extractions').where('extractor', ['llm-openie'])).length, 5);
    } finally {
      await kgrag.close();
    }
  });

  test('is resumable: a run killed mid-step keeps the replies it paid for, and a rerun asks only for the rest', async () => {
    const workspace = join(root, 'resume');
    // More chunks than the step keeps in flight (4 × llm.concurrency), so the crash leaves some unextracted.
    const corpus = [...documents, ...Array.from({ length: 15 }, (_, index) => ({ title: `Engine ${index}`, text: `Engine Number ${index} was built in Leeds by Fairbairn Works.` }))];
    const total = corpus.length;
    const first = openieModel();
    const killed = await open(workspace, first);
    const crash = (event: PipelineEvent): void => {
      if (event.type === 'step-progress' && event.step === 'triples' && event.done === 2) throw new Error('injected crash');
    };
    await assert.rejects(killed.index(corpus, { onEvent: crash }), /injected crash/);
    await killed.close();
    const paidFirst = countPurpose(first, 'openie-ner');
    assert.ok(paidFirst >= 2 && paidFirst < total, `${paidFirst} chunks were extracted before the crash`);

    const second = openieModel();
    const resumed = await open(workspace, second);
    try {
      await resumed.index(corpus);
      assert.equal(countPurpose(second, 'openie-ner'), total - paidFirst, 'no chunk is extracted twice');
      assert.equal(countPurpose(second, 'openie-triples'), total - paidFirst);
      const again = await resumed.index(corpus);
      assert.ok(again.skipped.includes('triples'));
      assert.equal(second.calls.length, 2 * (total - paidFirst), 'a second run makes no calls');
    } finally {
      await resumed.close();
    }

    const third = openieModel();
    const grown = await open(workspace, third);
    try {
      const summary = await grown.index([...corpus, { title: 'Difference Engine', text: 'The Difference Engine was built by the Science Museum in London.' }]);
      assert.equal(third.calls.length, 2, 'only the new chunk is extracted');
      assert.equal(summary.counts.triples?.['reused'], total);
    } finally {
      await grown.close();
    }
  });

  test('a chunk whose reply stays unusable is recorded as failed and warned about; the others are kept', async () => {
    const llm = openieModel({ unusable: 'Royal Society is a learned society' });
    const kgrag = await open(join(root, 'unusable'), llm);
    const warnings: string[] = [];
    try {
      const summary = await kgrag.index(documents, { onEvent: (event) => event.type === 'warning' && warnings.push(event.warning.code) });
      assert.equal(summary.counts.triples?.['failed'], 1);
      assert.deepEqual(warnings, ['openie-failed']);
      assert.equal(countPurpose(llm, 'openie-ner'), 5 + 1, 'the unusable NER reply got one repair turn');
      assert.ok((summary.counts.triples?.['triples'] ?? 0) > 0);
    } finally {
      await kgrag.close();
    }
  });

  test('"auto" extracts with NLP in fast mode even with an LLM configured, and with the LLM in standard mode', async () => {
    const llm = openieModel();
    const kgrag = await createKgrag({ workspace: join(root, 'auto'), env: {}, llm });
    try {
      const summary = await kgrag.index(documents);
      assert.equal(llm.calls.length, 0);
      assert.ok((summary.counts.triples?.['triples'] ?? 0) > 0);
      assert.equal(summary.counts.triples?.['extracted'], 0);
    } finally {
      await kgrag.close();
    }
    const { indexPipeline } = await import('../src/api/index-pipeline.js');
    const withLlm = await createKgrag({ workspace: join(root, 'auto'), env: {}, llm });
    try {
      const step = (await indexPipeline({ config: withLlm.config, mode: 'standard', hasLlm: true })).find((entry) => entry.name === 'triples');
      assert.deepEqual((step?.settings(withLlm.config, { prompts: withLlm.prompts, llmModel: 'scripted:scripted-model' }) as { extractor: string }).extractor, 'llm');
      const fast = (await indexPipeline({ config: withLlm.config, mode: 'fast', hasLlm: true })).find((entry) => entry.name === 'triples');
      assert.deepEqual((fast?.settings(withLlm.config, { prompts: withLlm.prompts, llmModel: 'scripted:scripted-model' }) as { extractor: string }).extractor, 'nlp');
    } finally {
      await withLlm.close();
    }
  });

  test('"llm" without a configured LLM is an error naming the setting and the fix', async () => {
    const kgrag = await createKgrag({ workspace: join(root, 'no-llm'), env: {}, config: { extract: { triples: { extractor: 'llm' } } } });
    try {
      await assert.rejects(kgrag.index(documents), (error: unknown) => {
        const { code, hint } = error as { code?: string; hint?: string };
        return code === 'INDEX_TRIPLES_NEED_LLM' && /extract\.triples\.extractor: nlp/.test(hint ?? '');
      });
    } finally {
      await kgrag.close();
    }
  });
});
