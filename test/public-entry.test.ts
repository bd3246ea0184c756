import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import * as kgrag from '../src/index.js';
import * as testing from '../src/testing/index.js';

const entrySource = readFileSync(new URL('../src/index.ts', import.meta.url), 'utf8');

test('the package entry exports a curated list: no wildcard re-export of internals', () => {
  assert.doesNotMatch(entrySource, /export \*/);
});

test('the package entry exports every built-in method, and each under its own name', () => {
  const exported = kgrag as unknown as Record<string, unknown>;
  for (const method of kgrag.builtInMethods) {
    assert.equal(exported[`${method.name}Method`], method, `${method.name}Method`);
    assert.ok(exported[`${method.name}Config`] !== undefined, `${method.name}Config`);
  }
});

test('the test doubles are under kgrag/testing, not in the package entry', () => {
  for (const name of ['createScriptedLanguageModel', 'startMockOpenAiServer', 'describeStoreContract']) {
    assert.equal(typeof (testing as Record<string, unknown>)[name], 'function', `kgrag/testing exports ${name}`);
    assert.equal((kgrag as Record<string, unknown>)[name], undefined, `the entry does not export ${name}`);
  }
});

test('the package entry exports the graph browser and its limits', () => {
  assert.equal(typeof kgrag.createGraphBrowser, 'function');
  assert.equal(kgrag.graphBrowserLimits.searchLimit.max, 100);
  assert.equal(typeof kgrag.maxSearchQueryLength, 'number');
});

test('the service layer is its own entry, kgrag/server, so that the package entry loads no HTTP or MCP code', async () => {
  const server = (await import('../src/server/index.js')) as Record<string, unknown>;
  for (const name of ['serveWorkspaces', 'createServerApp', 'createWorkspaceRegistry', 'createMcpServer', 'createMcpHttpHandler']) {
    assert.equal(typeof server[name], 'function', `kgrag/server exports ${name}`);
    assert.equal((kgrag as Record<string, unknown>)[name], undefined, `the entry does not export ${name}`);
  }
  const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { exports: Record<string, { default: string }> };
  assert.equal(manifest.exports['./server']?.default, './dist/server/index.js');
});
