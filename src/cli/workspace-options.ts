import { resolve } from 'node:path';
import type { KgragConfigInput } from '../core/config/config-schema.js';
import { mergeConfig } from '../core/config/load-config.js';
import { isPrototypeKey } from '../core/config/prototype-keys.js';
import { KgragError } from '../core/errors.js';
import type { KgragOptions } from '../api/create-kgrag.js';
import type { CliIo } from './cli-io.js';

/** Options every command accepts. */
export interface GlobalOptions {
  workspace?: string;
  config?: string;
  set?: string[];
  quiet?: boolean;
}

/**
 * Parses `--set llm.model=gpt-4.1-mini` pairs (or `-p` method parameters) into a nested object, values as
 * JSON when they parse. `flag` names the option in messages: one spelling, or the spelling the user typed
 * for each pair. A pair without `=`, or a key path with an empty part or a part such as `__proto__` (which
 * would reach an object's prototype instead of a key), is refused with a usage error naming the flag, the
 * pair and the form to write.
 */
export function parseSetOptions(pairs: readonly string[], flag: string | ((pair: string) => string) = '--set'): KgragConfigInput {
  let result: Record<string, unknown> = {};
  const spelling = typeof flag === 'string' ? () => flag : flag;
  for (const pair of pairs) {
    const flag = spelling(pair);
    const example =
      flag === '--set'
        ? 'write e.g. --set llm.model=gpt-4.1-mini or --set chunking.size=600; `kgrag init` lists every configuration key'
        : `write ${flag} name=value, one parameter of the method per ${flag}`;
    const separator = pair.indexOf('=');
    if (separator <= 0) {
      throw new KgragError(`${flag} "${pair}" is not of the form key=value`, { code: 'CLI_BAD_SET', category: 'input', hint: example });
    }
    const key = pair.slice(0, separator);
    const path = key.split('.');
    const bad = path.find((part) => part === '' || isPrototypeKey(part));
    if (bad !== undefined) {
      throw new KgragError(
        bad === ''
          ? `${flag} "${pair}": the key "${key}" has an empty part`
          : `${flag} "${pair}": "${bad}" cannot be part of a key (it names an object's prototype, not a setting), so the key "${key}" was refused`,
        { code: 'CLI_BAD_SET', category: 'input', hint: example, details: { key } },
      );
    }
    const raw = pair.slice(separator + 1);
    let value: unknown = raw;
    try {
      value = JSON.parse(raw);
    } catch {
      value = raw;
    }
    const nested = path.reduceRight<unknown>((inner, key) => ({ [key]: inner }), value) as Record<string, unknown>;
    result = mergeConfig(result, nested);
  }
  return result as KgragConfigInput;
}

/** The workspace options of a command: `--workspace`, else KGRAG_WORKSPACE, else the current directory. */
export function workspaceOptions(global: GlobalOptions, io: CliIo, extra: KgragConfigInput = {}): KgragOptions {
  const workspace = resolve(io.cwd, global.workspace ?? io.env.KGRAG_WORKSPACE ?? '.');
  const overrides = mergeConfig(parseSetOptions(global.set ?? []) as Record<string, unknown>, extra as Record<string, unknown>);
  return {
    workspace,
    env: io.env,
    config: overrides as KgragConfigInput,
    ...(global.config === undefined ? {} : { configFile: resolve(io.cwd, global.config) }),
  };
}
