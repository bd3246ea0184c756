import { errorMessage } from '../../core/error-message.js';

/** Outcome of {@link parseJsonLoose}. */
export type ParseJsonLooseResult = { ok: true; value: unknown } | { ok: false; error: string };

/** Candidate start positions tried before giving up on prose with stray brackets. */
const MAX_CANDIDATES = 32;

/**
 * Parses the JSON in a model reply, forgiving what models commonly add or get wrong:
 * markdown fences, prose before and after the value, trailing commas, bare `NaN`/`Infinity`/`undefined`
 * (→ `null`), Python's `True`/`False`/`None`, and raw control characters inside strings (a real
 * GraphRAG DRIFT failure, microsoft/graphrag#2163). A value cut off at the end (unbalanced
 * brackets) is rejected, never completed, so a truncated reply cannot pass as a shorter one.
 * Never throws.
 */
export function parseJsonLoose(text: string): ParseJsonLooseResult {
  const trimmed = text.replace(/^\uFEFF/, '').trim();
  if (trimmed === '') return { ok: false, error: 'the reply is empty' };
  const direct = tryParse(trimmed);
  if (direct.ok) return direct;

  const sources = [...fencedBlocks(trimmed), trimmed];
  let firstError: string | undefined;
  for (const source of sources) {
    const whole = tryParse(repair(source.trim()));
    if (whole.ok) return whole;
    let tried = 0;
    for (let start = nextOpening(source, 0); start !== -1 && tried < MAX_CANDIDATES; ) {
      tried += 1;
      const end = matchingClose(source, start);
      if (end === UNCLOSED) {
        // Every later candidate lies inside this cut-off value; accepting one would hide the cut.
        firstError ??= `the JSON value starting at character ${start} is truncated (its brackets never close)`;
        break;
      }
      if (end === MISMATCHED) {
        start = nextOpening(source, start + 1);
        continue;
      }
      const candidate = tryParse(repair(source.slice(start, end + 1)));
      if (candidate.ok) return candidate;
      firstError ??= candidate.error;
      // A fragment inside a broken value is not the answer: resume after the whole value.
      start = nextOpening(source, end + 1);
    }
  }
  return { ok: false, error: firstError ?? 'no JSON object or array found in the reply' };
}

function tryParse(text: string): ParseJsonLooseResult {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (error) {
    return { ok: false, error: errorMessage(error) };
  }
}

function fencedBlocks(text: string): string[] {
  const blocks: string[] = [];
  const fence = /```[a-zA-Z0-9_-]*[ \t]*\r?\n?([\s\S]*?)```/g;
  for (let match = fence.exec(text); match !== null; match = fence.exec(text)) {
    if (match[1] !== undefined && match[1].trim() !== '') blocks.push(match[1]);
  }
  return blocks;
}

function nextOpening(text: string, from: number): number {
  for (let index = from; index < text.length; index += 1) {
    const char = text[index];
    if (char === '{' || char === '[') return index;
  }
  return -1;
}

const UNCLOSED = -1;
const MISMATCHED = -2;

/**
 * Index of the bracket closing the one at `start`, skipping strings; `UNCLOSED` when the text ends
 * first, `MISMATCHED` when a wrong bracket closes it (prose, not JSON).
 */
function matchingClose(text: string, start: number): number {
  const stack: string[] = [];
  let inString = false;
  for (let index = start; index < text.length; index += 1) {
    const char = text[index];
    if (inString) {
      if (char === '\\') index += 1;
      else if (char === '"') inString = false;
      continue;
    }
    if (char === '"') inString = true;
    else if (char === '{') stack.push('}');
    else if (char === '[') stack.push(']');
    else if (char === '}' || char === ']') {
      if (stack.pop() !== char) return MISMATCHED;
      if (stack.length === 0) return index;
    }
  }
  return UNCLOSED;
}

const BARE_WORDS: Readonly<Record<string, string>> = {
  NaN: 'null',
  Infinity: 'null',
  undefined: 'null',
  True: 'true',
  False: 'false',
  None: 'null',
};

/**
 * One pass over the text that escapes control characters inside strings, drops trailing commas,
 * and replaces non-JSON bare words outside strings. Everything else is copied as is.
 */
function repair(text: string): string {
  let output = '';
  let inString = false;
  for (let index = 0; index < text.length; index += 1) {
    const char = text[index] as string;
    if (inString) {
      if (char === '\\') {
        output += char + (text[index + 1] ?? '');
        index += 1;
      } else if (char === '"') {
        inString = false;
        output += char;
      } else {
        const code = char.charCodeAt(0);
        output += code < 0x20 ? escapeControl(char) : char;
      }
      continue;
    }
    if (char === '"') {
      inString = true;
      output += char;
      continue;
    }
    if (char === ',') {
      let next = index + 1;
      while (next < text.length && /\s/.test(text[next] as string)) next += 1;
      if (text[next] !== '}' && text[next] !== ']') output += char;
      continue;
    }
    if (/[A-Za-z]/.test(char)) {
      const word = /^[A-Za-z_]+/.exec(text.slice(index))?.[0] ?? char;
      const negative = word === 'Infinity' && output.endsWith('-');
      if (negative) output = output.slice(0, -1);
      output += BARE_WORDS[word] ?? word;
      index += word.length - 1;
      continue;
    }
    output += char;
  }
  return output;
}

function escapeControl(char: string): string {
  switch (char) {
    case '\n':
      return '\\n';
    case '\r':
      return '\\r';
    case '\t':
      return '\\t';
    case '\b':
      return '\\b';
    case '\f':
      return '\\f';
    default:
      return `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`;
  }
}
