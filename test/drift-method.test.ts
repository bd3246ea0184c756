import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { createKgrag, type Kgrag } from '../src/api/create-kgrag.js';
import { sampleWorkspace } from './helpers/test-server.js';
import type { ChatRequest } from '../src/providers/llm/language-model.js';
import { createScriptedLanguageModel, type ScriptedLanguageModel } from '../src/testing/scripted-language-model.js';

/** A copy of the sample corpus's fast index, built once per test run (test/helpers/test-server.ts). */
let workspace = '';

const open = (options: Parameters<typeof createKgrag>[0] = {}): Promise<Kgrag> => createKgrag({ workspace, env: {}, ...options });

const lastUser = (request: ChatRequest): string => [...request.messages].reverse().find((message) => message.role === 'user')?.content ?? '';
const firstRow = (text: string, title: string): number => Number(new RegExp(`-----${title}-----\\n[^\\n]*\\n(\\d+)\\|`).exec(text)?.[1] ?? -1);

/**
 * A scripted model for DRIFT: each primer fold proposes two follow-ups, each local answer proposes one new
 * follow-up and cites its first Sources row, and the reduce cites a report of the primer and a source of a
 * local context.
 */
function driftModel(): { llm: ScriptedLanguageModel; cited: { report: number; source: number } } {
  const cited = { report: -1, source: -1 };
  let primers = 0;
  let locals = 0;
  const llm = createScriptedLanguageModel({
    responses: [
      { match: (request) => request.purpose === 'drift-hyde', reply: '# Quaymark Software\n\nA software company in Kestermouth founded by two graduates.' },
      {
        match: (request) => request.purpose === 'drift-primer',
        reply: (request) => {
          const fold = primers++;
          if (cited.report === -1) cited.report = firstRow(lastUser(request), 'Reports');
          return { intermediate_answer: `# Primer ${fold}\n\nQuaymark was founded in 2008 [Data: Reports (${firstRow(lastUser(request), 'Reports')})].`, score: 40 + fold, follow_up_queries: [`Who founded Quaymark, part ${fold}?`, `Where did Quaymark start, part ${fold}?`] };
        },
      },
      {
        match: (request) => request.purpose === 'drift-local',
        reply: (request) => {
          const source = firstRow(request.messages[0]?.content ?? '', 'Sources');
          if (cited.source === -1) cited.source = source;
          return { response: `Nell Wren co-founded it [Data: Sources (${source})].`, score: 70, follow_up_queries: [`Deeper question ${locals++}`] };
        },
      },
      {
        match: (request) => request.purpose === 'answer',
        reply: () => `Quaymark Software was founded in 2008 by Nell Wren and Priya Anand [Data: Reports (${cited.report}); Sources (${cited.source}, 99999)].`,
      },
    ],
  });
  return { llm, cited };
}

before(async () => {
  workspace = await sampleWorkspace();
});

after(() => rmSync(workspace, { recursive: true, force: true }));

