import { readFileSync } from 'node:fs';

/** Read once: the package's version does not change while it runs. */
let version: string | undefined;

/** The version of the kgrag package, from its package.json (two folders up from this module in src/ and in dist/). */
export function packageVersion(): string {
  version ??= (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
  return version;
}
