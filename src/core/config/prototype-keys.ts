/**
 * Property names that reach an object's prototype when a key path is assigned name by name
 * (`obj["__proto__"][k] = v` changes every object). No configuration key or method parameter has them,
 * so key paths from the user (`--set`, `-p`, YAML keys) are refused or kept inert when they hold one.
 */
const prototypeKeys: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

/** Whether `key` is one of the {@link prototypeKeys}. */
export function isPrototypeKey(key: string): boolean {
  return prototypeKeys.has(key);
}
