// Structural checks for the bundled sample corpus (examples/sample-corpus) and its questions
// (examples/sample-questions.jsonl). The design is described in examples/CORPUS-DESIGN.md.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const corpusDir = fileURLToPath(new URL('../examples/sample-corpus/', import.meta.url));
const questionsFile = fileURLToPath(new URL('../examples/sample-questions.jsonl', import.meta.url));

/** The three documents of the implicit-clue story: the weather must never be stated in them. */
const CLUE_STORY_FILES = [
  '28-sam-marle-notebook-14-june-2011.md',
  '29-cotterills-day-book-14-june-2011.md',
  '30-courier-car-wash-record-june-2011.md',
];
/** Another morning of the same person, explicitly rainy. */
const DISTRACTOR_FILE = '31-sam-marle-notebook-20-october-2011.md';

const QUESTION_TYPES = new Set(['multi-hop', 'comparison', 'global', 'family', 'implicit', 'single-hop']);
/** Bridge questions ("multi-hop") and comparison questions: each joins facts from two or more documents. */
const JOINING_TYPES = new Set(['multi-hop', 'comparison']);

interface CorpusDoc {
  file: string;
  raw: string;
  title: string;
  body: string;
}

interface Question {
  id: string;
  question: string;
  answers: string[];
  gold_passages: string[];
  type: string;
  hops: number;
}

function loadCorpus(): CorpusDoc[] {
  return readdirSync(corpusDir)
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((file) => {
      const raw = readFileSync(join(corpusDir, file), 'utf8');
      const newline = raw.indexOf('\n');
      const title = raw.slice(2, newline);
      let body = raw.slice(newline + 2);
      if (body.endsWith('\n')) body = body.slice(0, -1);
      return { file, raw, title, body };
    });
}

function loadQuestionLines(): string[] {
  return readFileSync(questionsFile, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '');
}

function parseQuestion(line: string): Question {
  const value: unknown = JSON.parse(line);
  assert.ok(typeof value === 'object' && value !== null && !Array.isArray(value), `not an object: ${line}`);
  const record = value as Record<string, unknown>;
  const { id, question, answers, gold_passages: gold, type, hops } = record;
  assert.equal(typeof id, 'string', `id in ${line}`);
  assert.equal(typeof question, 'string', `question in ${String(id)}`);
  assert.ok(Array.isArray(answers) && answers.length > 0, `answers in ${String(id)}`);
  assert.ok(answers.every((a) => typeof a === 'string' && a.trim() !== ''), `answers in ${String(id)}`);
  assert.ok(Array.isArray(gold) && gold.length > 0, `gold_passages in ${String(id)}`);
  assert.ok(gold.every((g) => typeof g === 'string'), `gold_passages in ${String(id)}`);
  assert.ok(typeof type === 'string' && QUESTION_TYPES.has(type), `type in ${String(id)}`);
  assert.ok(typeof hops === 'number' && Number.isInteger(hops) && hops >= 1, `hops in ${String(id)}`);
  return record as unknown as Question;
}

function wordCount(text: string): number {
  return text.split(/\s+/).filter((word) => word !== '').length;
}

describe('sample corpus documents', () => {
  const docs = loadCorpus();

  it('has 30 to 36 markdown documents named NN-slug.md', () => {
    assert.ok(docs.length >= 30 && docs.length <= 36, `found ${docs.length} documents`);
    for (const doc of docs) assert.match(doc.file, /^\d{2}-[a-z0-9-]+\.md$/);
    assert.deepEqual(
      readdirSync(corpusDir).filter((name) => !name.endsWith('.md')),
      [],
      'only documents belong in the corpus folder',
    );
  });

  it('starts every file with "# Title", a blank line and a body', () => {
    for (const doc of docs) {
      assert.ok(doc.raw.startsWith('# '), `${doc.file} must start with "# "`);
      assert.ok(doc.title.trim() !== '' && doc.title === doc.title.trim(), `${doc.file} has an empty or padded title`);
      assert.ok(doc.raw.includes(`# ${doc.title}\n\n`), `${doc.file} needs a blank line after the title`);
      assert.ok(doc.body.trim() !== '', `${doc.file} has no body`);
    }
  });

  it('has unique titles', () => {
    const titles = docs.map((doc) => doc.title);
    assert.equal(new Set(titles).size, titles.length);
  });

  it('keeps every document between 120 and 450 words', () => {
    for (const doc of docs) {
      const words = wordCount(doc.raw);
      assert.ok(words >= 120 && words <= 450, `${doc.file} has ${words} words`);
    }
  });
});

