import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ChatRequest } from '../../providers/llm/language-model.js';
import { createScriptedLanguageModel } from '../../testing/scripted-language-model.js';
import { generateGlobalQuestions } from './question-generation.js';

const description = 'Transcripts of a technology podcast: conversations between a CTO and other technology leaders.';
const userText = (request: ChatRequest): string => request.messages.find((m) => m.role === 'user')?.content ?? '';
const section = (prompt: string, name: string): string => new RegExp(`---${name}---\\n\\n([^\\n]*)`).exec(prompt)?.[1] ?? '';
const stage = (request: ChatRequest): 'personas' | 'tasks' | 'questions' =>
  userText(request).includes('---Task---') ? 'questions' : userText(request).includes('---User---') ? 'tasks' : 'personas';

/** A generator model that answers each stage with `count` items named after their parents. */
function generator(counts: { personas: number; tasks: number; questions: number }, questionText?: (persona: string, task: string, index: number) => string) {
  return createScriptedLanguageModel({
    responses: [
      {
        reply: (request) => {
          const prompt = userText(request);
          const kind = stage(request);
          if (kind === 'personas') return { personas: Array.from({ length: counts.personas }, (_u, i) => `Persona ${i + 1}`) };
          const persona = section(prompt, 'User');
          if (kind === 'tasks') return { tasks: Array.from({ length: counts.tasks }, (_u, i) => `${persona} task ${i + 1}`) };
          const task = section(prompt, 'Task');
          return { questions: Array.from({ length: counts.questions }, (_u, i) => questionText?.(persona, task, i) ?? `What does ${task} reveal overall, view ${i + 1}?`) };
        },
      },
    ],
  });
}

