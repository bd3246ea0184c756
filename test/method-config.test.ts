import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { builtInMethods } from '../src/api/built-in-methods.js';
import { createMethodRegistry } from '../src/api/method-registry.js';
import { renderConfigTemplate } from '../src/core/config/config-template.js';
import { KgragError } from '../src/core/errors.js';
import { loadConfig, workspaceConfigSchema } from '../src/core/config/load-config.js';
import { parse } from 'yaml';

const methodConfigSchemas = createMethodRegistry(builtInMethods).configSchemas;

const folders: string[] = [];
after(() => {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

function workspace(yaml?: string): string {
  const folder = mkdtempSync(join(tmpdir(), 'kgrag-method-config-'));
  folders.push(folder);
  if (yaml !== undefined) writeFileSync(join(folder, 'kgrag.yaml'), yaml);
  return folder;
}

async function problemsOf(yaml: string, env: Record<string, string> = {}): Promise<string[]> {
  const error = await loadConfig({ workspace: workspace(yaml), env, methods: methodConfigSchemas }).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  assert.ok(KgragError.isInstance(error), `expected a KgragError, got ${String(error)}`);
  return (error.details as { problems: string[] }).problems;
}

describe('methods.<name>: each method declares its own section', () => {
  test('a method key is set from kgrag.yaml and from its KGRAG_METHODS_* variable', async () => {
    const { config } = await loadConfig({
      workspace: workspace('methods:\n  ppr:\n    damping: 0.7\n'),
      env: { KGRAG_METHODS_LOCAL_TOP_K_ENTITIES: '4' },
      methods: methodConfigSchemas,
    });
    assert.deepEqual(config.methods['ppr'], { damping: 0.7 });
    assert.deepEqual(config.methods['local'], { topKEntities: 4 });
  });

  test('a misspelt key, a wrong value or an unknown variant names the method, the key and the file', async () => {
    const problems = await problemsOf('methods:\n  ppr:\n    dampng: 0.7\n  local:\n    topKEntities: -1\n  basic:\n    variant: fuzzy\n');
    assert.equal(problems.length, 3, JSON.stringify(problems));
    assert.ok(problems.some((problem) => /^methods\.ppr\.dampng: unknown key.*kgrag\.yaml\)$/.test(problem)), JSON.stringify(problems));
    assert.ok(problems.some((problem) => /^methods\.local\.topKEntities: /.test(problem)), JSON.stringify(problems));
    assert.ok(problems.some((problem) => /^methods\.basic\.variant: .*bm25/.test(problem)), JSON.stringify(problems));
  });

  test('an unknown method name is reported with the registered ones', async () => {
    const problems = await problemsOf('methods:\n  hippo:\n    damping: 0.5\n');
    assert.equal(problems.length, 1, JSON.stringify(problems));
    assert.match(problems[0] ?? '', /^methods\.hippo: unknown key/);
  });

  test('kgrag init lists every method key with its default, and the template loads back unchanged', async () => {
    const template = renderConfigTemplate(workspaceConfigSchema(methodConfigSchemas));
    for (const [name, method] of Object.entries(methodConfigSchemas)) {
      assert.match(template, new RegExp(`^  ${name}:$`, 'm'), `section of ${name}`);
      for (const key of Object.keys((method.schema as unknown as { shape: object }).shape)) {
        assert.match(template, new RegExp(`^ {4}(# )?${key}:`, 'm'), `methods.${name}.${key}`);
      }
    }
    const parsed = parse(template) as { methods: Record<string, unknown> };
    assert.deepEqual(Object.keys(parsed.methods), Object.keys(methodConfigSchemas));
    const { config } = await loadConfig({ workspace: workspace(template), env: {}, methods: methodConfigSchemas });
    assert.equal((config.methods['ppr'] as { damping: number }).damping, 0.5);
  });
});