describe('sample questions', () => {
  const docs = loadCorpus();
  const passages = new Set(docs.map((doc) => `${doc.title}\n${doc.body}`));
  const lines = loadQuestionLines();

  it('has 50 to 70 well-formed questions with unique ids', () => {
    assert.ok(lines.length >= 50 && lines.length <= 70, `found ${lines.length} questions`);
    const ids = lines.map((line) => parseQuestion(line).id);
    assert.equal(new Set(ids).size, ids.length);
  });

  it('covers every question type in the required numbers', () => {
    const counts = new Map<string, number>();
    for (const line of lines) {
      const { type } = parseQuestion(line);
      counts.set(type, (counts.get(type) ?? 0) + 1);
    }
    assert.ok((counts.get('multi-hop') ?? 0) >= 10, 'at least 10 multi-hop questions');
    assert.ok((counts.get('comparison') ?? 0) >= 10, 'at least 10 comparison questions');
    assert.ok((counts.get('global') ?? 0) >= 4, 'at least 4 global questions');
    assert.ok((counts.get('family') ?? 0) >= 5, 'at least 5 family questions');
    assert.ok((counts.get('implicit') ?? 0) >= 2, 'at least 2 implicit questions');
  });

  it('uses only exact documents as gold passages', () => {
    for (const line of lines) {
      const q = parseQuestion(line);
      assert.equal(new Set(q.gold_passages).size, q.gold_passages.length, `${q.id} repeats a gold passage`);
      for (const gold of q.gold_passages) {
        assert.ok(passages.has(gold), `${q.id}: gold passage "${gold.split('\n')[0]}" is not a document`);
      }
    }
  });

  it('joins several documents for multi-hop, comparison and global questions', () => {
    let joining = 0;
    for (const line of lines) {
      const q = parseQuestion(line);
      if (JOINING_TYPES.has(q.type)) {
        assert.ok(q.hops >= 2 && q.hops <= 4, `${q.id} has ${q.hops} hops`);
        const documents = new Set(q.gold_passages.map((gold) => gold.split('\n')[0]));
        assert.ok(documents.size >= 2, `${q.id} needs at least two different documents`);
        assert.equal(q.hops, documents.size, `${q.id}: hops must count its gold documents`);
        if (q.type === 'comparison') assert.equal(q.hops, 2, `${q.id}: a comparison joins two documents`);
        joining += 1;
      }
      if (q.type === 'global') {
        assert.ok(q.gold_passages.length >= 3 && q.gold_passages.length <= 6, `${q.id} gold size`);
      }
    }
    assert.ok(joining >= 20, `only ${joining} bridge or comparison questions join two or more documents`);
  });
});

describe('implicit-clue story', () => {
  const docs = loadCorpus();
  const byFile = new Map(docs.map((doc) => [doc.file, doc]));

  it('never states the weather in the clue documents', () => {
    for (const file of CLUE_STORY_FILES) {
      const doc = byFile.get(file);
      assert.ok(doc, `missing clue document ${file}`);
      const text = doc.raw.toLowerCase();
      for (const word of ['sun', 'sunny', 'sunshine', 'clear sky', 'weather']) {
        assert.ok(!text.includes(word), `${file} mentions "${word}"`);
      }
      assert.doesNotMatch(text, /\brain/, `${file} mentions rain`);
    }
  });

  it('has a distractor about a rainy day', () => {
    const doc = byFile.get(DISTRACTOR_FILE);
    assert.ok(doc, `missing distractor ${DISTRACTOR_FILE}`);
    assert.match(doc.raw.toLowerCase(), /\brain/);
  });

  it('asks the weather question with the clue documents as gold', () => {
    const clueTitles = CLUE_STORY_FILES.map((file) => byFile.get(file)?.title);
    const weather = loadQuestionLines()
      .map(parseQuestion)
      .find((q) => q.type === 'implicit' && q.answers.some((a) => a.toLowerCase().includes('sunny')));
    assert.ok(weather, 'no implicit weather question');
    assert.deepEqual(
      weather.gold_passages.map((gold) => gold.split('\n')[0]),
      clueTitles,
    );
  });
});
