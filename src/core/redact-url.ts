/** What replaces a secret. */
const redacted = '***';

/**
 * Query parameters whose values are kept: they name an API version, never a credential, and Azure's
 * `api-version` is what a user needs to see when a request fails.
 */
const publicParameters = new Set(['api-version', 'version']);

/** An absolute URL with an authority (`scheme://…`), up to the next whitespace, quote or bracket. */
const urlPattern = /\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>`()[\]{}]+/gi;

/**
 * Removes the secrets a URL may carry before it reaches a message, log, trace or `--json` output: the user
 * name and password (`https://user:pass@host` → `https://***@host`), every query value but the API version
 * (`?key=…`, `?api-key=…`, `?token=…` → `?key=***`), and the fragment. Works on a bare URL and on any text
 * that contains URLs (an error message quoting one), and on URLs too malformed to parse.
 */
export function redactUrl(text: string): string {
  return text.replace(urlPattern, (match) => {
    // Punctuation that ends a sentence is not part of the URL before it.
    const trailing = /[.,;:!?]+$/.exec(match)?.[0] ?? '';
    return `${redactOne(match.slice(0, match.length - trailing.length))}${trailing}`;
  });
}

function redactOne(url: string): string {
  const authorityStart = url.indexOf('//') + 2;
  const rest = url.slice(authorityStart);
  const authorityEnd = firstIndexOf(rest, ['/', '?', '#']);
  const authority = rest.slice(0, authorityEnd);
  const at = authority.lastIndexOf('@');
  const host = at === -1 ? authority : `${redacted}@${authority.slice(at + 1)}`;
  const afterAuthority = rest.slice(authorityEnd);
  const hashAt = afterAuthority.indexOf('#');
  const beforeHash = hashAt === -1 ? afterAuthority : afterAuthority.slice(0, hashAt);
  const queryAt = beforeHash.indexOf('?');
  const path = queryAt === -1 ? beforeHash : beforeHash.slice(0, queryAt);
  const query = queryAt === -1 ? '' : `?${redactQuery(beforeHash.slice(queryAt + 1))}`;
  const fragment = hashAt === -1 ? '' : `#${redacted}`;
  return `${url.slice(0, authorityStart)}${host}${path}${query}${fragment}`;
}

function redactQuery(query: string): string {
  return query
    .split('&')
    .map((parameter) => {
      const equals = parameter.indexOf('=');
      const name = equals === -1 ? parameter : parameter.slice(0, equals);
      if (equals === -1) return parameter === '' ? '' : redacted;
      return publicParameters.has(safeDecode(name).toLowerCase()) ? parameter : `${name}=${redacted}`;
    })
    .join('&');
}

function firstIndexOf(text: string, characters: readonly string[]): number {
  let first = text.length;
  for (const character of characters) {
    const index = text.indexOf(character);
    if (index !== -1 && index < first) first = index;
  }
  return first;
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
