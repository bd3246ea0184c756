import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { isAbsolute, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { z } from 'zod';
import { errorMessage } from '../core/error-message.js';
import { KgragError } from '../core/errors.js';
import { methodSpecificationVersion, type AnyQueryMethod } from '../methods/query-method.js';

/** A method plugin a workspace loaded, with the `plugins:` entry it came from (for messages). */
export interface LoadedMethodPlugin {
  method: AnyQueryMethod;
  origin: string;
}

const isFunction = (value: unknown): boolean => typeof value === 'function';

/**
 * The fields of a `kgrag-method-v1` method that can be checked before it is called: the edge between a user's
 * module and kgrag. `config` must be a zod schema (it validates `methods.<name>`); the functions are called later.
 */
const methodSpecification = z.looseObject({
  specificationVersion: z.literal(methodSpecificationVersion, { error: (issue) => `is ${JSON.stringify(issue.input ?? null)}, and this kgrag implements "${methodSpecificationVersion}" (set specificationVersion: '${methodSpecificationVersion}', checked against docs/ARCHITECTURE.md "Writing a method")` }),
  name: z.string().regex(/^[a-z][a-z0-9-]*$/, 'must be lowercase letters, digits and "-", starting with a letter (it is what `-m` and methods.<name> use)'),
  description: z.string().min(1),
  variants: z.array(z.string().min(1)),
  config: z.custom<z.ZodType>((value) => typeof value === 'object' && value !== null && isFunction((value as { safeParse?: unknown }).safeParse) && typeof (value as { shape?: unknown }).shape === 'object', 'must be a zod object schema (e.g. z.object({ k: z.number().default(10) }), with `z` from kgrag)'),
  ranking: z.object({ kind: z.enum(['native', 'proxy', 'fallback']), note: z.string().optional() }),
  requires: z.array(z.string().min(1)),
  provides: z.array(z.string().min(1)).optional(),
  vectorSpaces: z.array(z.string().min(1)).optional(),
  tables: z.record(z.string(), z.looseObject({})).optional(),
  indexSettings: z.array(z.string()).optional(),
  retrieve: z.custom<AnyQueryMethod['retrieve']>(isFunction, 'must be a function (context, question, config, variant) => Retrieval'),
  answer: z.custom<AnyQueryMethod['answer']>(isFunction, 'must be a function').optional(),
  indexSteps: z.custom<AnyQueryMethod['indexSteps']>(isFunction, 'must be a function returning a promise of pipeline steps').optional(),
});

function pluginError(origin: string, message: string, code: string, hint: string): KgragError {
  return new KgragError(`plugin ${origin} (plugins: in kgrag.yaml) ${message}`, { code, category: 'config', hint, details: { plugin: origin } });
}

/** The module URL of a `plugins:` entry: a path relative to the workspace, an absolute path, or a package name. */
function moduleUrl(entry: string, workspace: string): string {
  if (entry.startsWith('.') || isAbsolute(entry)) {
    const path = resolve(workspace, entry);
    if (!existsSync(path)) throw pluginError(entry, `is not found: ${path} does not exist`, 'PLUGIN_NOT_FOUND', `a path in plugins: is relative to the workspace (${workspace}); fix the path or create the module`);
    return pathToFileURL(path).href;
  }
  try {
    // A package is resolved from the workspace, as the workspace's own code would import it.
    return pathToFileURL(createRequire(join(workspace, 'kgrag.yaml')).resolve(entry)).href;
  } catch {
    throw pluginError(entry, `is not found: no package "${entry}" is installed for ${workspace}`, 'PLUGIN_NOT_FOUND', `install it in the workspace (npm install ${entry}), or give a path starting with ./`);
  }
}

/** The methods a plugin module exports: its default export, or `method`, or `methods` (each one method or a list). */
function exportedMethods(module: Record<string, unknown>, origin: string): unknown[] {
  const exported = module['default'] ?? module['method'] ?? module['methods'];
  if (exported === undefined) {
    throw pluginError(origin, `exports no method (its exports: ${Object.keys(module).join(', ') || 'none'})`, 'PLUGIN_NO_EXPORT', 'export the method as the default export (`export default { specificationVersion: \'kgrag-method-v1\', name, ... }`), or as `method` or `methods`');
  }
  return Array.isArray(exported) ? exported : [exported];
}

/** A plugin's method, checked against the v1 specification; every problem is reported at once with its field. */
function checkedMethod(candidate: unknown, origin: string): AnyQueryMethod {
  const parsed = methodSpecification.safeParse(candidate);
  if (!parsed.success) {
    const name = typeof (candidate as { name?: unknown } | null)?.name === 'string' ? ` method "${(candidate as { name: string }).name}"` : ' method';
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.') || '(the export)'} ${issue.message}`);
    throw pluginError(origin, `exports a${name} that is not a kgrag-method-v1 method: ${problems.join('; ')}`, 'PLUGIN_INVALID', 'fix those fields (docs/ARCHITECTURE.md "Writing a method" lists them)');
  }
  // The object itself, not zod's copy: its functions and schema are used as the plugin wrote them.
  return candidate as AnyQueryMethod;
}

/**
 * Loads the method plugins a workspace's configuration lists (`plugins:`), in order, with dynamic `import()`: each
 * module is checked at this edge (found, exporting methods, each a `kgrag-method-v1` method) and fails with an error
 * naming the entry and the fix. Names and steps are checked against the other methods by the registry.
 */
export async function loadMethodPlugins(entries: readonly string[], workspace: string): Promise<LoadedMethodPlugin[]> {
  const loaded: LoadedMethodPlugin[] = [];
  for (const entry of entries) {
    const url = moduleUrl(entry, workspace);
    let module: Record<string, unknown>;
    try {
      module = (await import(url)) as Record<string, unknown>;
    } catch (error) {
      throw pluginError(entry, `could not be loaded: ${errorMessage(error)}`, 'PLUGIN_LOAD_FAILED', 'fix the error in the module (it is an ES module importing kgrag), then run the command again');
    }
    for (const candidate of exportedMethods(module, entry)) loaded.push({ method: checkedMethod(candidate, entry), origin: entry });
  }
  return loaded;
}
