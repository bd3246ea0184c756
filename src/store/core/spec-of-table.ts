import { KgragError } from '../../core/errors.js';
import { schema, type AnyTableSpec } from '../schema.js';
import type { PluginTables } from '../store-extensions.js';

/**
 * The spec of a built-in table or of one of the plugin tables a store was opened with.
 * @throws KgragError `STORE_UNKNOWN_TABLE` for any other name.
 */
export function specOfTable(name: string, pluginTables: PluginTables): AnyTableSpec {
  const spec = Object.hasOwn(schema, name) ? (schema as Record<string, unknown>)[name] : Object.hasOwn(pluginTables, name) ? pluginTables[name] : undefined;
  if (spec !== undefined) return spec as AnyTableSpec;
  throw new KgragError(`the store has no table "${name}"`, {
    code: 'STORE_UNKNOWN_TABLE',
    category: 'internal',
    hint: "a plugin's table must be declared with the plugin, so that the store is opened with it (`tables`)",
    details: { table: name, pluginTables: Object.keys(pluginTables) },
  });
}
