/** Shortest key accepted beyond loopback (as `server.apiKeys` requires of every key). */
export const minApiKeyLength = 16;

/** Words of placeholders that documentation and templates put where a key belongs. */
const placeholderWords = /change.?me|your.?(api.?)?key|replace.?me|placeholder|example|insert.?(api.?)?key|key.?goes.?here|todo|fixme|x{6,}|\*{6,}/i;

/**
 * Why `key` is no key to put on a network, or undefined when it may be one: shorter than 16 characters, a variable
 * reference that was not expanded (`${NAME}`, `$NAME`, `$(…)`), a variable's name, a bracketed placeholder (`<…>`,
 * `{{…}}`, `%…%`), a placeholder word (`changeme`, `your-key`, `xxxxxx`, …), or one short pattern repeated
 * (`aaaa…`, `abab…`). The reason never quotes the key.
 */
export function weakApiKeyReason(key: string): string | undefined {
  if (key.length < minApiKeyLength) return `is shorter than ${minApiKeyLength} characters`;
  if (/\$\{|\$\(|^\$[A-Za-z_]/.test(key)) return 'looks like an environment variable that was not replaced by its value (${…} or $NAME)';
  if (/^[A-Z][A-Z0-9]*(_[A-Z0-9]+)+$/.test(key)) return 'looks like the name of an environment variable rather than its value';
  if (/^<.*>$|^\{\{.*\}\}$|^%.*%$|^\[.*\]$/.test(key)) return 'looks like a placeholder (<…>, {{…}})';
  if (placeholderWords.test(key)) return 'looks like a placeholder ("changeme", "your-key", "xxxxxx", …)';
  if (/^(.{1,8}?)\1+$/.test(key)) return 'is one short pattern repeated';
  return undefined;
}