describe('drift', () => {
  const params = { driftKFollowups: 6, primerFolds: 3, nDepth: 2 };

  test('makes 1 HyDE + one call per primer fold + one per answered follow-up + 1 reduce, all interactive, and maps citations over every context', async () => {
    const { llm } = driftModel();
    const kgrag = await open({ llm });
    let streamed = '';
    const result = await kgrag.query('Who founded Quaymark Software?', { method: 'drift', params, onText: (delta) => (streamed += delta) });
    // 3 folds × 2 follow-ups = 6 in round 1; each answer proposes 1, so 6 more in round 2.
    assert.equal(llm.calls.length, 1 + 3 + 12 + 1);
    assert.equal(result.usage.llmCalls, 17);
    const purposes = llm.calls.map((call) => call.purpose);
    assert.deepEqual(purposes, ['drift-hyde', 'drift-primer', 'drift-primer', 'drift-primer', ...Array<string>(12).fill('drift-local'), 'answer']);
    for (const call of llm.calls) assert.equal(call.priority, 'interactive');
    assert.ok(result.usage.inputTokens > 0 && result.usage.outputTokens > 0);
    assert.equal(streamed.trim(), result.answer.text);
    assert.equal(result.answer.kind, 'generated');

    // Round 1 takes the primer follow-ups by score (the folds' average for all), ties by text; round 2 the new ones.
    const round1 = llm.calls.slice(4, 10).map(lastUser);
    assert.deepEqual(round1, [...round1].sort());
    assert.ok(round1.every((query) => /part \d/.test(query)));
    assert.deepEqual(llm.calls.slice(10, 16).map(lastUser), ['Deeper question 0', 'Deeper question 1', 'Deeper question 2', 'Deeper question 3', 'Deeper question 4', 'Deeper question 5'].sort());

    const reduce = llm.calls.at(-1)?.messages[0]?.content ?? '';
    assert.match(reduce, /-----Intermediate Answers-----\nid\|query\|score\|answer\n1\|/);
    assert.equal(result.context.text.length > 0, true);
    assert.ok(reduce.includes(result.context.text));
    const reportCitation = result.citations.find((citation) => citation.dataset === 'Reports');
    const sourceCitation = result.citations.find((citation) => citation.dataset === 'Sources');
    assert.ok(reportCitation && sourceCitation);
    assert.equal((await kgrag.store.table('reports').get([reportCitation.id]))[0]?.hid, reportCitation.hid);
    assert.equal((await kgrag.store.table('chunks').get([sourceCitation.id]))[0]?.hid, sourceCitation.hid);
    assert.equal(result.trace.unknownReferences, 1);
    await kgrag.close();
  });

  test('sends score as a number in its JSON schemas, and accepts the scores a model writes as strings or fractions', async () => {
    let primers = 0;
    const llm = createScriptedLanguageModel({
      responses: [
        { match: (request) => request.purpose === 'drift-hyde', reply: '# Quaymark Software\n\nA software company.' },
        {
          match: (request) => request.purpose === 'drift-primer',
          // A string score, a fraction of 100, and a 0–1 confidence: each is what global's map accepts too.
          reply: () => ({ intermediate_answer: 'Quaymark was founded in 2008.', score: ['85/100', '72', 0.6][primers++ % 3], follow_up_queries: ['Who founded Quaymark?'] }),
        },
        { match: (request) => request.purpose === 'drift-local', reply: { response: 'Nell Wren co-founded it.', score: '70%', follow_up_queries: [] } },
        { match: (request) => request.purpose === 'answer', reply: 'Quaymark Software was founded in 2008 by Nell Wren.' },
      ],
    });
    const kgrag = await open({ llm });
    const result = await kgrag.query('Who founded Quaymark Software?', { method: 'drift', params: { ...params, nDepth: 1 } });
    assert.equal(result.answer.kind, 'generated');
    assert.deepEqual(result.warnings, []);
    for (const purpose of ['drift-primer', 'drift-local']) {
      const call = llm.calls.find((candidate) => candidate.purpose === purpose);
      const schema = call?.responseFormat?.schema as { properties?: Record<string, { type?: string }> } | undefined;
      assert.equal(schema?.properties?.['score']?.type, 'number', `${purpose} sends score as a number`);
    }
    assert.equal(llm.calls.filter((call) => call.purpose === 'drift-primer').length, 3, 'no repair turns');
    const reduce = llm.calls.at(-1)?.messages[0]?.content ?? '';
    assert.match(reduce, /\|85\|Quaymark was founded in 2008\./);
    assert.match(reduce, /\|Who founded Quaymark\?\|70\|Nell Wren co-founded it\./);
    await kgrag.close();
  });

  test('a primer fold whose replies are no usable JSON is left out with a warning, not the whole query', async () => {
    let badFold: string | undefined;
    const llm = createScriptedLanguageModel({
      responses: [
        { match: (request) => request.purpose === 'drift-hyde', reply: '# Quaymark Software' },
        {
          match: (request) => request.purpose === 'drift-primer',
          // The first fold, in its first turn and its repair turn (which repeats the fold's prompt); the other folds answer.
          reply: (request) => {
            badFold ??= request.messages[0]?.content;
            return request.messages[0]?.content === badFold ? 'I think the score is high.' : { intermediate_answer: 'Founded in 2008.', score: 50, follow_up_queries: [] };
          },
        },
        { match: (request) => request.purpose === 'answer', reply: 'Founded in 2008.' },
      ],
    });
    const kgrag = await open({ llm });
    const result = await kgrag.query('Who founded Quaymark Software?', { method: 'drift', params: { ...params, primerFolds: 3, nDepth: 1 } });
    assert.equal(result.answer.text, 'Founded in 2008.');
    assert.deepEqual(result.warnings, ["drift: the model's replies to 1 of 3 primer folds did not match the JSON schema even after a repair turn, so they were left out of the answer"]);
    await kgrag.close();
  });

  test('the HyDE template is the report nearest to the question; the same question gives the same calls in the same order', async () => {
    const runs: string[][] = [];
    for (let run = 0; run < 2; run++) {
      const { llm } = driftModel();
      const kgrag = await open({ llm });
      await kgrag.query('Who founded Quaymark Software?', { method: 'drift', params });
      runs.push(llm.calls.map((call) => `${call.purpose}\n${call.messages.map((message) => message.content).join('\n')}`));
      await kgrag.close();
    }
    assert.deepEqual(runs[0], runs[1]);
    const kgrag = await open();
    const retrieval = await kgrag.retrieve('Who founded Quaymark Software?', { method: 'drift', params: { driftKFollowups: 1 } });
    const nearest = await kgrag.store.table('reports').get([retrieval.retrieval.communities?.[0]?.id ?? '']);
    assert.ok(runs[0]?.[0]?.includes(nearest[0]?.fullContent ?? '∅'), 'the HyDE prompt shows the nearest report');
    await kgrag.close();
  });

  test('without an LLM: answering is a config error with a hint, but retrieval and --context-only work', async () => {
    const kgrag = await open();
    await assert.rejects(kgrag.query('Who founded Quaymark Software?', { method: 'drift' }), (error: unknown) => {
      const { code, category, hint } = error as { code?: string; category?: string; hint?: string };
      return code === 'QUERY_NEEDS_LLM' && category === 'config' && /KGRAG_LLM_BASE_URL|OPENAI_API_KEY/.test(hint ?? '');
    });
    const retrieved = await kgrag.retrieve('Who founded Quaymark Software?', { method: 'drift' });
    assert.ok(retrieved.retrieval.chunks.length > 0);
    assert.ok(retrieved.retrieval.chunks.some((chunk) => chunk.documentTitle === 'Quaymark Software'));
    const communities = retrieved.retrieval.communities ?? [];
    assert.ok(communities.length > 0 && communities.length <= 20);
    for (const community of communities) assert.ok(community.level <= 2);
    const preview = await kgrag.query('Who founded Quaymark Software?', { method: 'drift', contextOnly: true });
    assert.equal(preview.answer.kind, 'none');
    assert.equal(preview.usage.llmCalls, 0);
    assert.match(preview.context.text, /^-----Reports-----/);
    assert.match(preview.context.text, /-----Sources-----/);
    await kgrag.close();
  });

  test('invalid parameters are rejected', async () => {
    const kgrag = await open();
    await assert.rejects(
      kgrag.retrieve('Who founded Quaymark Software?', { method: 'drift', params: { localSearchTextUnitProp: 0.95, localSearchCommunityProp: 0.1 } }),
      (error: unknown) => (error as { code?: string }).code === 'QUERY_INVALID_PARAMS' && /must be at most 1/.test((error as Error).message),
    );
    await kgrag.close();
  });
});
