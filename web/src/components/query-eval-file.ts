/**
 * Evaluation question files read in the browser, as `kgrag eval` reads them (src/eval/datasets): kgrag's custom
 * JSONL (or JSON array), MuSiQue / HippoRAG JSON lists, HotpotQA / 2WikiMultihopQA and MultiHop-RAG. Only the
 * questions are read: the passages are the workspace's documents.
 */

/** How a dataset's gold passages are keyed, as its loader in src/eval/datasets defines `EvalPassage.key`. */
export type GoldKeyRule = 'title-text' | 'title' | 'url';

/** One question of an evaluation file with the keys of its gold passages. */
export interface EvalFileQuestion {
  id: string;
  question: string;
  answers: string[];
  goldKeys: string[];
}

/** A parsed evaluation file. */
export interface EvalFile {
  name: string;
  format: 'custom' | 'musique' | 'hotpotqa' | 'multihop-rag';
  keyRule: GoldKeyRule;
  questions: EvalFileQuestion[];
}

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const strings = (value: unknown): string[] => (Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : []);
const distinct = (values: string[]): string[] => [...new Set(values)];
const present = (value: unknown): value is string => typeof value === 'string' && value.trim() !== '';

/** Parses an evaluation questions file; throws an Error that names the line or record and the expected shape. */
export function parseEvalFile(name: string, text: string): EvalFile {
  const trimmed = text.trimStart();
  let records: unknown[];
  if (trimmed.startsWith('[')) {
    try {
      records = JSON.parse(trimmed) as unknown[];
    } catch (error) {
      throw new Error(`${name} is not valid JSON (${error instanceof Error ? error.message : String(error)})`);
    }
  } else {
    records = text.split(/\r?\n/).flatMap((line, index) => {
      if (line.trim() === '') return [];
      try {
        return [JSON.parse(line) as unknown];
      } catch {
        throw new Error(`${name} line ${index + 1} is not JSON: expected one {"question", "answers", "gold_passages"} object per line`);
      }
    });
  }
  const first = records.find(isObject);
  if (!first) throw new Error(`${name} holds no question records`);
  if ('gold_passages' in first) return { name, format: 'custom', keyRule: 'title-text', questions: records.map((record, index) => custom(record, index, name)) };
  if ('paragraphs' in first) return { name, format: 'musique', keyRule: 'title-text', questions: records.map((record, index) => musique(record, index, name)) };
  if ('supporting_facts' in first) return { name, format: 'hotpotqa', keyRule: 'title', questions: records.map((record, index) => hotpot(record, index, name)) };
  if ('evidence_list' in first) return { name, format: 'multihop-rag', keyRule: 'url', questions: records.map((record, index) => multihop(record, index, name)) };
  throw new Error(
    `${name} is in no format kgrag eval reads: expected {question, answers, gold_passages} lines, MuSiQue {question, paragraphs}, HotpotQA {question, supporting_facts} or MultiHop-RAG {query, evidence_list}`,
  );
}

function record(value: unknown, index: number, name: string, questionField = 'question'): Json {
  if (!isObject(value) || !present(value[questionField])) throw new Error(`${name} record ${index + 1} has no "${questionField}" text`);
  return value;
}

function custom(value: unknown, index: number, name: string): EvalFileQuestion {
  const item = record(value, index, name);
  if (!Array.isArray(item['gold_passages']) || !Array.isArray(item['answers'])) throw new Error(`${name} record ${index + 1} needs "answers" and "gold_passages" lists`);
  const id = item['id'];
  return {
    id: typeof id === 'string' || typeof id === 'number' ? String(id) : `q${index + 1}`,
    question: item['question'] as string,
    answers: strings(item['answers']).filter(present),
    goldKeys: distinct(strings(item['gold_passages'])),
  };
}

function musique(value: unknown, index: number, name: string): EvalFileQuestion {
  const item = record(value, index, name);
  const paragraphs = Array.isArray(item['paragraphs']) ? item['paragraphs'].filter(isObject) : [];
  const answer = item['answer'];
  return {
    id: typeof item['id'] === 'string' ? item['id'] : `q${index + 1}`,
    question: item['question'] as string,
    answers: distinct([...(typeof answer === 'string' ? [answer] : strings(answer)), ...strings(item['answer_aliases'])]).filter(present),
    goldKeys: distinct(
      paragraphs
        .filter((paragraph) => paragraph['is_supporting'] === true)
        .map((paragraph) => `${String(paragraph['title'])}\n${String(paragraph['paragraph_text'] ?? paragraph['text'] ?? '')}`),
    ),
  };
}

function hotpot(value: unknown, index: number, name: string): EvalFileQuestion {
  const item = record(value, index, name);
  const facts = Array.isArray(item['supporting_facts']) ? item['supporting_facts'] : [];
  return {
    id: typeof item['_id'] === 'string' ? item['_id'] : `q${index + 1}`,
    question: item['question'] as string,
    answers: strings([item['answer']]).filter(present),
    goldKeys: distinct(facts.flatMap((fact) => (Array.isArray(fact) && typeof fact[0] === 'string' ? [fact[0]] : []))),
  };
}

function multihop(value: unknown, index: number, name: string): EvalFileQuestion {
  const item = record(value, index, name, 'query');
  const evidence = Array.isArray(item['evidence_list']) ? item['evidence_list'].filter(isObject) : [];
  return {
    id: `q${index + 1}`,
    question: item['query'] as string,
    answers: strings([item['answer']]).filter(present),
    goldKeys: distinct(evidence.map((entry) => (present(entry['url']) ? entry['url'] : typeof entry['title'] === 'string' ? entry['title'] : ''))),
  };
}