describe('generateGlobalQuestions', () => {
  it('runs three stages and returns N personas × N tasks × N questions with ids g001…', async () => {
    const model = generator({ personas: 2, tasks: 3, questions: 2 });
    const result = await generateGlobalQuestions(model, { datasetDescription: description, personas: 2, tasksPerPersona: 3, questionsPerTask: 2 });
    assert.equal(model.calls.length, 1 + 2 + 2 * 3);
    assert.deepEqual(
      result.personas.map((entry) => entry.persona),
      ['Persona 1', 'Persona 2'],
    );
    assert.deepEqual(
      result.personas[1]?.tasks.map((entry) => entry.task),
      ['Persona 2 task 1', 'Persona 2 task 2', 'Persona 2 task 3'],
    );
    assert.equal(result.questions.length, 12);
    assert.equal(result.duplicatesRemoved, 0);
    assert.deepEqual(
      result.questions.map((entry) => entry.id),
      Array.from({ length: 12 }, (_u, i) => `g${String(i + 1).padStart(3, '0')}`),
    );
    assert.deepEqual(result.questions[0], {
      id: 'g001',
      question: 'What does Persona 1 task 1 reveal overall, view 1?',
      persona: 'Persona 1',
      task: 'Persona 1 task 1',
    });
    assert.equal(result.questions[11]?.task, 'Persona 2 task 3');
  });

  it('puts the description, counts, persona and task in the prompts and asks for global questions', async () => {
    const model = generator({ personas: 1, tasks: 1, questions: 1 });
    await generateGlobalQuestions(model, { datasetDescription: description, personas: 1, tasksPerPersona: 1, questionsPerTask: 1 });
    const [personas, tasks, questions] = model.calls.map(userText);
    for (const prompt of [personas, tasks, questions]) assert.ok(prompt?.includes(description));
    assert.match(personas ?? '', /identify 1 distinct potential users/);
    assert.match(tasks ?? '', /---User---\n\nPersona 1\n/);
    assert.match(questions ?? '', /---Task---\n\nPersona 1 task 1\n/);
    assert.match(questions ?? '', /understanding of the entire dataset/);
    for (const call of model.calls) {
      assert.equal(call.purpose, 'eval-questions');
      assert.equal(call.responseFormat?.type, 'json');
    }
  });

  it('truncates longer lists to the requested counts', async () => {
    const model = generator({ personas: 4, tasks: 5, questions: 6 });
    const result = await generateGlobalQuestions(model, { datasetDescription: description, personas: 2, tasksPerPersona: 2, questionsPerTask: 3 });
    assert.equal(result.personas.length, 2);
    assert.ok(result.personas.every((entry) => entry.tasks.length === 2 && entry.tasks.every((task) => task.questions.length === 3)));
    assert.equal(result.questions.length, 12);
    assert.equal(model.calls.length, 1 + 2 + 4);
  });

  it('asks again once when a list is too short, then accepts a complete one', async () => {
    let short = true;
    const model = createScriptedLanguageModel({
      responses: [
        {
          reply: (request) => {
            if (stage(request) === 'personas') {
              if (short) {
                short = false;
                return { personas: ['Only one'] };
              }
              return { personas: ['One', 'Two'] };
            }
            return stage(request) === 'tasks' ? { tasks: ['T'] } : { questions: [`Q for ${section(userText(request), 'User')}?`] };
          },
        },
      ],
    });
    const result = await generateGlobalQuestions(model, { datasetDescription: description, personas: 2, tasksPerPersona: 1, questionsPerTask: 1 });
    assert.deepEqual(
      result.questions.map((entry) => entry.question),
      ['Q for One?', 'Q for Two?'],
    );
    const repair = model.calls[1]?.messages ?? [];
    assert.equal(repair.length, 3);
    assert.match(repair[2]?.content ?? '', /personas/);
  });

  it('fails, naming the stage, when a list stays too short after the repair', async () => {
    const model = generator({ personas: 2, tasks: 2, questions: 1 });
    await assert.rejects(
      generateGlobalQuestions(model, { datasetDescription: description, personas: 2, tasksPerPersona: 2, questionsPerTask: 3 }),
      (error: unknown) => {
        assert.equal((error as { code?: string }).code, 'EVAL_QUESTION_GENERATION_FAILED');
        assert.match((error as Error).message, /at the questions of persona "Persona \d", task "Persona \d task \d"/);
        assert.match((error as Error).message, /did not return 3 valid questions/);
        return true;
      },
    );
  });

  it('rejects empty strings as items', async () => {
    const model = createScriptedLanguageModel({ responses: [{ reply: { personas: ['A', '  '] } }] });
    await assert.rejects(
      generateGlobalQuestions(model, { datasetDescription: description, personas: 2, tasksPerPersona: 1, questionsPerTask: 1 }),
      { code: 'EVAL_QUESTION_GENERATION_FAILED' },
    );
    assert.equal(model.calls.length, 2);
  });

  it('removes identical questions (ignoring case and spacing) and numbers the rest without gaps', async () => {
    const model = generator({ personas: 2, tasks: 1, questions: 2 }, (persona, _task, index) =>
      index === 0 ? 'What  are the MAIN themes across all episodes?' : `Unique question ${persona}?`,
    );
    const result = await generateGlobalQuestions(model, { datasetDescription: description, personas: 2, tasksPerPersona: 1, questionsPerTask: 2 });
    assert.equal(result.duplicatesRemoved, 1);
    assert.deepEqual(
      result.questions.map(({ id, question, persona }) => ({ id, question, persona })),
      [
        { id: 'g001', question: 'What  are the MAIN themes across all episodes?', persona: 'Persona 1' },
        { id: 'g002', question: 'Unique question Persona 1?', persona: 'Persona 1' },
        { id: 'g003', question: 'Unique question Persona 2?', persona: 'Persona 2' },
      ],
    );
    assert.equal(result.personas[1]?.tasks[0]?.questions.length, 2);
  });

  it('widens ids past 999 questions', async () => {
    const model = generator({ personas: 10, tasks: 10, questions: 11 });
    const result = await generateGlobalQuestions(model, { datasetDescription: description, personas: 10, tasksPerPersona: 10, questionsPerTask: 11, concurrency: 8 });
    assert.equal(result.questions.length, 1100);
    assert.equal(result.questions[0]?.id, 'g0001');
    assert.equal(result.questions[1099]?.id, 'g1100');
  });

  it('rejects invalid options before calling the model', async () => {
    const model = createScriptedLanguageModel({ responses: [] });
    await assert.rejects(generateGlobalQuestions(model, { datasetDescription: ' ', personas: 1, tasksPerPersona: 1, questionsPerTask: 1 }), { code: 'EVAL_INVALID_OPTIONS' });
    await assert.rejects(generateGlobalQuestions(model, { datasetDescription: description, personas: 0, tasksPerPersona: 1.5, questionsPerTask: 1 }), { code: 'EVAL_INVALID_OPTIONS' });
    assert.equal(model.calls.length, 0);
  });
});
