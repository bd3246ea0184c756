import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { KgragError } from '../errors.js';
import { configSchema } from './config-schema.js';
import type { KgragConfigInput } from './config-schema.js';
import { configFileName, configKeys, environmentName, loadConfig, mergeConfig } from './load-config.js';

const folders: string[] = [];
after(() => {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

/** A fresh workspace, with a `kgrag.yaml` holding `yaml` when given. */
function workspace(yaml?: string): string {
  const folder = mkdtempSync(join(tmpdir(), 'kgrag-config-test-'));
  folders.push(folder);
  if (yaml !== undefined) writeFileSync(join(folder, configFileName), yaml);
  return folder;
}

/** Runs loadConfig expecting failure; returns the problems of the CONFIG_INVALID error. */
async function problemsOf(options: Parameters<typeof loadConfig>[0]): Promise<string[]> {
  const error = await loadConfig(options).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  assert.ok(KgragError.isInstance(error), `expected a KgragError, got ${String(error)}`);
  assert.equal(error.code, 'CONFIG_INVALID');
  assert.equal(error.category, 'config');
  const problems = error.details?.problems;
  assert.ok(Array.isArray(problems));
  for (const problem of problems) assert.ok(error.message.includes(problem as string), 'every problem is in the message');
  return problems as string[];
}

/** The single problem about `path` (a dotted key path, or a file name). */
function problemAbout(problems: readonly string[], prefix: string): string {
  const matching = problems.filter((problem) => problem.startsWith(`${prefix}:`));
  assert.equal(matching.length, 1, `one problem about ${prefix} in ${JSON.stringify(problems)}`);
  return matching[0] as string;
}

const defaults = configSchema.parse({});

describe('environmentName', () => {
  test('joins upper-cased key parts with _ and splits camelCase', () => {
    assert.equal(environmentName(['llm', 'baseURL']), 'KGRAG_LLM_BASE_URL');
    assert.equal(environmentName(['llm', 'apiKey']), 'KGRAG_LLM_API_KEY');
    assert.equal(environmentName(['seed']), 'KGRAG_SEED');
    assert.equal(environmentName(['extract', 'nlp', 'minEdgeWeightPercentile']), 'KGRAG_EXTRACT_NLP_MIN_EDGE_WEIGHT_PERCENTILE');
    assert.equal(environmentName(['llm', 'pricePerMillionTokens', 'input']), 'KGRAG_LLM_PRICE_PER_MILLION_TOKENS_INPUT');
    assert.equal(environmentName(['query', 'topK']), 'KGRAG_QUERY_TOP_K');
    assert.equal(environmentName(['llm', 'retryMaxDelayMs']), 'KGRAG_LLM_RETRY_MAX_DELAY_MS');
    assert.equal(environmentName(['methods', 'local', 'topKEntities']), 'KGRAG_METHODS_LOCAL_TOP_K_ENTITIES');
  });

  test('every settable key has a distinct variable name', () => {
    const names = configKeys().map((key) => environmentName(key.path));
    assert.equal(new Set(names).size, names.length);
    for (const name of names) assert.match(name, /^KGRAG_[A-Z0-9_]+$/);
  });
});

describe('configKeys', () => {
  test('lists leaf keys with their JSON type and default', () => {
    const byPath = new Map(configKeys().map((key) => [key.path.join('.'), key]));
    assert.equal(byPath.get('llm.baseURL')?.type, 'string');
    assert.equal(byPath.get('llm.concurrency')?.type, 'integer');
    assert.equal(byPath.get('llm.concurrency')?.default, 8);
    assert.equal(byPath.get('llm.cache')?.type, 'boolean');
    assert.equal(byPath.get('input.include')?.type, 'array');
    assert.equal(byPath.get('llm.headers')?.type, 'object');
    assert.deepEqual(byPath.get('llm.provider')?.enum, ['auto', 'none', 'openai-compatible']);
    // Nested objects are walked into, not listed as leaves.
    assert.ok(byPath.has('llm.pricePerMillionTokens.input'));
    assert.ok(!byPath.has('llm.pricePerMillionTokens'));
    assert.ok(!byPath.has('llm'));
  });
});

describe('mergeConfig', () => {
  test('deep-merges objects, replaces arrays and scalars, skips undefined', () => {
    const merged = mergeConfig({ a: { b: 1, c: [1, 2] }, d: 'x' }, { a: { c: [3] }, d: undefined, e: null });
    assert.deepEqual(merged, { a: { b: 1, c: [3] }, d: 'x', e: null });
  });
});

describe('loadConfig: precedence', () => {
  test('an empty workspace resolves to the schema defaults', async () => {
    const folder = workspace();
    const loaded = await loadConfig({ workspace: folder, env: {} });
    assert.deepEqual(loaded.config, defaults);
    assert.deepEqual(loaded.sources, []);
    assert.equal(loaded.workspace, folder);
  });

  test('defaults < kgrag.yaml < KGRAG_* env < overrides, key by key', async () => {
    // Four keys; each layer sets one more of them, so each key shows the highest layer that set it.
    const folder = workspace('llm:\n  model: from-file\n  concurrency: 3\n  temperature: 0.5\nquery:\n  topK: 7\n');
    const env = { KGRAG_LLM_CONCURRENCY: '5', KGRAG_LLM_TEMPERATURE: '1', KGRAG_QUERY_TOP_K: '20' };
    const overrides: KgragConfigInput = { llm: { temperature: 1.5 } };
    const { config, sources } = await loadConfig({ workspace: folder, env, overrides });
    assert.equal(config.llm.model, 'from-file'); // file only
    assert.equal(config.llm.concurrency, 5); // env beats file
    assert.equal(config.query.topK, 20); // env beats file
    assert.equal(config.llm.temperature, 1.5); // overrides beat env and file
    assert.equal(config.llm.maxRetries, defaults.llm.maxRetries); // untouched default
    assert.deepEqual(sources, [join(folder, configFileName), 'KGRAG_LLM_TEMPERATURE', 'KGRAG_LLM_CONCURRENCY', 'KGRAG_QUERY_TOP_K']);
  });

  test('layers merge deeply: a file setting one llm key keeps the other llm defaults', async () => {
    const folder = workspace('llm:\n  model: m\n');
    const { config } = await loadConfig({ workspace: folder, env: {}, overrides: { llm: { cache: false } } });
    assert.deepEqual(config.llm, { ...defaults.llm, model: 'm', cache: false });
  });

  test('an explicit configFile replaces the workspace file', async () => {
    const folder = workspace('llm:\n  model: workspace-file\n');
    const other = join(workspace(), 'custom.yaml');
    writeFileSync(other, 'llm:\n  model: custom-file\n');
    const { config, sources } = await loadConfig({ workspace: folder, configFile: other, env: {} });
    assert.equal(config.llm.model, 'custom-file');
    assert.deepEqual(sources, [other]);
  });

  test('empty env values are ignored', async () => {
    const { config, sources } = await loadConfig({ workspace: workspace(), env: { KGRAG_LLM_MODEL: '', KGRAG_SEED: '' } });
    assert.deepEqual(config, defaults);
    assert.deepEqual(sources, []);
  });

  test('an empty or comment-only kgrag.yaml is the same as none', async () => {
    for (const yaml of ['', '# nothing here\n']) {
      const { config } = await loadConfig({ workspace: workspace(yaml), env: {} });
      assert.deepEqual(config, defaults);
    }
  });
});

describe('loadConfig: environment values', () => {
  test('numbers, booleans and strings are parsed by the key type', async () => {
    const env = {
      KGRAG_LLM_TEMPERATURE: '0.25',
      KGRAG_LLM_MAX_RETRIES: '3',
      KGRAG_LLM_CACHE: 'false',
      KGRAG_EXTRACT_NLP_REMOVE_EGO_NODES: 'false',
      KGRAG_COMMUNITIES_RESOLUTION: '1e-1',
      // String keys stay strings even when they look like numbers or JSON.
      KGRAG_LLM_MODEL: '123',
      KGRAG_LLM_API_KEY: 'true',
      KGRAG_QUERY_RESPONSE_TYPE: '{"not":"parsed"}',
    };
    const { config } = await loadConfig({ workspace: workspace(), env });
    assert.equal(config.llm.temperature, 0.25);
    assert.equal(config.llm.maxRetries, 3);
    assert.equal(config.llm.cache, false);
    assert.equal(config.extract.nlp.removeEgoNodes, false);
    assert.equal(config.communities.resolution, 0.1);
    assert.equal(config.llm.model, '123');
    assert.equal(config.llm.apiKey, 'true');
    assert.equal(config.query.responseType, '{"not":"parsed"}');
  });

  test('arrays from comma lists (trimmed, empty parts dropped) or from JSON', async () => {
    const env = { KGRAG_INPUT_INCLUDE: ' docs/**/*.md , ,notes/*.txt,', KGRAG_INPUT_EXCLUDE: '["a,b", "c"]' };
    const { config } = await loadConfig({ workspace: workspace(), env });
    assert.deepEqual(config.input.include, ['docs/**/*.md', 'notes/*.txt']);
    assert.deepEqual(config.input.exclude, ['a,b', 'c']);
  });

  test(
    'a comma inside a glob brace list stays in one pattern',
    async () => {
      const { config } = await loadConfig({ workspace: workspace(), env: { KGRAG_INPUT_INCLUDE: '**/*.{txt,md},docs/*.html' } });
      assert.deepEqual(config.input.include, ['**/*.{txt,md}', 'docs/*.html']);
    },
  );

  test('objects from JSON (headers, methods)', async () => {
    const env = { KGRAG_LLM_HEADERS: '{"X-Team":"search"}', KGRAG_METHODS: '{"basic":{"variant":"bm25"}}' };
    const { config } = await loadConfig({ workspace: workspace(), env });
    assert.deepEqual(config.llm.headers, { 'X-Team': 'search' });
    assert.deepEqual(config.methods, { basic: { variant: 'bm25' } });
  });

  test('nested keys have variables too', async () => {
    const env = { KGRAG_LLM_PRICE_PER_MILLION_TOKENS_INPUT: '0.4', KGRAG_LLM_PRICE_PER_MILLION_TOKENS_OUTPUT: '1.6', KGRAG_EXTRACT_NLP_MIN_NODE_FREQUENCY: '3' };
    const { config } = await loadConfig({ workspace: workspace(), env });
    assert.deepEqual(config.llm.pricePerMillionTokens, { input: 0.4, output: 1.6 });
    assert.equal(config.extract.nlp.minNodeFrequency, 3);
  });

  test('a value that does not parse as its type is reported, naming the variable', async () => {
    const problems = await problemsOf({ workspace: workspace(), env: { KGRAG_LLM_CONCURRENCY: 'eight', KGRAG_LLM_CACHE: 'yes' } });
    assert.match(problemAbout(problems, 'llm.concurrency'), /\(set in KGRAG_LLM_CONCURRENCY\)$/);
    assert.match(problemAbout(problems, 'llm.cache'), /\(set in KGRAG_LLM_CACHE\)$/);
  });
});

describe('loadConfig: OPENAI_* fallbacks', () => {
  test('OPENAI_API_KEY and OPENAI_BASE_URL fill llm.apiKey and llm.baseURL', async () => {
    const env = { OPENAI_API_KEY: 'sk-openai', OPENAI_BASE_URL: 'http://localhost:11434/v1' };
    const { config, sources } = await loadConfig({ workspace: workspace(), env });
    assert.equal(config.llm.apiKey, 'sk-openai');
    assert.equal(config.llm.baseURL, 'http://localhost:11434/v1');
    assert.deepEqual(sources, ['OPENAI_API_KEY', 'OPENAI_BASE_URL']);
  });

  test('KGRAG_API_KEYS fills server.apiKeys as a comma-separated list, and loses to KGRAG_SERVER_API_KEYS', async () => {
    const keys = { KGRAG_API_KEYS: 'key-aaaaaaaaaaaaaaaa, key-bbbbbbbbbbbbbbbb' };
    assert.deepEqual((await loadConfig({ workspace: workspace(), env: keys })).config.server.apiKeys, ['key-aaaaaaaaaaaaaaaa', 'key-bbbbbbbbbbbbbbbb']);
    const both = { ...keys, KGRAG_SERVER_API_KEYS: 'key-cccccccccccccccc' };
    assert.deepEqual((await loadConfig({ workspace: workspace(), env: both })).config.server.apiKeys, ['key-cccccccccccccccc']);
  });

  test('they lose to KGRAG_LLM_* variables', async () => {
    const env = { OPENAI_API_KEY: 'sk-openai', KGRAG_LLM_API_KEY: 'sk-kgrag', OPENAI_BASE_URL: 'http://a.test/v1', KGRAG_LLM_BASE_URL: 'http://b.test/v1' };
    const { config, sources } = await loadConfig({ workspace: workspace(), env });
    assert.equal(config.llm.apiKey, 'sk-kgrag');
    assert.equal(config.llm.baseURL, 'http://b.test/v1');
    assert.ok(!sources.includes('OPENAI_API_KEY'));
    assert.ok(!sources.includes('OPENAI_BASE_URL'));
  });

  test('they lose to kgrag.yaml, although plain KGRAG_* variables beat the file', async () => {
    const folder = workspace('llm:\n  apiKey: sk-file\n  baseURL: http://file.test/v1\n');
    const env = { OPENAI_API_KEY: 'sk-openai', OPENAI_BASE_URL: 'http://openai.test/v1' };
    const { config } = await loadConfig({ workspace: folder, env });
    assert.equal(config.llm.apiKey, 'sk-file');
    assert.equal(config.llm.baseURL, 'http://file.test/v1');
  });

  test('they lose to overrides', async () => {
    const env = { OPENAI_API_KEY: 'sk-openai' };
    const { config } = await loadConfig({ workspace: workspace(), env, overrides: { llm: { apiKey: 'sk-flag' } } });
    assert.equal(config.llm.apiKey, 'sk-flag');
  });

  test('an invalid OPENAI_BASE_URL is reported as set there', async () => {
    const problems = await problemsOf({ workspace: workspace(), env: { OPENAI_BASE_URL: 'not a url' } });
    assert.match(problemAbout(problems, 'llm.baseURL'), /\(set in OPENAI_BASE_URL\)$/);
  });
});

describe('loadConfig: problems', () => {
  test('reports every problem at once, each with its key path and where it was set', async () => {
    const folder = workspace('llm:\n  temperature: 5\n  modle: x\nchunking:\n  size: 10\n  overlap: 20\n');
    const file = join(folder, configFileName);
    const problems = await problemsOf({
      workspace: folder,
      env: { KGRAG_LLM_CONCURRENCY: '0', KGRAG_SEED: '-1' },
      overrides: { query: { topK: 0 } },
    });
    assert.equal(problems.length, 6, JSON.stringify(problems));
    assert.match(problemAbout(problems, 'llm.temperature'), new RegExp(`\\(set in ${file}\\)$`));
    assert.match(problemAbout(problems, 'llm.modle'), /unknown key/);
    assert.match(problemAbout(problems, 'chunking.overlap'), /overlap must be smaller than size .*\(set in .*kgrag\.yaml\)$/);
    assert.match(problemAbout(problems, 'llm.concurrency'), /\(set in KGRAG_LLM_CONCURRENCY\)$/);
    assert.match(problemAbout(problems, 'seed'), /\(set in KGRAG_SEED\)$/);
    assert.match(problemAbout(problems, 'query.topK'), /\(set in command line\)$/);
  });

  test('problems include the key description and, for enums, the allowed values', async () => {
    const problems = await problemsOf({ workspace: workspace(), env: {}, overrides: { llm: { concurrency: 0 } } });
    assert.match(problemAbout(problems, 'llm.concurrency'), /Requests in flight at once/);
    const enumProblems = await problemsOf({ workspace: workspace('index:\n  mode: turbo\n'), env: {} });
    assert.match(problemAbout(enumProblems, 'index.mode'), /fast/);
    assert.match(problemAbout(enumProblems, 'index.mode'), /standard/);
  });

  test('a key that moved says where to: knowledgeGraphs is methods.tot.knowledgeGraphs', async () => {
    const problems = await problemsOf({ workspace: workspace('knowledgeGraphs:\n  wikidata:\n    type: sparql\n    endpoint: https://query.wikidata.org/sparql\n'), env: {} });
    assert.match(problemAbout(problems, 'knowledgeGraphs'), /moved to methods\.tot\.knowledgeGraphs/);
  });

  test('a value valid in a lower layer but invalid in a higher one is attributed to the higher one', async () => {
    const problems = await problemsOf({ workspace: workspace('llm:\n  temperature: 0.5\n'), env: { KGRAG_LLM_TEMPERATURE: '9' } });
    assert.match(problemAbout(problems, 'llm.temperature'), /\(set in KGRAG_LLM_TEMPERATURE\)$/);
  });

  test('an invalid file value overridden by a valid env value is no problem', async () => {
    const { config } = await loadConfig({ workspace: workspace('llm:\n  temperature: 9\n'), env: { KGRAG_LLM_TEMPERATURE: '1' } });
    assert.equal(config.llm.temperature, 1);
  });

  test(
    'an invalid override is attributed to the command line even when the env var sets the same key',
    async () => {
      const problems = await problemsOf({ workspace: workspace(), env: { KGRAG_LLM_TEMPERATURE: '1' }, overrides: { llm: { temperature: 5 } } });
      assert.match(problemAbout(problems, 'llm.temperature'), /\(set in command line\)$/);
    },
  );

  test(
    'a bad element of an array or record names where the array/record was set',
    async () => {
      const folder = workspace('input:\n  include: [1]\n');
      const fromFile = await problemsOf({ workspace: folder, env: {} });
      assert.match(problemAbout(fromFile, 'input.include.0'), /\(set in .*kgrag\.yaml\)$/);
      const fromEnv = await problemsOf({ workspace: workspace(), env: { KGRAG_LLM_HEADERS: '{"X-Team":1}' } });
      assert.match(problemAbout(fromEnv, 'llm.headers.X-Team'), /\(set in KGRAG_LLM_HEADERS\)$/);
    },
  );

  test('unknown keys get a "did you mean" suggestion among their siblings', async () => {
    const folder = workspace('lmm:\n  model: x\nllm:\n  modle: x\nchunking:\n  sise: 100\nextract:\n  nlp:\n    minNodeDgree: 2\n');
    const problems = await problemsOf({ workspace: folder, env: {} });
    assert.match(problemAbout(problems, 'lmm'), /unknown key — did you mean "llm"\?/);
    assert.match(problemAbout(problems, 'llm.modle'), /did you mean "model"\?/);
    assert.match(problemAbout(problems, 'chunking.sise'), /did you mean "size"\?/);
    assert.match(problemAbout(problems, 'extract.nlp.minNodeDgree'), /did you mean "minNodeDegree"\?/);
    for (const problem of problems) assert.match(problem, /\(set in .*kgrag\.yaml\)$/);
  });

  test('an unknown key far from every known one gets no suggestion', async () => {
    const problems = await problemsOf({ workspace: workspace('llm:\n  zzzzzzzz: 1\n'), env: {} });
    const problem = problemAbout(problems, 'llm.zzzzzzzz');
    assert.match(problem, /unknown key/);
    assert.doesNotMatch(problem, /did you mean/);
  });

  test('an unknown key in overrides is attributed to the command line', async () => {
    const overrides = { query: { topk: 5 } } as unknown as KgragConfigInput;
    const problems = await problemsOf({ workspace: workspace(), env: {}, overrides });
    assert.match(problemAbout(problems, 'query.topk'), /did you mean "topK"\?.*\(set in command line\)$/);
  });

  test('a YAML syntax error names the file', async () => {
    const folder = workspace('llm: [\n  model: x\n');
    const problems = await problemsOf({ workspace: folder, env: {} });
    assert.ok(problems.length >= 1);
    for (const problem of problems) assert.ok(problem.startsWith(`${join(folder, configFileName)}:`), problem);
    assert.match(problems[0] as string, /YAML syntax/);
  });

  test('a YAML document that is not a mapping is rejected with its kind', async () => {
    const list = await problemsOf({ workspace: workspace('- a\n- b\n'), env: {} });
    assert.equal(list.length, 1);
    assert.match(list[0] as string, /kgrag\.yaml: must be a mapping .*not a list$/);
    const scalar = await problemsOf({ workspace: workspace('just a string\n'), env: {} });
    assert.match(scalar[0] as string, /not a string$/);
    const number = await problemsOf({ workspace: workspace('42\n'), env: {} });
    assert.match(number[0] as string, /not a number$/);
  });

  test('an explicit configFile that does not exist is a problem (a missing workspace file is not)', async () => {
    const folder = workspace();
    const missing = join(folder, 'missing.yaml');
    const problems = await problemsOf({ workspace: folder, configFile: missing, env: {} });
    assert.equal(problems.length, 1);
    assert.ok(problems[0]?.startsWith(`${missing}: cannot be read`), problems[0]);
    await loadConfig({ workspace: join(folder, 'no-such-subfolder'), env: {} });
  });

  test('file problems and schema problems are reported together', async () => {
    const problems = await problemsOf({ workspace: workspace(), configFile: join(tmpdir(), 'kgrag-no-such-file.yaml'), env: { KGRAG_SEED: 'x' } });
    assert.equal(problems.length, 2);
    assert.match(problems[0] as string, /cannot be read/);
    assert.match(problemAbout(problems, 'seed'), /KGRAG_SEED/);
  });
});

describe('loadConfig: ${VAR} in kgrag.yaml', () => {
  test('a string value naming an environment variable gets its value, in lists and mappings too', async () => {
    const yaml = [
      'server:',
      '  apiKeys: ["${KGRAG_SERVER_KEY}", "static-${SUFFIX}-0123456789"]',
      'llm:',
      '  baseURL: http://${LLM_HOST}:11434/v1',
      '  headers: { X-Team: "${TEAM}" }',
    ].join('\n');
    const env = { KGRAG_SERVER_KEY: 'c0ffee-real-key-9d8e7f6a5b4c', SUFFIX: 'ab', LLM_HOST: 'gpu.internal', TEAM: 'search' };
    const { config } = await loadConfig({ workspace: workspace(yaml), env });
    assert.deepEqual(config.server.apiKeys, ['c0ffee-real-key-9d8e7f6a5b4c', 'static-ab-0123456789']);
    assert.equal(config.llm.baseURL, 'http://gpu.internal:11434/v1');
    assert.deepEqual(config.llm.headers, { 'X-Team': 'search' });
  });

  test('$${ writes a literal ${, and values from variables and flags are taken as they are', async () => {
    const yaml = 'llm:\n  headers: { X-Template: "$${literal}" }\n';
    const env = { KGRAG_LLM_MODEL: '${NOT_EXPANDED}' };
    const { config } = await loadConfig({ workspace: workspace(yaml), env });
    assert.deepEqual(config.llm.headers, { 'X-Template': '${literal}' });
    assert.equal(config.llm.model, '${NOT_EXPANDED}');
  });

  test('an unset or empty variable is a problem naming the key and the variable, never taken as the literal text', async () => {
    const yaml = 'server:\n  apiKeys: ["${KGRAG_SERVER_KEY}"]\nllm:\n  apiKey: "${EMPTY_KEY}"\n';
    const problems = await problemsOf({ workspace: workspace(yaml), env: { EMPTY_KEY: '' } });
    assert.match(problemAbout(problems, 'server.apiKeys.0'), /KGRAG_SERVER_KEY is not set/);
    assert.match(problemAbout(problems, 'llm.apiKey'), /EMPTY_KEY is empty/);
  });

  test('a ${ that names no variable is a problem with the fix', async () => {
    const problems = await problemsOf({ workspace: workspace('llm:\n  model: "gpt-${ bad name }"\n  apiKey: "${UNCLOSED"\n'), env: {} });
    assert.match(problemAbout(problems, 'llm.model'), /\$\{ bad name \}.*\$\$\{/);
    assert.match(problemAbout(problems, 'llm.apiKey'), /\$\{UNCLOSED/);
  });
});
