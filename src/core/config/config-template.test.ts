import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { parse } from 'yaml';
import { z } from 'zod';
import { configSchema } from './config-schema.js';
import { renderConfigTemplate } from './config-template.js';
import { configFileName, configKeys, environmentName, loadConfig } from './load-config.js';

const folders: string[] = [];
after(() => {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

function workspaceWith(yaml: string): string {
  const folder = mkdtempSync(join(tmpdir(), 'kgrag-template-test-'));
  folders.push(folder);
  writeFileSync(join(folder, configFileName), yaml);
  return folder;
}

describe('renderConfigTemplate', () => {
  const template = renderConfigTemplate();

  test('parses back through loadConfig to exactly the defaults', async () => {
    const folder = workspaceWith(template);
    const loaded = await loadConfig({ workspace: folder, env: {} });
    assert.deepEqual(loaded.config, configSchema.parse({}));
    assert.deepEqual(loaded.sources, [join(folder, configFileName)]);
  });

  test('writes a long default on one line, so that it stays valid YAML', () => {
    const long = Array.from({ length: 12 }, (_, index) => `**/folder-${index}/**/*.{txt,md,html}`);
    const schema = z.object({ input: z.object({ include: z.array(z.string()).default(long).describe('Globs') }).strict() }).strict();
    assert.deepEqual(parse(renderConfigTemplate(schema)), { input: { include: long } });
  });

  test('is valid YAML whose active values are a subset of the defaults', () => {
    const parsed = parse(template) as Record<string, unknown>;
    assert.equal(typeof parsed, 'object');
    // Sections whose keys have no defaults (methods) are commented out, not written as null.
    for (const value of Object.values(parsed)) assert.notEqual(value, null);
    assert.deepEqual(configSchema.parse(parsed), configSchema.parse({}));
  });

  test('mentions every key of configKeys() with its environment variable', () => {
    const lines = template.split('\n');
    for (const key of configKeys()) {
      const name = key.path[key.path.length - 1] as string;
      const variable = environmentName(key.path);
      assert.ok(template.includes(`[${variable}]`), `${key.path.join('.')}: ${variable} missing`);
      // The key's own line (active or commented out) follows the comment naming its variable.
      const commentLine = lines.findIndex((line) => line.includes(`[${variable}]`));
      const keyLine = lines[commentLine + 1] ?? '';
      assert.match(keyLine, new RegExp(`^\\s*(# )?${name}:`), `${key.path.join('.')} line: ${keyLine}`);
    }
  });

  test('indents each key under its section', () => {
    const lines = template.split('\n');
    const line = (pattern: RegExp) => lines.find((candidate) => pattern.test(candidate));
    assert.equal(line(/^\s*minNodeFrequency:/), '    minNodeFrequency: 2');
    assert.equal(line(/^\s*maxClusterSize:/), '  maxClusterSize: 10');
    assert.equal(line(/^seed:/), 'seed: 42');
  });

  test('keys without defaults are commented out with an example', () => {
    assert.match(template, /^ {2}# baseURL: http:\/\/localhost:11434\/v1$/m);
    assert.match(template, /^# methods: /m);
    assert.doesNotMatch(template, /^\s*apiKey: /m);
  });

  test('uncommenting the commented examples still gives a valid configuration', async () => {
    // Drop "# " before every commented key line that carries a value (but not the description comments,
    // which end with the [KGRAG_…] variable name, nor the header comments at the top).
    const uncommented = renderConfigTemplate()
      .split('\n')
      .map((text, index) => (index > 4 && /^\s*# [A-Za-z]+:( |$)/.test(text) && !/\[KGRAG_[A-Z0-9_]+\]$/.test(text) ? text.replace('# ', '') : text))
      .join('\n');
    const folder = workspaceWith(uncommented);
    // The examples name secrets by ${VAR}, which must be set.
    const { config } = await loadConfig({ workspace: folder, env: { OPENAI_API_KEY: 'sk-from-the-environment', KGRAG_SERVER_KEY: 'a-server-key-from-the-environment' } });
    assert.equal(config.llm.apiKey, 'sk-from-the-environment');
    assert.deepEqual(config.server.apiKeys, ['a-server-key-from-the-environment']);
    assert.equal(config.llm.baseURL, 'http://localhost:11434/v1');
    assert.deepEqual(config.llm.pricePerMillionTokens, { input: 0.4, output: 1.6 });
    assert.deepEqual(config.llm.headers, { 'X-Team': 'search' });
    assert.deepEqual(config.methods, { basic: { variant: 'hybrid' } });
    assert.equal(config.embeddings.dimensions, 1024);
  });

  test('is deterministic', () => {
    assert.equal(renderConfigTemplate(), template);
    assert.ok(template.endsWith('\n'));
  });
});
