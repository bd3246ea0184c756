import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { type CliRun, runCliCaptured } from './helpers/run-cli-captured.js';
import { openSqliteStore } from '../src/store/sqlite/sqlite-store.js';
import { tableNames } from '../src/store/schema.js';
import { startMockOpenAiServer, type MockOpenAiServer } from '../src/testing/index.js';
import { sampleLlmReply } from './helpers/sample-llm-responder.js';
import { sampleWorkspaceAt } from './helpers/test-server.js';

/*
 * `kgrag index --dry-run` through the CLI, against a loopback OpenAI-compatible mock that answers like the
 * sample fixture: the dry run must send it nothing and leave the workspace's database as it was, and after a
 * real standard run through the same server it must find every chunk extracted and every step up to date.
 */

const corpus = fileURLToPath(new URL('../examples/sample-corpus', import.meta.url));
const root = mkdtempSync(join(tmpdir(), 'kgrag-dry-run-'));
let server: MockOpenAiServer;

before(async () => {
  server = await startMockOpenAiServer({ reply: (request) => sampleLlmReply(request) });
});
after(async () => {
  await server.close();
  rmSync(root, { recursive: true, force: true });
});

function kgrag(args: string[]): Promise<CliRun> {
  return runCliCaptured(args, { cwd: root });
}

/** A configured, reachable LLM: the mock. */
const llmFlags = (): string[] => ['--set', `llm.baseURL=${server.url}`, '--set', 'llm.apiKey=test-key', '--set', 'llm.model=mock-model'];

interface DryRunJson {
  dryRun: boolean;
  mode: string;
  model: string | null;
  chunks: { total: number; tokens: number; toExtract: number; alreadyExtracted: number };
  steps: Array<{ step: string; calls: number; inputTokens: number; exact: boolean; costUsd: number | null; basis: string }>;
  totals: { calls: number; inputTokens: number; outputTokens: number; costUsd: number | null };
  notes: string[];
  warnings: Array<{ message: string }>;
}

async function rowCounts(path: string): Promise<Record<string, number>> {
  const store = openSqliteStore(path, { readonly: true });
  try {
    const counts: Record<string, number> = {};
    for (const name of tableNames) counts[name] = await store.table(name).count();
    return counts;
  } finally {
    await store.close();
  }
}

/** LLM calls per step of the last run of each step, from the `runs` records. */
async function runUsage(path: string): Promise<Map<string, number>> {
  const store = openSqliteStore(path, { readonly: true });
  try {
    return new Map((await store.table('runs').all()).map((run) => [run.step, run.usage.llmCalls]));
  } finally {
    await store.close();
  }
}

const sha256 = (path: string): string => createHash('sha256').update(readFileSync(path)).digest('hex');

