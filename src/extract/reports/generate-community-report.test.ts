import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ChatRequest } from '../../providers/llm/language-model.js';
import { LlmCallError } from '../../providers/llm/llm-call-error.js';
import { createScriptedLanguageModel } from '../../testing/scripted-language-model.js';
import { generateCommunityReport } from './generate-community-report.js';

const context = '-----Entities-----\nhuman_readable_id,title,type,description,degree\n1,ADA,person,A mathematician,1';

const valid = {
  title: 'Ada and the Engine',
  summary: 'Ada wrote the first program [Data: Entities (1)].',
  rating: 6.5,
  rating_explanation: 'Foundational for computing.',
  findings: [
    { summary: 'First program', explanation: 'Ada published an algorithm [Data: Entities (1)].' },
    { summary: 'Notes', explanation: 'Her notes were longer than the paper.' },
  ],
};

const firstMessage = (request: ChatRequest | undefined): string => request?.messages[0]?.content ?? '';

describe('generateCommunityReport', () => {
  it('returns the validated report with its markdown, in one call', async () => {
    const model = createScriptedLanguageModel({ responses: [{ reply: valid }] });
    const outcome = await generateCommunityReport(model, { context, maxWords: 1500 });
    assert.deepEqual(outcome, {
      ok: true,
      attempts: 1,
      report: {
        title: 'Ada and the Engine',
        summary: 'Ada wrote the first program [Data: Entities (1)].',
        rating: 6.5,
        ratingExplanation: 'Foundational for computing.',
        findings: valid.findings,
        fullContent:
          '# Ada and the Engine\n\nAda wrote the first program [Data: Entities (1)].\n\n## First program\n\nAda published an algorithm [Data: Entities (1)].\n\n## Notes\n\nHer notes were longer than the paper.',
      },
    });
    const request = model.calls[0];
    assert.equal(request?.purpose, 'community-report');
    assert.equal(request?.responseFormat?.name, 'community_report');
    const prompt = firstMessage(request);
    assert.ok(prompt.includes(context));
    assert.match(prompt, /under 1500 words/);
    assert.doesNotMatch(prompt, /\{input_text\}|\{max_report_length\}/);
    assert.ok(prompt.indexOf('---Reminder---') > prompt.indexOf(context), 'the instructions are repeated after the data');
  });

  it('reads lenient replies: numeric-string rating clamped, extra keys, string findings, more than ten findings', async () => {
    const findings = [{ summary: 'A', explanation: 'a', evidence: [1, 2] }, 'Plain finding. With detail.', ...Array.from({ length: 12 }, (_, index) => ({ summary: `F${index}`, explanation: '' }))];
    const model = createScriptedLanguageModel({ responses: [{ reply: `\`\`\`json\n${JSON.stringify({ ...valid, rating: '14', findings, confidence: 'high' })}\n\`\`\`` }] });
    const outcome = await generateCommunityReport(model, { context, maxWords: 2000 });
    assert.ok(outcome.ok);
    assert.equal(outcome.report.rating, 10);
    assert.equal(outcome.report.findings.length, 10);
    assert.deepEqual(outcome.report.findings[0], { summary: 'A', explanation: 'a' });
    assert.deepEqual(outcome.report.findings[1], { summary: 'Plain finding.', explanation: 'Plain finding. With detail.' });
  });

  it("uses generateObject's repair turn first", async () => {
    const model = createScriptedLanguageModel({ responses: [{ reply: { ...valid, rating: 'high' }, times: 1 }, { reply: valid }] });
    const outcome = await generateCommunityReport(model, { context, maxWords: 2000 });
    assert.ok(outcome.ok);
    assert.equal(outcome.attempts, 2);
    assert.equal(model.calls[1]?.messages.length, 3, 'the repair continues the conversation');
  });

  it('retries exactly once with a fresh prompt and a repair note, then succeeds', async () => {
    const model = createScriptedLanguageModel({ responses: [{ reply: 'Here is my report: the community is about Ada.', times: 2 }, { reply: valid }] });
    const outcome = await generateCommunityReport(model, { context, maxWords: 2000 });
    assert.ok(outcome.ok);
    assert.equal(outcome.attempts, 3);
    const retry = model.calls[2];
    assert.equal(retry?.messages.length, 1);
    assert.equal(retry?.purpose, 'community-report');
    assert.equal(retry?.responseFormat?.name, 'community_report');
    assert.ok(firstMessage(retry).startsWith(firstMessage(model.calls[0])), 'the original prompt, then the note');
    assert.match(firstMessage(retry), /---Important---\n\nAn earlier reply to this request could not be used:\n- the reply is not valid JSON/);
  });

  it('gives up after three calls in all, with the problems as the error', async () => {
    const model = createScriptedLanguageModel({ responses: [{ reply: { title: '', findings: [] } }] });
    const outcome = await generateCommunityReport(model, { context, maxWords: 2000 });
    assert.equal(outcome.ok, false);
    assert.equal(model.calls.length, 3);
    assert.equal(outcome.attempts, 3);
    if (!outcome.ok) {
      assert.match(outcome.error, /^The model's community report did not match the report JSON after 3 attempts: /);
      assert.match(outcome.error, /title: /);
      assert.match(outcome.error, /findings: /);
    }
  });

  it('lets provider errors propagate, from the first call or from the retry', async () => {
    const limited = new LlmCallError('Rate limited, retries exhausted', { code: 'LLM_RETRIES_EXHAUSTED', retryable: false });
    const first = createScriptedLanguageModel({ responses: [{ reply: limited }] });
    await assert.rejects(generateCommunityReport(first, { context, maxWords: 2000 }), (error: unknown) => error === limited);
    const auth = new LlmCallError('Unauthorized', { code: 'LLM_AUTHENTICATION_FAILED', retryable: false });
    const later = createScriptedLanguageModel({ responses: [{ reply: 'not json', times: 2 }, { reply: auth }] });
    await assert.rejects(generateCommunityReport(later, { context, maxWords: 2000 }), (error: unknown) => error === auth);
  });

  it('uses workspace prompt overrides', async () => {
    const model = createScriptedLanguageModel({ responses: [{ reply: valid }] });
    await generateCommunityReport(model, { context: 'DATA', maxWords: 10, prompts: { text: (template) => (template.name === 'community-report' ? 'Report on {input_text} in {max_report_length} words.' : template.text) } });
    assert.equal(firstMessage(model.calls[0]), 'Report on DATA in 10 words.');
  });
});
