import { KgragError } from '../core/errors.js';
import type { AnyQueryMethod } from './query-method.js';

/** `methods.<name>` as written: the method's settings and parameters, and optionally its default `variant`. */
export type ConfiguredMethod = Readonly<Record<string, unknown>>;

/**
 * Each registered method's configuration from `methods.<name>` of the workspace configuration, validated by the
 * method's own schema: one error listing every problem with its key path when any is invalid, or when a
 * section names no registered method. `variant` is the one key every method accepts (its default variant).
 */
export function parseMethodConfigs(configured: Readonly<Record<string, ConfiguredMethod | undefined>>, methods: readonly AnyQueryMethod[]): Map<string, Record<string, unknown>> {
  const problems: string[] = [];
  const parsed = new Map<string, Record<string, unknown>>();
  const names = new Set(methods.map((method) => method.name));
  for (const name of Object.keys(configured)) {
    if (!names.has(name)) problems.push(`methods.${name}: no method is called "${name}" (methods: ${[...names].join(', ')})`);
  }
  for (const method of methods) {
    const { variant, ...values } = configured[method.name] ?? {};
    if (variant !== undefined && (typeof variant !== 'string' || !method.variants.includes(variant))) {
      problems.push(`methods.${method.name}.variant: ${JSON.stringify(variant)} is not a variant of ${method.name}${method.variants.length > 0 ? ` (${method.variants.join(', ')})` : ' (it has none)'}`);
    }
    const result = method.config.safeParse(values);
    if (result.success) parsed.set(method.name, result.data as Record<string, unknown>);
    else for (const issue of result.error.issues) problems.push(`methods.${method.name}.${issue.path.join('.') || '(all)'}: ${issue.message}`);
  }
  if (problems.length > 0) {
    throw new KgragError(`invalid method configuration: ${problems.join('; ')}`, {
      code: 'CONFIG_INVALID_METHOD',
      category: 'config',
      hint: 'fix these keys under methods: in kgrag.yaml (or --set); `kgrag init` writes every key with its default',
      details: { problems },
    });
  }
  return parsed;
}