describe('kgrag index --dry-run', () => {
  test('estimates a fresh workspace without calling the LLM and without creating the index', async () => {
    const workspace = join(root, 'fresh');
    const before = server.stats.requests;
    const result = await kgrag(['index', corpus, '-w', workspace, '--mode', 'standard', '--dry-run', '--json', ...llmFlags()]);
    assert.equal(result.code, 0, result.stderr);
    const estimate = JSON.parse(result.stdout) as DryRunJson;
    assert.equal(estimate.dryRun, true);
    assert.equal(estimate.model, 'mock-model');
    assert.deepEqual(estimate.chunks, { total: 35, tokens: estimate.chunks.tokens, toExtract: 35, alreadyExtracted: 0 });
    assert.deepEqual(
      estimate.steps.map((step) => [step.step, step.exact]),
      [
        ['llm-extract', true],
        ['resolve-entities', false],
        ['summarize', false],
        ['reports', false],
        ['triples', true],
        ['keywords', false],
      ],
    );
    assert.equal(estimate.steps[0]?.calls, 70);
    assert.equal(estimate.steps.find((step) => step.step === 'triples')?.calls, 70, 'OpenIE: a NER and a triples call per chunk');
    assert.equal(estimate.totals.costUsd, null, 'mock-model has no price');
    assert.ok(estimate.notes.some((note) => note.includes('llm.prices')));
    assert.equal(server.stats.requests, before, 'no request reached the LLM server');
    assert.equal(existsSync(join(workspace, 'kgrag.db')), false, 'no index database was created');
  });

  test('prints a table with totals on stdout, priced from llm.prices, and nothing else there', async () => {
    const workspace = join(root, 'table');
    const result = await kgrag([
      'index',
      corpus,
      '-w',
      workspace,
      '--mode',
      'standard',
      '--dry-run',
      ...llmFlags(),
      '--set',
      'llm.prices={"mock-model":{"input":1,"output":4}}',
    ]);
    assert.equal(result.code, 0, result.stderr);
    const lines = result.stdout.split('\n');
    assert.match(lines[0] ?? '', /^35 documents \(35 new\), 35 chunks of [\d,]+ tokens$/);
    assert.match(result.stdout, /model mock-model at \$1\.00 \/ \$4\.00 per million input \/ output tokens \(llm\.prices\)/);
    assert.match(result.stdout, /^step +calls +input tokens +output tokens +cost \(USD\) +calls are$/m);
    assert.match(result.stdout, /^llm-extract +70 +[\d,]+ +[\d,]+ +\d+\.\d+ +exact$/m);
    assert.match(result.stdout, /^reports +\d+ +[\d,]+ +[\d,]+ +\d+\.\d+ +estimated$/m);
    assert.match(result.stdout, /^total +\d+ +[\d,]+ +[\d,]+ +\d+\.\d+ +estimated$/m);
    assert.match(result.stdout, /^llm-extract: 35 chunks × 2 calls/m);
    assert.doesNotMatch(result.stderr, /llm-extract|total/);
  });

  test('says 0 LLM calls in fast mode', async () => {
    const result = await kgrag(['index', corpus, '-w', join(root, 'fast'), '--mode', 'fast', '--dry-run']);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /fast mode: 0 LLM calls/);
  });

  test('names a missing input and the fix, and fails when nothing is left to index', async () => {
    const missing = join(root, 'no-such-folder');
    const result = await kgrag(['index', missing, '-w', join(root, 'missing'), '--mode', 'standard', '--dry-run', ...llmFlags()]);
    assert.equal(result.code, 1);
    assert.equal(result.stdout, '');
    assert.match(result.stderr, new RegExp(`warning: ${missing} does not exist, so it was skipped; check the path`));
    assert.match(result.stderr, /kgrag: error: nothing to index: .*check the paths/);
    const strict = await kgrag(['index', corpus, missing, '-w', join(root, 'missing'), '--dry-run', '--strict']);
    assert.equal(strict.code, 1);
    assert.match(strict.stderr, /1 input problems/);
  });

  test('after a real standard run: reuses every extraction, skips every step, and leaves the database as it was', async () => {
    const workspace = join(root, 'indexed');
    const predicted = JSON.parse((await kgrag(['index', corpus, '-w', workspace, '--mode', 'standard', '--dry-run', '--json', ...llmFlags()])).stdout) as DryRunJson;
    const indexed = await kgrag(['index', corpus, '-w', workspace, '--mode', 'standard', '-q', ...llmFlags()]);
    assert.equal(indexed.code, 0, indexed.stderr);
    const database = join(workspace, 'kgrag.db');
    const runs = await runUsage(database);
    for (const step of ['llm-extract', 'triples', 'keywords']) {
      assert.equal(predicted.steps.find((entry) => entry.step === step)?.calls, runs.get(step), `${step}: the predicted calls are the calls the run made`);
    }
    const counts = await rowCounts(database);
    const hash = sha256(database);
    const requests = server.stats.requests;

    const result = await kgrag(['index', corpus, '-w', workspace, '--mode', 'standard', '--dry-run', '--json', ...llmFlags()]);
    assert.equal(result.code, 0, result.stderr);
    const estimate = JSON.parse(result.stdout) as DryRunJson;
    assert.equal(estimate.chunks.toExtract, 0);
    assert.equal(estimate.chunks.alreadyExtracted, 35);
    assert.deepEqual(
      estimate.steps.map((step) => [step.step, step.calls]),
      [
        ['llm-extract', 0],
        ['resolve-entities', 0],
        ['summarize', 0],
        ['reports', 0],
        ['triples', 0],
        ['keywords', 0],
      ],
    );
    assert.equal(server.stats.requests, requests, 'no request reached the LLM server');
    assert.deepEqual(await rowCounts(database), counts);
    assert.equal(sha256(database), hash, 'the database file is byte for byte unchanged');

    // Another extraction format makes every stored reply stale.
    const other = await kgrag(['index', corpus, '-w', workspace, '--mode', 'standard', '--dry-run', '--json', ...llmFlags(), '--set', 'extract.llm.format=tuples']);
    const reformatted = JSON.parse(other.stdout) as DryRunJson;
    assert.equal(reformatted.chunks.toExtract, 35);
    assert.equal(reformatted.steps[0]?.calls, 70);
  });
});

