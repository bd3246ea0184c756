import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { KgragError } from '../../core/errors.js';
import { loadCustom } from './load-custom.js';

const passages = [
  { title: 'Kester Weir Bridge', text: 'The bridge was designed by Ivesley & Thorne.\n\nIt opened in 1938.' },
  { title: 'Clara Ivesley', text: 'Clara Ivesley trained at Brennard Technical College.' },
];
const key = (index: number) => `${passages[index]?.title}\n${passages[index]?.text}`;

const questionLines = [
  JSON.stringify({ id: 'q01', question: 'Where did the bridge designer train?', answers: ['Brennard Technical College'], gold_passages: [key(0), key(1)], type: 'multi-hop', hops: 2 }),
  '',
  JSON.stringify({ question: 'What are the main themes?', answers: [], gold_passages: [] }),
  JSON.stringify({ id: 7, question: 'When did the bridge open?', answers: ['1938'], gold_passages: [key(0), key(0)] }),
];

const isCode = (code: string, pattern: RegExp) => (error: unknown) => {
  assert.ok(KgragError.isInstance(error), String(error));
  assert.equal(error.code, code);
  assert.match(error.message, pattern);
  return true;
};

describe('loadCustom', () => {
  let directory = '';
  const path = (name: string) => join(directory, name);

  before(async () => {
    directory = await mkdtemp(join(tmpdir(), 'kgrag-custom-'));
    await writeFile(path('corpus.json'), JSON.stringify(passages));
    await writeFile(path('corpus.jsonl'), `\uFEFF${passages.map((passage) => JSON.stringify(passage)).join('\n')}\n`);
    await writeFile(path('questions.jsonl'), `${questionLines.join('\n')}\n`);
  });
  after(() => rm(directory, { recursive: true, force: true }));

  it('reads corpus.json and questions.jsonl; keys are title + "\\n" + text', async () => {
    const dataset = await loadCustom({ corpus: path('corpus.json'), questions: path('questions.jsonl') });
    assert.match(dataset.name, /^kgrag-custom-/);
    assert.deepEqual(dataset.passages[1], { key: key(1), title: 'Clara Ivesley', text: 'Clara Ivesley trained at Brennard Technical College.' });
    assert.deepEqual(dataset.questions, [
      { id: 'q01', question: 'Where did the bridge designer train?', answers: ['Brennard Technical College'], goldKeys: [key(0), key(1)], type: 'multi-hop' },
      { id: 'q2', question: 'What are the main themes?', answers: [], goldKeys: [] },
      { id: '7', question: 'When did the bridge open?', answers: ['1938'], goldKeys: [key(0)] },
    ]);
  });

  it('reads corpus.jsonl (with a byte-order mark) the same way', async () => {
    const fromJson = await loadCustom({ corpus: path('corpus.json'), questions: path('questions.jsonl') });
    const fromLines = await loadCustom({ corpus: path('corpus.jsonl'), questions: path('questions.jsonl'), name: 'lines' });
    assert.deepEqual(fromLines.passages, fromJson.passages);
    assert.equal(fromLines.name, 'lines');
  });

  it('reports bad question lines with their line numbers', async () => {
    await writeFile(path('bad.jsonl'), [questionLines[0], '{"question": "no closing brace"', JSON.stringify({ question: 'x', answers: 'one' }), JSON.stringify({ answers: [] })].join('\n'));
    await assert.rejects(
      loadCustom({ corpus: path('corpus.json'), questions: path('bad.jsonl') }),
      isCode('EVAL_DATASET_INVALID', /bad\.jsonl: line 2 is not valid JSON; line 3: answers: .*; line 4: question: /),
    );
  });

  it('reports corpus lines that are not {title, text}', async () => {
    await writeFile(path('bad-corpus.jsonl'), `${JSON.stringify(passages[0])}\n{"title": "no text"}\n`);
    await assert.rejects(loadCustom({ corpus: path('bad-corpus.jsonl'), questions: path('questions.jsonl') }), isCode('EVAL_DATASET_INVALID', /bad-corpus\.jsonl: line 2: text: /));
    await writeFile(path('object-corpus.json'), JSON.stringify({ title: 'x', text: 'y' }));
    await assert.rejects(loadCustom({ corpus: path('object-corpus.json'), questions: path('questions.jsonl') }), isCode('EVAL_DATASET_INVALID', /object-corpus\.json: /));
  });

  it('lists up to five gold passages that match no corpus passage', async () => {
    const lines = Array.from({ length: 7 }, (_, index) => JSON.stringify({ id: `m${index}`, question: 'q', answers: [], gold_passages: [`Missing ${index}\nbody`] }));
    await writeFile(path('missing.jsonl'), lines.join('\n'));
    await assert.rejects(loadCustom({ corpus: path('corpus.json'), questions: path('missing.jsonl') }), (error: unknown) => {
      isCode('EVAL_GOLD_NOT_IN_CORPUS', /7 gold passage\(s\) match no passage of .*corpus\.json: m0: "Missing 0\\n…"; .*m4: "Missing 4\\n…" and 2 more/)(error);
      assert.doesNotMatch((error as Error).message, /\bm5: /);
      assert.match((error as KgragError).hint ?? '', /title \+ "\\n" \+ text/);
      return true;
    });
  });

  it('rejects repeated question ids', async () => {
    await writeFile(path('repeated.jsonl'), [questionLines[2], questionLines[2]].map((line) => line?.replace('{', '{"id": "same", ')).join('\n'));
    await assert.rejects(loadCustom({ corpus: path('corpus.json'), questions: path('repeated.jsonl') }), isCode('EVAL_DATASET_INVALID', /question id\(s\) occur more than once: same/));
  });

  it('accepts the questions as one JSON array in a .json file', async () => {
    await writeFile(path('questions.json'), `[${questionLines.filter((line) => line !== '').join(',')}]`);
    const dataset = await loadCustom({ corpus: path('corpus.json'), questions: path('questions.json') });
    assert.equal(dataset.questions.length, 3);
    // A file of another format (MuSiQue here) must not load as questions without gold passages.
    await writeFile(path('other-format.json'), JSON.stringify([{ id: '2hop__1', question: 'q', answer: 'x', paragraphs: [] }]));
    await assert.rejects(
      loadCustom({ corpus: path('corpus.json'), questions: path('other-format.json') }),
      isCode('EVAL_DATASET_INVALID', /other-format\.json: does not have the expected shape: \[0\]\.answers: .*\[0\]\.gold_passages: /),
    );
  });
});
