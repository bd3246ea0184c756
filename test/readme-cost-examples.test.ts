import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { startMockOpenAiServer } from '../src/testing/index.js';
import { runCliCaptured } from './helpers/run-cli-captured.js';
import { sampleLlmReply } from './helpers/sample-llm-responder.js';

/*
 * The README's cost examples are what the commands print on the bundled sample corpus: the dry run as shown,
 * and the cost summary of a standard run against the loopback mock (all but the time column, which is the
 * machine's).
 */

const corpus = fileURLToPath(new URL('../examples/sample-corpus', import.meta.url));
const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8').split('\n');
const root = mkdtempSync(join(tmpdir(), 'kgrag-readme-'));
after(() => rmSync(root, { recursive: true, force: true }));

/** The README lines after the first line that starts with `start`, up to (not including) the first that `stop` matches. */
function readmeLines(start: string, stop: RegExp): string[] {
  const from = readme.findIndex((line) => line.startsWith(start));
  assert.ok(from >= 0, `README has a line starting "${start}"`);
  const to = readme.findIndex((line, index) => index > from && stop.test(line));
  return readme.slice(from + 1, to);
}

describe('README cost examples', () => {
  test('the dry run of the sample corpus prints the table the README shows', async () => {
    const shown = readmeLines('$ OPENAI_API_KEY=sk-… npx kgrag index examples/sample-corpus --mode standard --dry-run', /^llm-extract: /);
    const result = await runCliCaptured(['index', corpus, '--mode', 'standard', '--dry-run', '-w', join(root, 'dry-run')], { cwd: root, env: { OPENAI_API_KEY: 'sk-test' } });
    assert.equal(result.code, 0, result.stderr);
    const printed = result.stdout.split('\n');
    assert.deepEqual(printed.slice(0, shown.length), shown);
  });

  test('a standard run against the loopback mock prints the cost summary the README shows, but for the times', async () => {
    const server = await startMockOpenAiServer({ reply: (request) => sampleLlmReply(request) });
    try {
      const withoutTime = (lines: readonly string[]): string[] => lines.map((line) => line.replace(/\s+(?:[\d.]+s|-+|time)$/, ''));
      const shown = readmeLines('LLM usage of this run, model gpt-4.1-mini', /^```$/);
      const result = await runCliCaptured(
        ['index', corpus, '--mode', 'standard', '-w', join(root, 'run'), '--set', `llm.baseURL=${server.url}`, '--set', 'llm.apiKey=test-key', '--set', 'llm.model=gpt-4.1-mini'],
        { cwd: root },
      );
      assert.equal(result.code, 0, result.stderr);
      const lines = result.stderr.split('\n');
      const from = lines.findIndex((line) => line.startsWith('LLM usage of this run, model gpt-4.1-mini'));
      assert.ok(from >= 0, result.stderr);
      assert.deepEqual(withoutTime(lines.slice(from + 1, from + 1 + shown.length)), withoutTime(shown));
    } finally {
      await server.close();
    }
  });
});
