import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { z } from 'zod';
import { KgragError } from '../core/errors.js';
import type { AnyQueryMethod } from '../methods/query-method.js';
import { builtInMethods } from './built-in-methods.js';
import { createMethodRegistry } from './method-registry.js';

/** A plugin with nothing but a name and the fields every method has; `fields` adds or overrides the rest. */
function plugin(name: string, fields: Partial<AnyQueryMethod> = {}): AnyQueryMethod {
  return {
    specificationVersion: 'kgrag-method-v1',
    name,
    description: `test plugin ${name}`,
    variants: [],
    config: z.object({ k: z.number().default(3) }),
    ranking: { kind: 'native' },
    requires: ['chunk'],
    retrieve: async () => ({ chunks: [], state: undefined }),
    ...fields,
  };
}

function refused(make: () => unknown, pattern: RegExp): void {
  assert.throws(make, (error: unknown) => {
    assert.ok(KgragError.isInstance(error), String(error));
    assert.equal(error.code, 'PLUGIN_INVALID');
    assert.equal(error.category, 'config');
    assert.match(error.message, pattern);
    assert.ok((error.hint ?? '').length > 0, 'a hint says how to fix it');
    return true;
  });
}

describe('a workspace method registry', () => {
  test('holds the built-ins and plugins in order, with their configuration sections and prompts', () => {
    const registry = createMethodRegistry([...builtInMethods, plugin('mine')]);
    assert.deepEqual(registry.methods.map((method) => method.name).slice(-2), ['tot', 'mine']);
    assert.ok(registry.configSchemas['mine'] !== undefined);
    assert.deepEqual(registry.select(['mine', 'basic'], 'test').map((method) => method.name), ['basic', 'mine']);
    assert.throws(() => registry.select(['nope'], '--methods'), /--methods names unknown methods: nope/);
  });

  test('refuses a plugin without the v1 specification version, naming the plugin and where it came from', () => {
    refused(() => createMethodRegistry([plugin('old', { specificationVersion: undefined })], { originOf: () => './old.js' }), /method plugin "old" \(\.\/old\.js\) implements method specification null/);
    refused(() => createMethodRegistry([plugin('future', { specificationVersion: 'kgrag-method-v2' as 'kgrag-method-v1' })]), /"kgrag-method-v2"/);
  });

  test('refuses a plugin named like a built-in or another plugin', () => {
    refused(() => createMethodRegistry([...builtInMethods, plugin('basic')]), /"basic" has the name of a built-in method/);
    refused(() => createMethodRegistry([plugin('twice'), plugin('twice')]), /"twice" has the name of another method/);
  });

  test('refuses a step claimed by two plugins or named like a shared step', () => {
    const indexSteps = async () => [];
    refused(() => createMethodRegistry([plugin('a', { provides: ['graph'], indexSteps }), plugin('b', { provides: ['graph'], indexSteps })]), /"b" declares the step "graph", which method "a" provides/);
    refused(() => createMethodRegistry([plugin('c', { provides: ['embed-chunks'], indexSteps })]), /"c" declares the step "embed-chunks", which is a shared step/);
    refused(() => createMethodRegistry([plugin('d', { indexSteps })]), /"d" has index steps but declares none in `provides`/);
  });

  test('refuses a vector space or table a built-in or another plugin owns', () => {
    const table = { sqlName: 'g_items', key: ['id'], columns: { id: { type: 'text' as const }, score: { type: 'real' as const } }, hid: false };
    const storeRefused = (make: () => unknown, pattern: RegExp): void => {
      assert.throws(make, (error: unknown) => KgragError.isInstance(error) && error.code === 'STORE_INVALID_EXTENSION' && error.category === 'config' && pattern.test(error.message));
    };
    storeRefused(() => createMethodRegistry([plugin('e', { vectorSpaces: ['chunks'] })]), /method plugin "e" declares the vector space "chunks", which is a built-in space/);
    storeRefused(() => createMethodRegistry([plugin('f', { tables: { entities: { ...table, sqlName: 'f_entities' } } })]), /method plugin "f"'s table "entities" is a built-in table/);
    assert.deepEqual(Object.keys(createMethodRegistry([plugin('g', { vectorSpaces: ['g_items'], tables: { gItems: table } })]).tables), ['gItems']);
    refused(() => createMethodRegistry([plugin('g', { vectorSpaces: ['g_items'] }), plugin('h', { vectorSpaces: ['g_items'] })]), /"h" declares the vector space "g_items", which method "g" declares/);
    refused(() => createMethodRegistry([plugin('g', { tables: { gItems: table } }), plugin('h', { tables: { gItems: { ...table, sqlName: 'h_items' } } })]), /"h" declares the table "gItems", which method "g" declares/);
  });
});