describe('kgrag index --dry-run with an OpenIE import', () => {
  test('does not count OpenIE calls for the chunks an imported file covers, and the real run makes none for them', async () => {
    // The fast index of the sample corpus, built once for the whole test run: its documents are what the import covers.
    const workspace = await sampleWorkspaceAt(join(root, 'openie'));
    const store = openSqliteStore(join(workspace, 'kgrag.db'), { readonly: true });
    const documents = (await store.table('documents').all()).slice(0, 5);
    await store.close();
    const file = join(root, 'openie-sample.json');
    writeFileSync(
      file,
      JSON.stringify({
        docs: documents.map((document) => ({
          passage: `${document.title}\n${document.text}`,
          extracted_entities: [document.title],
          extracted_triples: [[document.title, 'is described in', 'the sample corpus']],
        })),
      }).replace(/\}$/, ', "avg_ent_chars": NaN}'),
    );
    const imported = await kgrag(['import', 'openie', file, '-w', workspace, '-q']);
    assert.equal(imported.code, 0, imported.stderr);
    assert.match(imported.stdout, /^5 of 5 OpenIE passages matched/);

    const estimate = JSON.parse((await kgrag(['index', corpus, '-w', workspace, '--mode', 'standard', '--dry-run', '--json', ...llmFlags()])).stdout) as DryRunJson;
    const triples = estimate.steps.find((step) => step.step === 'triples');
    assert.equal(triples?.calls, 2 * 30);
    assert.match(triples?.basis ?? '', /30 chunks × 2 calls .*, 5 already extracted or imported/);

    const completions = server.stats.completions;
    const indexed = await kgrag(['index', corpus, '-w', workspace, '--mode', 'standard', '-q', ...llmFlags()]);
    assert.equal(indexed.code, 0, indexed.stderr);
    const runs = await runUsage(join(workspace, 'kgrag.db'));
    assert.equal(runs.get('triples'), 60, 'the run calls the model for the 30 chunks the file does not cover');
    assert.ok(server.stats.completions - completions > 60);
  });
});

describe('kgrag index: the cost summary after a run', () => {
  // Enough documents sharing places and people that every LLM step has work (entities to resolve and summarise,
  // communities to report on): the table's form needs no more. The --json test keeps the whole corpus, whose run
  // repeats no prompt, so that it can require no cache hit.
  const documents = readdirSync(corpus).sort().slice(0, 8).map((name) => join(corpus, name));
  interface IndexJson {
    usage: { llmCalls: number; inputTokens: number; outputTokens: number; costUsd: number; priced: boolean; cache: { calls: number } };
    steps: Array<{ step: string; durationMs: number; usage: { llmCalls: number; inputTokens: number; costUsd: number } }>;
  }

  test('lists each LLM step on stderr with its calls, tokens and cost, priced from llm.prices', async () => {
    const workspace = join(root, 'cost-summary');
    const result = await kgrag(['index', ...documents, '-w', workspace, '--mode', 'standard', ...llmFlags(), '--set', 'llm.prices={"mock-model":{"input":1,"output":4}}']);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stderr, /^LLM usage of this run, model mock-model at \$1\.00 \/ \$4\.00 per million input \/ output tokens \(llm\.prices\)$/m);
    assert.match(result.stderr, /^step +calls +input tokens +output tokens +cost \(USD\) +time$/m);
    for (const step of ['llm-extract', 'resolve-entities', 'summarize', 'reports', 'triples', 'keywords']) {
      assert.match(result.stderr, new RegExp(`^${step} +[1-9][\\d,]* +[\\d,]+ +[\\d,]+ +\\d+\\.\\d+ +[\\d.]+s$`, 'm'));
    }
    assert.match(result.stderr, /^total +[\d,]+ +[\d,]+ +[\d,]+ +\d+\.\d+ +[\d.]+s$/m);
    assert.doesNotMatch(result.stderr, /^chunk +\d/m, 'steps without LLM calls get no row');
    assert.doesNotMatch(result.stdout, /LLM usage/, 'stdout holds only the result');
  });

  test('--json carries per-step usage that adds up to the run total; an unpriced model is marked, not free', async () => {
    const workspace = join(root, 'cost-json');
    const completions = server.stats.completions;
    const result = await kgrag(['index', corpus, '-w', workspace, '--mode', 'standard', '--json', ...llmFlags()]);
    assert.equal(result.code, 0, result.stderr);
    const summary = JSON.parse(result.stdout) as IndexJson;
    const llmSteps = summary.steps.filter((step) => step.usage.llmCalls > 0);
    assert.deepEqual(
      llmSteps.map((step) => step.step),
      ['llm-extract', 'resolve-entities', 'summarize', 'reports', 'triples', 'keywords'],
    );
    assert.equal(
      llmSteps.reduce((sum, step) => sum + step.usage.llmCalls, 0),
      summary.usage.llmCalls,
    );
    assert.equal(
      llmSteps.reduce((sum, step) => sum + step.usage.inputTokens, 0),
      summary.usage.inputTokens,
    );
    assert.equal(summary.usage.llmCalls, server.stats.completions - completions, 'every paid call reached the server once');
    assert.equal(summary.usage.priced, false);
    assert.equal(summary.usage.cache.calls, 0);
    assert.match(result.stderr, /model mock-model \(no price known: add it under llm\.prices in kgrag\.yaml\)/);
    assert.match(result.stderr, /^total +[\d,]+ +[\d,]+ +[\d,]+ +unknown +[\d.]+s$/m);
  });
});
