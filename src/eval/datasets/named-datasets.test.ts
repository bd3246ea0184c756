import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { KgragError } from '../../core/errors.js';
import type { EvalDataset } from '../eval-dataset.js';
import { listNamedDatasets, resolveNamedDataset } from './named-datasets.js';
import { verifySharedDatasets } from './verify-shared-datasets.js';

const sharedDirectory = fileURLToPath(new URL('../../../../shared/datasets/', import.meta.url));
const sharedSkip = existsSync(sharedDirectory) ? false : `the shared datasets are absent (${sharedDirectory}); set up ../shared/datasets to run this test`;

function goldFound(dataset: EvalDataset): { gold: number; found: number } {
  const keys = new Set(dataset.passages.map((passage) => passage.key));
  const gold = dataset.questions.flatMap((question) => question.goldKeys);
  return { gold: gold.length, found: gold.filter((key) => keys.has(key)).length };
}

describe('resolveNamedDataset with the shared data', { skip: sharedSkip }, () => {
  const env = { KGRAG_DATASETS_DIR: undefined };

  it('loads musique-train-100: 100 questions, 1,890 passages, 237 gold passages all in the corpus', async () => {
    const dataset = await resolveNamedDataset('musique-train-100', { env });
    assert.equal(dataset.name, 'musique-train-100');
    assert.equal(dataset.questions.length, 100);
    assert.equal(dataset.passages.length, 1890);
    assert.deepEqual(goldFound(dataset), { gold: 237, found: 237 });
    assert.equal(dataset.questions[0]?.type, '2hop');
    assert.deepEqual(dataset.questions[0]?.answers, ['G. Stanley Hall', 'Stanley Hall']);
  });

  it('loads hotpotqa-train-100: 100 questions, 994 passages, every gold title in the corpus', async () => {
    const dataset = await resolveNamedDataset('hotpotqa-train-100', { env });
    assert.equal(dataset.questions.length, 100);
    assert.equal(dataset.passages.length, 994);
    assert.deepEqual(goldFound(dataset), { gold: 200, found: 200 });
    assert.ok(dataset.questions.every((question) => question.type === 'bridge' || question.type === 'comparison'));
  });

  it('finds the shared files byte-identical to the published ones', async () => {
    assert.deepEqual(await verifySharedDatasets(sharedDirectory), []);
  });
});

describe('resolveNamedDataset', () => {
  let directory = '';
  before(async () => {
    directory = await mkdtemp(join(tmpdir(), 'kgrag-named-'));
    await mkdir(join(directory, 'musique-train-100'));
    await writeFile(join(directory, 'musique-train-100', 'corpus.json'), JSON.stringify([{ title: 'T', text: 'x' }]));
    await writeFile(
      join(directory, 'musique-train-100', 'questions.json'),
      JSON.stringify([{ id: '2hop__1', question: 'q', answer: 'a', answer_aliases: [], paragraphs: [{ idx: 0, title: 'T', paragraph_text: 'x', is_supporting: true }] }]),
    );
  });
  after(() => rm(directory, { recursive: true, force: true }));

  it('loads the bundled sample: 64 questions, 35 passages, every gold passage in the corpus', async () => {
    const dataset = await resolveNamedDataset('sample');
    assert.equal(dataset.name, 'sample');
    assert.equal(dataset.questions.length, 64);
    assert.equal(dataset.passages.length, 35);
    const { gold, found } = goldFound(dataset);
    assert.equal(found, gold);
    assert.ok(gold > 36);
    assert.equal(dataset.passages[0]?.title, 'Kestermouth');
    assert.ok(dataset.passages[0]?.text.startsWith('Kestermouth is a market town'));
  });

  it('reads KGRAG_DATASETS_DIR and warns about files that differ from the published copies', async () => {
    const warnings: string[] = [];
    const dataset = await resolveNamedDataset('musique-train-100', { env: { KGRAG_DATASETS_DIR: directory }, onWarning: (message) => warnings.push(message) });
    assert.equal(dataset.questions.length, 1);
    assert.equal(warnings.length, 2);
    assert.match(warnings[0] ?? '', /musique-train-100\/questions\.json differs from the published copy/);
  });

  it('says where it looked when the data is missing', async () => {
    await assert.rejects(resolveNamedDataset('hotpotqa-train-100', { env: { KGRAG_DATASETS_DIR: directory } }), (error: unknown) => {
      assert.ok(KgragError.isInstance(error));
      assert.equal(error.code, 'EVAL_DATASETS_DIR_NOT_FOUND');
      assert.match(error.message, /KGRAG_DATASETS_DIR: looked in .*kgrag-named-.*\/hotpotqa-train-100/);
      assert.match(error.hint ?? '', /set KGRAG_DATASETS_DIR/);
      return true;
    });
    await assert.rejects(
      resolveNamedDataset('musique-train-100', { datasetsDirectory: join(directory, 'nowhere') }),
      (error: unknown) => KgragError.isInstance(error) && error.code === 'EVAL_DATASETS_DIR_NOT_FOUND' && error.message.includes('nowhere'),
    );
  });

  it('rejects unknown names, listing the known ones', async () => {
    await assert.rejects(
      resolveNamedDataset('musique'),
      (error: unknown) => KgragError.isInstance(error) && error.code === 'EVAL_UNKNOWN_DATASET' && /musique-train-100, hotpotqa-train-100, sample/.test(error.hint ?? ''),
    );
  });

  it('lists the named datasets', () => {
    assert.deepEqual(
      listNamedDatasets().map(({ name, location }) => [name, location]),
      [
        ['musique-train-100', 'shared'],
        ['hotpotqa-train-100', 'shared'],
        ['sample', 'bundled'],
      ],
    );
  });
});
