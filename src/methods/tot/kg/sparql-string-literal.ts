import { KgragError } from '../../../core/errors.js';

/** BCP 47 shape SPARQL's LANGTAG accepts: letters, then `-` and letters or digits. */
const LANGUAGE_TAG = /^[a-zA-Z]{1,8}(?:-[a-zA-Z0-9]{1,8})*$/;

const ESCAPES: Readonly<Record<string, string>> = {
  '\\': '\\\\',
  '"': '\\"',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
  '\b': '\\b',
  '\f': '\\f',
};

/**
 * Throws unless `language` is a language tag a SPARQL query can carry after `@`.
 * @throws KgragError `KG_INVALID_LANGUAGE`
 */
export function checkLanguageTag(language: string): void {
  if (LANGUAGE_TAG.test(language)) return;
  throw new KgragError(`"${language}" is not a language tag usable in a SPARQL query`, {
    code: 'KG_INVALID_LANGUAGE',
    category: 'config',
    hint: 'Use a BCP 47 tag such as "en" or "pt-br"',
    details: { language },
  });
}

/**
 * A SPARQL 1.1 string literal (`"…"`, grammar rule STRING_LITERAL2) holding exactly `text`, with an optional
 * language tag: `sparqlStringLiteral('Douglas "Adams"', 'en')` → `"Douglas \"Adams\""@en`.
 *
 * Every text that comes from a user or an LLM goes into a query only through this function. The grammar
 * forbids a raw `"`, `\`, line feed or carriage return inside the literal; all are escaped (ECHAR), and so are
 * tab, backspace and form feed for readable query logs. Escaping every backslash also keeps the text inert
 * where the spec lets an engine expand `\uXXXX` before parsing (§19.2): an escaped `\\u0022` can then at most
 * become the escaped quote `\"`, never the end of the literal.
 *
 * @throws KgragError `KG_INVALID_LANGUAGE` when `language` is not a language tag.
 */
export function sparqlStringLiteral(text: string, language?: string): string {
  if (language !== undefined) checkLanguageTag(language);
  const body = text.replace(/[\\"\n\r\t\b\f]/g, (character) => ESCAPES[character] as string);
  return language === undefined ? `"${body}"` : `"${body}"@${language}`;
}
