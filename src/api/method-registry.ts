import type { MethodConfigSchema } from '../core/config/load-config.js';
import { KgragError } from '../core/errors.js';
import type { PromptTemplate } from '../core/prompt-library.js';
import { methodSpecificationVersion, type AnyQueryMethod } from '../methods/query-method.js';
import { sharedStepNames } from '../pipeline/pipeline-step.js';
import { validatePluginTables, validatePluginVectorSpaces, type PluginTables } from '../store/store-extensions.js';
import { isBuiltInMethod } from './built-in-methods.js';

/** The query methods of one workspace, checked once, with what the rest of the facade derives from them. */
export interface MethodRegistry {
  /** In the order their steps run in an index built for all of them. */
  readonly methods: readonly AnyQueryMethod[];
  /** Each method's section of the configuration (`methods.<name>`), for loading and `kgrag init`. */
  readonly configSchemas: Readonly<Record<string, MethodConfigSchema>>;
  /** The tables the plugins declare, which the workspace's storage creates beside the built-in ones. */
  readonly tables: PluginTables;
  /** The methods' own prompts, once each (two methods may send the same one). */
  readonly prompts: readonly PromptTemplate[];
  /** The methods named by `pipeline.methods` (or `--methods`): `all`, or names of these methods. */
  select(names: 'all' | readonly string[], origin: string): AnyQueryMethod[];
}

function pluginError(method: string, message: string, hint: string, origin: string | undefined): KgragError {
  return new KgragError(`method plugin "${method}"${origin === undefined ? '' : ` (${origin})`} ${message}`, {
    code: 'PLUGIN_INVALID',
    category: 'config',
    hint,
    details: { method, ...(origin === undefined ? {} : { origin }) },
  });
}

/** Refuses a method that breaks the v1 contract or claims a name another method or the store owns. */
function checkPlugin(method: AnyQueryMethod, earlier: readonly AnyQueryMethod[], origin: string | undefined): void {
  const fail = (message: string, hint: string): never => {
    throw pluginError(method.name, message, hint, origin);
  };
  if (method.specificationVersion !== methodSpecificationVersion) {
    fail(`implements method specification ${JSON.stringify(method.specificationVersion ?? null)}, and this kgrag implements "${methodSpecificationVersion}"`, `set specificationVersion: '${methodSpecificationVersion}' and check the plugin against docs/ARCHITECTURE.md "Writing a method", or use a kgrag release of its version`);
  }
  const clash = earlier.find((other) => other.name === method.name);
  if (clash) fail(`has the name of ${isBuiltInMethod(clash) ? 'a built-in method' : 'another method'}`, 'rename the plugin (its name is what `-m` and methods.<name> use)');
  if (method.indexSteps !== undefined && (method.provides ?? []).length === 0) fail('has index steps but declares none in `provides`', "list the names of the steps its indexSteps returns in `provides`, e.g. provides: ['my-method-graph']");
  for (const step of method.provides ?? []) {
    if ((sharedStepNames as readonly string[]).includes(step)) fail(`declares the step "${step}", which is a shared step`, `name its own steps after the method, e.g. "${method.name}-${step}", and list shared steps it reads in \`requires\``);
    const owner = earlier.find((other) => other.provides?.includes(step));
    if (owner) fail(`declares the step "${step}", which method "${owner.name}" provides`, `name its own steps after the method, e.g. "${method.name}-${step}", or list "${step}" in \`requires\` to read ${owner.name}'s`);
  }
  const owner = `method plugin "${method.name}"${origin === undefined ? '' : ` (${origin})`}`;
  // The store checks names it can store (safe SQL identifiers, no built-in space or table): STORE_INVALID_*.
  validatePluginVectorSpaces(method.vectorSpaces ?? [], owner);
  validatePluginTables(method.tables, owner);
  for (const space of method.vectorSpaces ?? []) {
    const other = earlier.find((candidate) => candidate.vectorSpaces?.includes(space));
    if (other) fail(`declares the vector space "${space}", which method "${other.name}" declares`, `name its spaces after the method, e.g. "${method.name.replaceAll('-', '_')}_${space}"`);
  }
  for (const table of Object.keys(method.tables ?? {})) {
    const other = earlier.find((candidate) => candidate.tables !== undefined && Object.hasOwn(candidate.tables, table));
    if (other) fail(`declares the table "${table}", which method "${other.name}" declares`, 'name its tables after the method');
  }
}

/** Options of {@link createMethodRegistry}. */
export interface MethodRegistryOptions {
  /** Where a plugin came from (its `plugins:` entry), for messages. */
  originOf?: (method: AnyQueryMethod) => string | undefined;
}

/**
 * A workspace's methods, each checked against the v1 contract — its version, a unique name, and steps, vector spaces
 * and tables that no other method or the store already owns. The built-ins are checked like any plugin (they declare
 * the version and their steps; their spaces and tables are the schema's), so a method kgrag makes itself (`tot` with
 * the knowledge graphs given to createKgrag) needs no exemption. `originOf` names where a plugin came from.
 */
export function createMethodRegistry(methods: readonly AnyQueryMethod[], options: MethodRegistryOptions = {}): MethodRegistry {
  const { originOf = () => undefined } = options;
  methods.forEach((method, index) => checkPlugin(method, methods.slice(0, index), originOf(method)));
  const names = methods.map((method) => method.name);
  return {
    methods,
    tables: Object.fromEntries(methods.flatMap((method) => Object.entries(method.tables ?? {}))),
    configSchemas: Object.fromEntries(methods.map((method) => [method.name, { schema: method.config, variants: method.variants }])),
    prompts: methods.flatMap((method) => method.prompts ?? []).filter((template, index, all) => all.findIndex((other) => other.name === template.name) === index),
    select(chosen, origin) {
      if (chosen === 'all') return [...methods];
      const unknown = chosen.filter((name) => !names.includes(name));
      if (unknown.length > 0) {
        throw new KgragError(`${origin} names unknown methods: ${unknown.join(', ')}`, {
          code: 'CONFIG_UNKNOWN_METHOD',
          category: 'config',
          hint: `choose among ${names.join(', ')}, or "all"`,
        });
      }
      return methods.filter((method) => chosen.includes(method.name));
    },
  };
}
