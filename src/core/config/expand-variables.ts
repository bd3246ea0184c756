import { isPrototypeKey } from './prototype-keys.js';

/** A problem found while expanding, with the key path it concerns. */
export interface ExpansionProblem {
  path: string[];
  message: string;
}

/** `${NAME}`, `$${` (a literal `${`), or a `${` that is neither: what {@link expandString} looks for. */
const reference = /\$\$\{|\$\{([^}]*)(\}?)/g;
const variableName = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** One string with its `${NAME}` references replaced; a reference that cannot be replaced is a problem. */
function expandString(text: string, path: string[], env: Record<string, string | undefined>, problems: ExpansionProblem[]): string {
  if (!text.includes('${')) return text;
  return text.replace(reference, (match, name: string | undefined, closed: string) => {
    if (match === '$${') return '${';
    if (closed !== '}' || name === undefined || !variableName.test(name)) {
      const shown = match.length > 40 ? `${match.slice(0, 40)}…` : match;
      problems.push({ path, message: `"${shown}" does not name an environment variable: write \${NAME} with letters, digits and _ (and the closing }), or $\${ for a literal \${` });
      return match;
    }
    const value = env[name];
    // An empty variable counts as unset, as it does for KGRAG_* variables: an empty key or URL is never what was meant.
    if (value === undefined || value === '') {
      problems.push({ path, message: `\${${name}}: the environment variable ${name} ${value === undefined ? 'is not set' : 'is empty'} — set it, or write the value itself` });
      return match;
    }
    return value;
  });
}

/**
 * Replaces `${NAME}` in every string value of a parsed `kgrag.yaml` (mapping keys are left alone) by the variable's
 * value, so that a file can name secrets it does not hold (`apiKeys: ["${KGRAG_SERVER_KEY}"]`); `$${` writes a
 * literal `${`. An unset or empty variable, or a `${` that names none, is a problem at the key's path rather than
 * text kept as it is: a placeholder taken literally would become the key. Values are replaced in place.
 */
export function expandVariables(values: unknown, env: Record<string, string | undefined>, path: string[] = [], problems: ExpansionProblem[] = []): ExpansionProblem[] {
  if (Array.isArray(values)) {
    values.forEach((value, index) => {
      if (typeof value === 'string') values[index] = expandString(value, [...path, String(index)], env, problems);
      else expandVariables(value, env, [...path, String(index)], problems);
    });
  } else if (typeof values === 'object' && values !== null) {
    const record = values as Record<string, unknown>;
    for (const key of Object.keys(record)) {
      const value = record[key];
      // Set as an own property: a key named __proto__ stays inert data (validation reports it as unknown).
      if (typeof value === 'string') Object.defineProperty(record, key, { value: expandString(value, [...path, key], env, problems), enumerable: true, writable: true, configurable: true });
      else if (!isPrototypeKey(key)) expandVariables(value, env, [...path, key], problems);
    }
  }
  return problems;
}
