import { readFile, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import { toEnvironmentError } from '../environment-error.js';
import { errorMessage } from '../error-message.js';
import { KgragError } from '../errors.js';
import { redactUrl } from '../redact-url.js';
import { configSchema, movedConfigKeys, type KgragConfig, type KgragConfigInput } from './config-schema.js';
import { expandVariables } from './expand-variables.js';
import { closestWord } from '../closest-word.js';

/** The configuration file name looked up in a workspace. */
export const configFileName = 'kgrag.yaml';

type JsonSchema = {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  description?: string;
  default?: unknown;
  enum?: unknown[];
  anyOf?: JsonSchema[];
  additionalProperties?: unknown;
};

/** A leaf of the configuration: its key path, JSON type and description. */
export interface ConfigKey {
  path: string[];
  type: string;
  description: string | undefined;
  default: unknown;
  enum: unknown[] | undefined;
}

const cachedKeys = new WeakMap<z.ZodType, ConfigKey[]>();

/** A method's section of the configuration, as the method declares it (`methods.<name>`). */
export interface MethodConfigSchema {
  /** A zod object schema; its public `shape` lists the section's keys. */
  schema: z.ZodType & { readonly shape: Readonly<Record<string, z.ZodType>> };
  variants: readonly string[];
}

const sectionSchemas = new WeakMap<Readonly<Record<string, MethodConfigSchema>>, z.ZodObject>();
const extendedSchemas = new WeakMap<Readonly<Record<string, MethodConfigSchema>>, z.ZodType>();

/**
 * `methods.*` as the registered methods declare it: each method's settings and parameters as written (no defaults
 * filled in: each query merges them with its own parameters), and its default `variant`.
 */
function methodSectionsSchema(methods: Readonly<Record<string, MethodConfigSchema>>): z.ZodObject {
  let schema = sectionSchemas.get(methods);
  if (!schema) {
    const sections = Object.fromEntries(
      Object.entries(methods).map(([name, method]) => {
        const variant = method.variants.length > 0 ? z.enum(method.variants as [string, ...string[]]) : z.never();
        // The shape alone: cross-field refinements (local's proportions) are checked when the method parses its merged section.
        const section = z.object(method.schema.shape).partial().extend({ variant: variant.optional().describe(`Variant used when a query names none (${method.variants.join(', ')}); the first is the default`) });
        return [name, section.strict().optional()];
      }),
    );
    schema = z.object(sections).strict();
    sectionSchemas.set(methods, schema);
  }
  return schema;
}

/**
 * The configuration schema with each method's section spelled out: what `kgrag init` lists and what KGRAG_*
 * variables may set.
 */
export function workspaceConfigSchema(methods: Readonly<Record<string, MethodConfigSchema>>): z.ZodType {
  let schema = extendedSchemas.get(methods);
  if (!schema) {
    schema = configSchema.extend({
      methods: methodSectionsSchema(methods).default({}).describe('Per-method settings and parameters; each method\'s keys are listed under its name'),
    });
    extendedSchemas.set(methods, schema);
  }
  return schema;
}

/** Every settable key of the schema, derived from its JSON Schema (the single source of truth). */
export function configKeys(schema: z.ZodType = configSchema): ConfigKey[] {
  const cached = cachedKeys.get(schema);
  if (cached) return cached;
  const root = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
  const keys: ConfigKey[] = [];
  const walk = (schema: JsonSchema, path: string[]): void => {
    const variant = schema.anyOf?.find((option) => option.type !== 'null') ?? schema;
    if (variant.type === 'object' && variant.properties) {
      for (const [name, child] of Object.entries(variant.properties)) walk(child, [...path, name]);
      return;
    }
    keys.push({
      path,
      type: Array.isArray(variant.type) ? (variant.type[0] ?? 'string') : (variant.type ?? 'string'),
      description: schema.description ?? variant.description,
      default: schema.default ?? variant.default,
      enum: variant.enum,
    });
  };
  walk(root, []);
  cachedKeys.set(schema, keys);
  return keys;
}

/** `["llm", "baseURL"]` → `KGRAG_LLM_BASE_URL`. */
export function environmentName(path: readonly string[]): string {
  return `KGRAG_${path.map((part) => part.replace(/([a-z0-9])([A-Z])/g, '$1_$2').replace(/([A-Z])([A-Z][a-z])/g, '$1_$2').toUpperCase()).join('_')}`;
}

/** Options of {@link loadConfig}. */
export interface LoadConfigOptions {
  /** Workspace folder; its `kgrag.yaml` is read when present. */
  workspace: string;
  /** An explicit configuration file instead of the workspace's. */
  configFile?: string;
  /**
   * A configuration file read beneath the workspace's own (the `--workspaces` folder's `kgrag.yaml`, which every tenant
   * starts from); missing is fine.
   */
  baseConfigFile?: string;
  /** Environment variables. @default process.env */
  env?: Record<string, string | undefined>;
  /** Values from command-line flags (highest precedence). */
  overrides?: KgragConfigInput;
  /**
   * The sections of `methods` the workspace's methods declare: their keys get KGRAG_* variables and are
   * validated with the rest, each by its method's schema. Without them `methods.*` is not checked here. A function
   * is given the `plugins` the configuration lists (the options', else `KGRAG_PLUGINS`, else kgrag.yaml's) and the
   * workspace folder, and returns the sections of the methods with those plugins loaded.
   */
  methods?: Readonly<Record<string, MethodConfigSchema>> | MethodSchemasOfPlugins;
}

/** The configuration sections of a workspace's methods once the plugins its configuration lists are loaded. */
export type MethodSchemasOfPlugins = (plugins: readonly string[], workspace: string) => Promise<Readonly<Record<string, MethodConfigSchema>>>;

/** A resolved configuration and where it came from. */
export interface LoadedConfig {
  config: KgragConfig;
  workspace: string;
  /** Files and variables that contributed, for `kgrag config` style diagnostics. */
  sources: string[];
  /** Whether a key was set by `kgrag.yaml`, the environment or the options, rather than left at its default. */
  isSet(path: readonly string[]): boolean;
}

type PlainObject = Record<string, unknown>;

function isPlainObject(value: unknown): value is PlainObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Sets an own property, even one named `__proto__`: a key path from the user then stays plain data (which
 * validation reports as an unknown key) instead of replacing the object's prototype.
 */
function setOwn(target: PlainObject, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/** The value of an own property; inherited ones (`constructor`, `__proto__`) are not configuration. */
function ownValue(target: PlainObject, key: string): unknown {
  return Object.hasOwn(target, key) ? target[key] : undefined;
}

/** Deep-merges `override` into `base`; arrays and scalars replace. Keys such as `__proto__` stay inert data. */
export function mergeConfig(base: PlainObject, override: PlainObject): PlainObject {
  const result: PlainObject = { ...base };
  for (const [key, value] of Object.entries(override)) {
    if (value === undefined) continue;
    const existing = ownValue(result, key);
    setOwn(result, key, isPlainObject(existing) && isPlainObject(value) ? mergeConfig(existing, value) : value);
  }
  return result;
}

function setPath(target: PlainObject, path: readonly string[], value: unknown): void {
  let node = target;
  for (const part of path.slice(0, -1)) {
    if (!isPlainObject(ownValue(node, part))) setOwn(node, part, {});
    node = node[part] as PlainObject;
  }
  setOwn(node, path[path.length - 1] as string, value);
}

/** Whether `target` sets the value at `path` (walking into objects and arrays). */
function hasPath(target: unknown, path: readonly PropertyKey[]): boolean {
  let node = target;
  for (const part of path) {
    if (Array.isArray(node) && Number.isInteger(Number(part)) && Number(part) < node.length) node = node[Number(part)];
    else if (isPlainObject(node) && Object.hasOwn(node, String(part))) node = node[String(part)];
    else return false;
  }
  return true;
}

/** Splits a comma list, keeping commas inside glob braces (`**\/*.{md,txt}`) within their pattern. */
function splitList(raw: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let current = '';
  for (const character of raw) {
    if (character === '{') depth++;
    if (character === '}') depth = Math.max(0, depth - 1);
    if (character === ',' && depth === 0) {
      parts.push(current);
      current = '';
    } else {
      current += character;
    }
  }
  parts.push(current);
  return parts.map((part) => part.trim()).filter(Boolean);
}

function parseEnvironmentValue(raw: string, type: string): unknown {
  if (type === 'string') return raw;
  if (type === 'array' && !raw.trim().startsWith('[')) return splitList(raw);
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}

/**
 * Resolves the configuration of a workspace: defaults < `kgrag.yaml` < `KGRAG_*` environment
 * variables (`KGRAG_LLM_BASE_URL`, …; `OPENAI_API_KEY`, `OPENAI_BASE_URL` and `KGRAG_API_KEYS` (server.apiKeys) as fallbacks) < flags.
 * String values of `kgrag.yaml` may name environment variables as `${NAME}` ({@link expandVariables}).
 * Every problem is reported at once, each with its key path, where it was set, and how to fix it.
 */
export async function loadConfig(options: LoadConfigOptions): Promise<LoadedConfig> {
  const workspace = resolve(options.workspace);
  const env = options.env ?? process.env;
  const problems: string[] = [];
  const sources: string[] = [];
  const layers: Array<{ name: string; values: PlainObject }> = [];

  await checkWorkspaceFolder(workspace);
  const readLayer = async (file: string, required: boolean): Promise<void> => {
    let text: string | undefined;
    try {
      text = await readFile(file, 'utf8');
    } catch (error) {
      if (required || (error as NodeJS.ErrnoException).code !== 'ENOENT') problems.push(unreadableConfigProblem(file, error));
    }
    if (text === undefined) return;
    const values = await parseYaml(text, file, problems);
    if (values !== undefined && values !== null && !isPlainObject(values)) {
      problems.push(`${file}: must be a mapping of keys (like "llm:"), not a ${Array.isArray(values) ? 'list' : typeof values}`);
    } else if (isPlainObject(values)) {
      for (const problem of expandVariables(values, env)) problems.push(`${problem.path.join('.')}: ${problem.message} (set in ${file})`);
      layers.push({ name: file, values });
      sources.push(file);
    }
  };
  const file = options.configFile ? resolve(options.configFile) : join(workspace, configFileName);
  if (options.baseConfigFile !== undefined && resolve(options.baseConfigFile) !== file) await readLayer(resolve(options.baseConfigFile), false);
  await readLayer(file, options.configFile !== undefined);

  const methodSchemas = typeof options.methods === 'function' ? await options.methods(pluginsOf(layers, env, options.overrides), workspace) : options.methods;
  const schema = methodSchemas ? workspaceConfigSchema(methodSchemas) : configSchema;
  // Deriving the keys walks the whole JSON Schema: a process without KGRAG_* variables and without problems skips it.
  let keys: ConfigKey[] | undefined;
  const allKeys = (): ConfigKey[] => (keys ??= configKeys(schema));
  const fromEnv: PlainObject = {};
  const envSources = new Map<string, string>();
  const setsKgragVariables = Object.keys(env).some((name) => name.startsWith('KGRAG_'));
  for (const key of setsKgragVariables ? allKeys() : []) {
    const name = environmentName(key.path);
    const raw = env[name];
    if (raw === undefined || raw === '') continue;
    setPath(fromEnv, key.path, parseEnvironmentValue(raw, key.type));
    envSources.set(key.path.join('.'), name);
    sources.push(name);
  }
  for (const [name, path] of [
    ['OPENAI_API_KEY', ['llm', 'apiKey']],
    ['OPENAI_BASE_URL', ['llm', 'baseURL']],
    ['KGRAG_API_KEYS', ['server', 'apiKeys']],
    ['KGRAG_DATABASE_URL', ['store', 'url']],
  ] as const) {
    const raw = env[name];
    if (raw && !envSources.has(path.join('.')) && !layers.some((layer) => hasPath(layer.values, path))) {
      // Parsed as the key's own variable would be (a list for server.apiKeys); OPENAI_* name string keys, and need
      // no walk of the schema.
      const type = name.startsWith('KGRAG_') ? allKeys().find((key) => key.path.join('.') === path.join('.'))?.type : 'string';
      setPath(fromEnv, path, parseEnvironmentValue(raw, type ?? 'string'));
      envSources.set(path.join('.'), name);
      sources.push(name);
    }
  }
  // KGRAG_DATABASE_URL, the one variable a deployment sets, also selects the backend it is for.
  if (envSources.get('store.url') === 'KGRAG_DATABASE_URL' && !envSources.has('store.backend') && !layers.some((layer) => hasPath(layer.values, ['store', 'backend']))) {
    setPath(fromEnv, ['store', 'backend'], 'postgres');
  }
  layers.push({ name: 'environment', values: fromEnv });
  if (options.overrides) layers.push({ name: 'command line', values: options.overrides as PlainObject });

  const merged = layers.reduce<PlainObject>((result, layer) => mergeConfig(result, layer.values), {});
  const parsed = configSchema.safeParse(merged);
  let issues: z.core.$ZodIssue[] = parsed.success ? [] : parsed.error.issues;
  const methods = merged['methods'];
  if (methodSchemas && isPlainObject(methods)) {
    // The methods' own sections check `methods.*` more closely than the core schema, which only asks for mappings.
    const sections = methodSectionsSchema(methodSchemas).safeParse(methods);
    const methodIssues = sections.success ? [] : sections.error.issues.map((issue) => ({ ...issue, path: ['methods', ...issue.path] }));
    issues = [...issues.filter((issue) => issue.path[0] !== 'methods'), ...methodIssues];
  }
  if (issues.length > 0) {
    for (const issue of issues) {
      const paths = issue.code === 'unrecognized_keys' ? issue.keys.map((key) => [...issue.path, key]) : [issue.path];
      for (const path of paths) {
        const dotted = path.map(String).join('.') || '(top level)';
        const layer = [...layers].reverse().find((candidate) => hasPath(candidate.values, path));
        const origin = layer?.name === 'environment' ? environmentSource(envSources, path) : (layer?.name ?? 'defaults');
        const moved = issue.code === 'unrecognized_keys' ? movedConfigKeys.get(dotted) : undefined;
        const problem = moved === undefined ? describeIssue(issue, path, allKeys()) : `moved to ${moved}: the same section, placed there`;
        problems.push(`${dotted}: ${problem} (set in ${origin})`);
      }
    }
  }
  if (problems.length > 0) {
    // A problem may quote a value; a URL in it can hold a key.
    const shown = problems.map(redactUrl);
    throw new KgragError(`invalid configuration:\n${shown.map((problem) => `  - ${problem}`).join('\n')}`, {
      code: 'CONFIG_INVALID',
      category: 'config',
      hint: `fix the keys above; \`kgrag init\` writes a commented ${configFileName} listing every key`,
      details: { problems: shown },
    });
  }
  return { config: (parsed as { data: KgragConfig }).data, workspace, sources, isSet: (path) => layers.some((layer) => hasPath(layer.values, path)) };
}

/**
 * The method plugins the configuration lists, before it is validated (their sections are part of what validates it):
 * the options' `plugins`, else `KGRAG_PLUGINS`, else the file's. A value that is not a list of strings counts as none
 * here; validation then reports it with the rest.
 */
function pluginsOf(layers: ReadonlyArray<{ values: PlainObject }>, env: Record<string, string | undefined>, overrides: KgragConfigInput | undefined): string[] {
  const fromEnv = env['KGRAG_PLUGINS'];
  const candidates = [ownValue((overrides ?? {}) as PlainObject, 'plugins'), fromEnv ? parseEnvironmentValue(fromEnv, 'array') : undefined, ...layers.map((layer) => ownValue(layer.values, 'plugins'))];
  const listed = candidates.find((value) => value !== undefined);
  return Array.isArray(listed) && listed.every((item) => typeof item === 'string') ? listed : [];
}

/** A workspace is a folder (it may not exist yet); a file there is a mistake worth naming as such. */
async function checkWorkspaceFolder(workspace: string): Promise<void> {
  const notAFolder = (why: string): KgragError =>
    new KgragError(`the workspace "${workspace}" ${why}, not a folder`, {
      code: 'CONFIG_WORKSPACE_NOT_FOLDER',
      category: 'input',
      hint: 'pass a folder as the workspace (-w, --workspace or KGRAG_WORKSPACE): it holds kgrag.yaml and the index, and is created if missing; a configuration file is passed with -c, --config',
      details: { workspace },
    });
  try {
    if (!(await stat(workspace)).isDirectory()) throw notAFolder('is a file');
  } catch (error) {
    if (KgragError.isInstance(error)) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return;
    if (code === 'ENOTDIR') throw notAFolder('is inside a file');
    throw toEnvironmentError(error, { doing: 'opening the workspace', path: workspace }) ?? error;
  }
}

function unreadableConfigProblem(file: string, error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return `${file}: cannot be read: it does not exist — check the path`;
  if (code === 'EISDIR') return `${file}: cannot be read: it is a folder — pass the configuration file itself, e.g. ${join(file, configFileName)}`;
  const explained = toEnvironmentError(error, { doing: 'reading the configuration', path: file });
  if (explained !== undefined) return `${file}: cannot be read: ${explained.message} — ${explained.hint}`;
  return `${file}: cannot be read (${errorMessage(error)}) — check the path`;
}

/**
 * The YAML's value, or undefined with its problems added: syntax errors, and aliases that expand too far. The
 * parser is loaded only when a workspace has a configuration file.
 */
async function parseYaml(text: string, file: string, problems: string[]): Promise<unknown> {
  const { parseDocument } = await import('yaml');
  try {
    const document = parseDocument(text);
    for (const error of document.errors) problems.push(`${file}: ${error.message.split('\n')[0]} — fix the YAML syntax there`);
    return document.errors.length === 0 ? document.toJS() : undefined;
  } catch (error) {
    const message = errorMessage(error);
    problems.push(
      /alias count/i.test(message)
        ? `${file}: its YAML aliases (*name) expand to too many values (an alias bomb), so it was not read — write the values out instead of repeating aliases of aliases`
        : `${file}: cannot be parsed as YAML (${message.split('\n')[0]}) — fix the YAML syntax there`,
    );
    return undefined;
  }
}

/** The variable that set `path` or the key containing it (`llm.headers.X` ← KGRAG_LLM_HEADERS). */
function environmentSource(sources: ReadonlyMap<string, string>, path: readonly PropertyKey[]): string {
  for (let length = path.length; length > 0; length--) {
    const name = sources.get(path.slice(0, length).map(String).join('.'));
    if (name) return name;
  }
  return 'environment';
}

function describeIssue(issue: z.core.$ZodIssue, path: readonly PropertyKey[], known: readonly ConfigKey[]): string {
  if (issue.code === 'unrecognized_keys') {
    const parent = path.slice(0, -1).map(String);
    const siblings = [...new Set(known.filter((key) => parent.every((part, index) => key.path[index] === part)).map((key) => key.path[parent.length] ?? ''))];
    const suggestion = closestWord(String(path[path.length - 1]), siblings.filter(Boolean));
    return `unknown key${suggestion ? ` — did you mean "${suggestion}"?` : ''}`;
  }
  const key = known.find((candidate) => candidate.path.join('.') === path.map(String).join('.'));
  const expected = key?.enum && issue.code !== 'invalid_value' ? ` (one of: ${key.enum.map((value) => JSON.stringify(value)).join(', ')})` : '';
  const about = key?.description ? ` — ${key.description}` : '';
  return `${issue.message}${expected}${about}`;
}
