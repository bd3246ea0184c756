import { errorMessage } from '../../../core/error-message.js';
import { startDeadline } from '../../../core/start-deadline.js';
import { shortenText } from '../../../text/shorten-text.js';
import { KgragError } from '../../../core/errors.js';
import { redactUrl } from '../../../core/redact-url.js';
import { abortableSleep } from '../../../providers/llm/abortable-sleep.js';
import type { Sleep } from '../../../providers/llm/abortable-sleep.js';
import { parseRetryAfter } from '../../../providers/llm/parse-retry-after.js';
import { backoffDelayMs, retryWithBackoff, type RetryPolicy } from '../../../providers/llm/retry-policy.js';
import { formatWikidataTime } from './format-wikidata-time.js';
import type { KgCallOptions, KgEdge, KgEdgeList, KgEntity, KgRelation, KgRelationList, KnowledgeGraph } from './knowledge-graph.js';
import { checkLanguageTag, sparqlStringLiteral } from './sparql-string-literal.js';

/*
 * Tree-of-Traversals' Wikidata interface (amazon-science/tree-of-traversals `wikidata/`) over any SPARQL 1.1 endpoint that
 * holds Wikidata's RDF vocabulary: query.wikidata.org, a local mirror, or oxigraph in the tests. The query
 * shapes follow amazon-science/tree-of-traversals `wikidata/relation_options.py` (relation options),
 * `wikidata/expand_edges.py` (edges) and `wikidata/inital_state.py` (candidate lookup), with these changes:
 * - labels come from rdfs:label / schema:description filtered by language instead of Wikidata's
 *   `SERVICE wikibase:label`, which plain SPARQL stores lack;
 * - candidates come from exact label and alias matches instead of the Wikipedia and wbsearchentities APIs,
 *   which are not SPARQL;
 * - every limit asks for one row more than it keeps, and a cut list says so (`truncated`, `limit`): the
 *   reference truncated silently;
 * - the "ID" filter on property labels is a configurable RegExp applied here, not a SPARQL substring test.
 * Text from users or the LLM reaches a query only through {@link sparqlStringLiteral}; ids only after
 * matching /^[QPL]\d+$/.
 */

/** Options of {@link createSparqlKnowledgeGraph}. Defaults follow the reference code where it has one. */
export interface SparqlKnowledgeGraphOptions {
  /** URL of a SPARQL 1.1 query endpoint with Wikidata's vocabulary, e.g. `https://query.wikidata.org/sparql`. */
  endpoint: string;
  /** {@link KnowledgeGraph.name}, the key other graphs use in `sameAs`. @default 'wikidata' */
  name?: string;
  /** Language of labels, descriptions, aliases and searched text (a BCP 47 tag). @default 'en' */
  language?: string;
  /**
   * User-Agent header. Wikimedia's policy asks clients to name themselves with a way to reach them; the
   * reference sent `tree-of-traversal sparql agent: <uuid4>`.
   * @default 'kgrag (https://github.com/kgrag) tree-of-traversals'
   */
  userAgent?: string;
  /** Most forward relation options returned (relation_options.py: `LIMIT 100`). @default 100 */
  relationLimit?: number;
  /**
   * Limits of the backward relation query (relation_options.py). `inner` caps the distinct properties the
   * endpoint looks for (`LIMIT 50` in the subquery) and keeps hubs such as Q5 "human" affordable; which
   * properties it finds first is up to the endpoint, as in the reference. `outer` caps the options returned
   * after filtering (`LIMIT 100`).
   * @default { inner: 50, outer: 100 }
   */
  backwardRelationLimit?: { inner?: number; outer?: number };
  /** Most edges returned per {@link KnowledgeGraph.getEdges} call (expand_edges.py: `LIMIT 100`). @default 100 */
  edgeLimit?: number;
  /** Default number of candidates of {@link KnowledgeGraph.searchEntities}. @default 10 */
  searchLimit?: number;
  /**
   * Retries after a failed request (network error, timeout, HTTP 429/500/502/503/504); expand_edges.py
   * tried 3 times. HTTP 400 and other client errors are never retried.
   * @default 3
   */
  maxRetries?: number;
  /**
   * Ceiling of the first retry's wait; it doubles every retry, the wait is drawn uniformly below it (full
   * jitter, as the LLM client does), and a longer `Retry-After` wins. @default 1000
   */
  retryBaseDelayMs?: number;
  /** Longest wait between attempts, also for a server's `Retry-After`. @default 30000 */
  maxRetryDelayMs?: number;
  /** Time one request may take before it is aborted and retried. @default 30000 */
  timeoutMs?: number;
  /** @default globalThis.fetch */
  fetch?: typeof globalThis.fetch;
  /** Waits between retries; tests inject one that returns at once. @default real timers */
  sleep?: Sleep;
  /** Uniform random numbers in [0, 1) for the jitter of retry waits. @default Math.random */
  rng?: () => number;
  /**
   * Relation options whose label matches are dropped (external identifiers, which are useless to traverse).
   * The reference dropped every label containing the substring "ID" (case-sensitive), which also drops
   * legitimate labels that merely contain those letters; the default matches "ID" as a word only. `null`
   * keeps every property.
   * @default /\bID\b/
   */
  excludeLabelPattern?: RegExp | null;
  /**
   * Other graph's name → property whose value is that graph's id for an entity, e.g.
   * `{ musicbrainz: 'P434' }`. Fills {@link KgEntity.sameAs} of returned entities and lets
   * {@link KnowledgeGraph.linkEntity} follow explicit links.
   */
  identifierProperties?: Readonly<Record<string, string>>;
}

/** One RDF term of a SPARQL JSON result (https://www.w3.org/TR/sparql11-results-json/). */
interface SparqlTerm {
  type: 'uri' | 'literal' | 'typed-literal' | 'bnode' | 'triple';
  value: string;
  datatype?: string;
  'xml:lang'?: string;
}

type Binding = Readonly<Record<string, SparqlTerm | undefined>>;

/** An attempt that failed in a way worth retrying (network error, timeout, HTTP 429/5xx). */
class RetryableFailure extends Error {
  readonly status: number | undefined;
  readonly retryAfterMs: number | undefined;

  constructor(
    readonly reason: string,
    readonly query: string,
    details: { status?: number; retryAfterMs?: number | undefined; cause?: unknown } = {},
  ) {
    super(reason, details.cause === undefined ? undefined : { cause: details.cause });
    this.status = details.status;
    this.retryAfterMs = details.retryAfterMs;
  }
}

const ENTITY_IRI = 'http://www.wikidata.org/entity/';
/** 1-based SUBSTR position of the digits in `http://www.wikidata.org/entity/Q123`. */
const ID_DIGITS_AT = ENTITY_IRI.length + 2;
const GENID_IRI = 'http://www.wikidata.org/.well-known/genid/';
const XSD = 'http://www.w3.org/2001/XMLSchema#';
const ENTITY_ID = /^[QPL]\d+$/;
const PROPERTY_ID = /^P\d+$/;
const RETRYABLE_STATUSES = new Set([429, 500, 502, 503, 504]);
/** inital_state.py skips search terms this long. */
const MAX_SEARCH_LENGTH = 300;
const NUMERIC_DATATYPES = new Set(['decimal', 'integer', 'double', 'float', 'int', 'long'].map((name) => XSD + name));

/** Declared in every query: WDQS predefines them, a plain store does not. */
const PREFIXES = `PREFIX wd: <http://www.wikidata.org/entity/>
PREFIX wdt: <http://www.wikidata.org/prop/direct/>
PREFIX p: <http://www.wikidata.org/prop/>
PREFIX ps: <http://www.wikidata.org/prop/statement/>
PREFIX psv: <http://www.wikidata.org/prop/statement/value/>
PREFIX wikibase: <http://wikiba.se/ontology#>
PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#>
PREFIX schema: <http://schema.org/>
PREFIX skos: <http://www.w3.org/2004/02/skos/core#>
PREFIX xsd: <http://www.w3.org/2001/XMLSchema#>
`;

/** Numeric order of a `wd:` IRI (`Q2` before `Q12`), as relation_options.py's `ORDER BY` does for properties. */
const numericOrder = (variable: string): string => `xsd:integer(SUBSTR(STR(${variable}), ${ID_DIGITS_AT}))`;

/** Orders ids by letter, then by number: `P19` < `P106`, `Q1` < `Q12` < `Q100`. */
function compareIds(a: string, b: string): number {
  return a.charCodeAt(0) - b.charCodeAt(0) || Number(a.slice(1)) - Number(b.slice(1)) || a.localeCompare(b);
}

/** `Q42` for `http://www.wikidata.org/entity/Q42`; `undefined` for any other IRI. */
function idOfIri(iri: string): string | undefined {
  if (!iri.startsWith(ENTITY_IRI)) return undefined;
  const id = iri.slice(ENTITY_IRI.length);
  return ENTITY_ID.test(id) ? id : undefined;
}

function invalidId(id: unknown, what: string, pattern: RegExp): KgragError {
  return new KgragError(`${JSON.stringify(id)} is not a Wikidata ${what} id (expected ${pattern === PROPERTY_ID ? 'P followed by digits, e.g. P31' : 'Q, P or L followed by digits, e.g. Q42'})`, {
    code: 'KG_INVALID_ID',
    category: 'input',
    hint: `Pass ids exactly as this graph returned them${pattern === PROPERTY_ID ? '; a backward relation is the same P id with direction "backward", not "~P31"' : ''}`,
    details: { id, what },
  });
}

/** Checks ids before they are written into a query as `wd:<id>`; returns them without duplicates. */
function checkIds(ids: readonly string[], what: string, pattern: RegExp = ENTITY_ID): string[] {
  for (const id of ids) if (typeof id !== 'string' || !pattern.test(id)) throw invalidId(id, what, pattern);
  return [...new Set(ids)];
}

function invalidOption(option: string, value: unknown, expected: string): KgragError {
  // An endpoint that fails to parse may still carry a key.
  const shown = typeof value === 'string' ? redactUrl(value) : value;
  return new KgragError(`SPARQL knowledge graph option ${option} is ${JSON.stringify(shown)}; expected ${expected}`, {
    code: 'KG_INVALID_OPTIONS',
    category: 'config',
    hint: `Set ${option} to ${expected}`,
    details: { option, value: shown },
  });
}

function positiveInteger(option: string, value: number | undefined, fallback: number, minimum = 1): number {
  const chosen = value ?? fallback;
  if (!Number.isInteger(chosen) || chosen < minimum) throw invalidOption(option, value, `an integer ≥ ${minimum}`);
  return chosen;
}

/** The text as given, then case variants (first letter upper, all lower, Title Case), without duplicates. */
function caseVariants(text: string): string[] {
  const lower = text.toLowerCase();
  const upperFirst = text.charAt(0).toUpperCase() + text.slice(1);
  const title = lower.replace(/(^|\s)(\S)/g, (_match, space: string, letter: string) => space + letter.toUpperCase());
  return [...new Set([text, upperFirst, lower, title])];
}

/** First non-empty lines of a server's error message, shortened for one error line. */
function firstLines(text: string): string {
  const lines = text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '')
    .slice(0, 3)
    .join(' | ');
  return shortenText(lines, 400) || '(empty body)';
}

/** Labels, descriptions and `sameAs` ids read from query rows, by entity id, in first-seen order. */
interface Described {
  label?: string;
  description?: string;
  sameAs: Map<string, string[]>;
}

/**
 * A {@link KnowledgeGraph} over a SPARQL 1.1 endpoint with Wikidata's vocabulary (`wd:`, `wdt:`, `p:`, `ps:`,
 * `psv:`, `wikibase:directClaim`, rdfs:label, schema:description, skos:altLabel). Requests are POSTed as
 * `application/x-www-form-urlencoded` and retried with exponential backoff on network errors, timeouts and
 * HTTP 429/500/502/503/504.
 *
 * @throws KgragError `KG_INVALID_OPTIONS` for an unusable option.
 */
export function createSparqlKnowledgeGraph(options: SparqlKnowledgeGraphOptions): KnowledgeGraph {
  const endpointUrl = URL.canParse(options.endpoint) ? new URL(options.endpoint) : undefined;
  if (endpointUrl === undefined || (endpointUrl.protocol !== 'http:' && endpointUrl.protocol !== 'https:')) {
    throw invalidOption('endpoint', options.endpoint, 'an http(s) URL such as https://query.wikidata.org/sparql');
  }
  // Credentials in the URL stay out of error messages.
  const endpointName = `${endpointUrl.origin}${endpointUrl.pathname}`;
  const name = options.name ?? 'wikidata';
  const language = options.language ?? 'en';
  // A tag that is not one fails here, as configuration, rather than on the first search.
  checkLanguageTag(language);
  const languageLiteral = sparqlStringLiteral(language);
  const userAgent = options.userAgent ?? 'kgrag (https://github.com/kgrag) tree-of-traversals';
  const relationLimit = positiveInteger('relationLimit', options.relationLimit, 100);
  const backwardInnerLimit = positiveInteger('backwardRelationLimit.inner', options.backwardRelationLimit?.inner, 50);
  const backwardOuterLimit = positiveInteger('backwardRelationLimit.outer', options.backwardRelationLimit?.outer, 100);
  const edgeLimit = positiveInteger('edgeLimit', options.edgeLimit, 100);
  const searchLimit = positiveInteger('searchLimit', options.searchLimit, 10);
  const maxRetries = positiveInteger('maxRetries', options.maxRetries, 3, 0);
  const retryBaseDelayMs = positiveInteger('retryBaseDelayMs', options.retryBaseDelayMs, 1000, 0);
  const maxRetryDelayMs = positiveInteger('maxRetryDelayMs', options.maxRetryDelayMs, 30_000, 0);
  const timeoutMs = positiveInteger('timeoutMs', options.timeoutMs, 30_000);
  const fetchImplementation = options.fetch ?? globalThis.fetch;
  const sleep = options.sleep ?? abortableSleep;
  const rng = options.rng ?? Math.random;
  // A global or sticky RegExp keeps state between test() calls; a copy without those flags does not.
  const excludeLabel = options.excludeLabelPattern === null ? undefined : new RegExp((options.excludeLabelPattern ?? /\bID\b/).source, (options.excludeLabelPattern?.flags ?? '').replace(/[gy]/g, ''));
  const identifierProperties = Object.entries(options.identifierProperties ?? {}).sort(([a], [b]) => a.localeCompare(b));
  for (const [graph, property] of identifierProperties) {
    if (!PROPERTY_ID.test(property)) throw invalidOption(`identifierProperties.${graph}`, property, 'a property id such as P434');
  }
  const identifierPropertyOf = new Map(identifierProperties);

  // ── HTTP ──────────────────────────────────────────────────────────────────────────────────────────────

  const endpointError = (message: string, hint: string, details: Record<string, unknown>, cause?: unknown): KgragError =>
    new KgragError(`SPARQL endpoint ${endpointName} ${message}`, { code: 'KG_ENDPOINT_ERROR', category: 'provider', hint, details: { endpoint: endpointName, ...details }, cause });

  const parseResults = (text: string, contentType: string | null, query: string): Binding[] => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (error) {
      throw endpointError(
        `answered with ${contentType ?? 'an unknown content type'} instead of SPARQL JSON results: ${firstLines(text)}`,
        'Check that the URL is the SPARQL query endpoint itself (for Wikidata https://query.wikidata.org/sparql), not a web page or proxy',
        { query },
        error,
      );
    }
    const bindings = (parsed as { results?: { bindings?: unknown } } | null)?.results?.bindings;
    if (!Array.isArray(bindings)) {
      throw endpointError('answered with JSON that is not a SPARQL SELECT result (no results.bindings)', 'Check that the URL is a SPARQL 1.1 query endpoint', { query });
    }
    return bindings as Binding[];
  };

  /** One request: its bindings, or a thrown {@link RetryableFailure} or error that no retry can fix. */
  const attempt = async (query: string, signal: AbortSignal | undefined): Promise<Binding[]> => {
    const deadline = startDeadline(timeoutMs, signal);
    try {
      const response = await fetchImplementation(options.endpoint, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          accept: 'application/sparql-results+json',
          'user-agent': userAgent,
        },
        body: new URLSearchParams({ query }).toString(),
        signal: deadline.signal,
      });
      const text = await response.text();
      if (response.ok) return parseResults(text, response.headers.get('content-type'), query);
      if (RETRYABLE_STATUSES.has(response.status)) throw new RetryableFailure(`HTTP ${response.status}: ${firstLines(text)}`, query, { status: response.status, retryAfterMs: parseRetryAfter(response.headers) });
      if (response.status === 400) {
        throw new KgragError(`SPARQL endpoint ${endpointName} rejected a query as malformed (HTTP 400): ${firstLines(text)}`, {
          code: 'KG_QUERY_REJECTED',
          category: 'internal',
          hint: 'kgrag builds every query itself, so this is a bug in kgrag or an endpoint without SPARQL 1.1 and Wikidata\'s vocabulary; check the endpoint, else report this error with its details.query',
          details: { endpoint: endpointName, status: 400, body: text.slice(0, 2000), query },
        });
      }
      throw endpointError(
        `answered HTTP ${response.status}: ${firstLines(text)}`,
        response.status === 401 || response.status === 403
          ? 'The endpoint refuses this client: check its access rules and the userAgent option (Wikimedia blocks clients without a descriptive User-Agent)'
          : 'Check the endpoint URL (for Wikidata https://query.wikidata.org/sparql)',
        { status: response.status, query },
      );
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      if (KgragError.isInstance(error) || error instanceof RetryableFailure) throw error;
      if (deadline.expired.aborted) throw new RetryableFailure(`no answer within ${timeoutMs} ms`, query, { cause: error });
      throw new RetryableFailure(`network error: ${errorMessage(error)}${error instanceof Error && error.cause !== undefined ? ` (${errorMessage(error.cause)})` : ''}`, query, { cause: error });
    } finally {
      deadline.clear();
    }
  };

  /** Retries retryable failures with backoff (the LLM client's, capped at maxRetryDelayMs); others are thrown at once. */
  const retryPolicy: RetryPolicy = {
    async afterFailure(error, attemptNumber, signal) {
      if (signal?.aborted) throw signal.reason;
      if (!(error instanceof RetryableFailure)) throw error;
      if (attemptNumber > maxRetries) {
        throw endpointError(
          `failed ${attemptNumber} time${attemptNumber === 1 ? '' : 's'}; last: ${error.reason}`,
          'Check that the endpoint is up and reachable from here; for a slow or busy endpoint raise timeoutMs or maxRetries',
          { attempts: attemptNumber, ...(error.status === undefined ? {} : { status: error.status }), query: error.query },
          error.cause,
        );
      }
      await sleep(Math.min(maxRetryDelayMs, backoffDelayMs(attemptNumber, { baseDelayMs: retryBaseDelayMs, maxDelayMs: maxRetryDelayMs, rng }, error.retryAfterMs)), signal);
    },
  };

  /** Runs a SELECT query, retrying network errors, timeouts and 429/5xx answers. */
  const select = (query: string, signal: AbortSignal | undefined): Promise<Binding[]> => retryWithBackoff(() => attempt(query, signal), retryPolicy, signal);

  // ── Reading rows ──────────────────────────────────────────────────────────────────────────────────────

  /** OPTIONAL label, description and identifier values of `variable`, as ?label, ?description, ?sameAs0… */
  const describeClauses = (variable: string, withSameAs: boolean): string => {
    const clauses = [
      `OPTIONAL { ${variable} rdfs:label ?label . FILTER(LANG(?label) = ${languageLiteral}) }`,
      `OPTIONAL { ${variable} schema:description ?description . FILTER(LANG(?description) = ${languageLiteral}) }`,
    ];
    if (withSameAs) identifierProperties.forEach(([, property], index) => clauses.push(`OPTIONAL { ${variable} wdt:${property} ?sameAs${index} . }`));
    return clauses.join('\n  ');
  };
  const sameAsVariables = (withSameAs: boolean): string => (withSameAs ? identifierProperties.map((_, index) => ` ?sameAs${index}`).join('') : '');

  const describeRows = (rows: readonly Binding[], variable: string): Map<string, Described> => {
    const described = new Map<string, Described>();
    for (const row of rows) {
      const term = row[variable];
      const id = term?.type === 'uri' ? idOfIri(term.value) : undefined;
      if (id === undefined) continue;
      let entry = described.get(id);
      if (!entry) {
        entry = { sameAs: new Map() };
        described.set(id, entry);
      }
      entry.label ??= row.label?.value;
      entry.description ??= row.description?.value;
      identifierProperties.forEach(([graph], index) => {
        const value = row[`sameAs${index}`]?.value;
        if (value === undefined) return;
        const values = entry.sameAs.get(graph) ?? [];
        if (!values.includes(value)) values.push(value);
        entry.sameAs.set(graph, values);
      });
    }
    return described;
  };

  const toEntity = (id: string, described: Described | undefined): KgEntity => {
    const entity: KgEntity = { id, label: described?.label ?? id, description: described?.description ?? '', graph: name };
    if (described && described.sameAs.size > 0) {
      // Several values of one identifier: the smallest, so the choice does not depend on row order.
      entity.sameAs = Object.fromEntries([...described.sameAs].map(([graph, values]) => [graph, [...values].sort()[0] as string]));
    }
    return entity;
  };

  /** An edge's far end as the reference shows it: an entity with a label, or a literal value. */
  const objectOf = (term: SparqlTerm, precision: SparqlTerm | undefined, label: string | undefined): { target: string } | { value: string } => {
    if (term.type === 'uri') {
      const id = idOfIri(term.value);
      if (id !== undefined) return label === undefined ? { value: id } : { target: id };
      return { value: term.value.startsWith(GENID_IRI) ? 'unknown value' : term.value };
    }
    if (term.type === 'bnode') return { value: 'unknown value' };
    if (term.datatype === `${XSD}dateTime` && precision !== undefined) return { value: formatWikidataTime(term.value, Number(precision.value)) };
    // Wikidata writes quantities with a sign ("+12"); the sign of a positive amount is noise to the LLM.
    if (term.datatype !== undefined && NUMERIC_DATATYPES.has(term.datatype)) return { value: term.value.replace(/^\+/, '') };
    return { value: term.value };
  };

  // ── Operations ────────────────────────────────────────────────────────────────────────────────────────

  const getEntities = async (ids: readonly string[], callOptions: KgCallOptions = {}): Promise<KgEntity[]> => {
    const unique = checkIds(ids, 'entity');
    if (unique.length === 0) return [];
    const query = `${PREFIXES}SELECT ?item ?label ?description${sameAsVariables(true)} WHERE {
  VALUES ?item { ${unique.map((id) => `wd:${id}`).join(' ')} }
  FILTER EXISTS { ?item ?anyPredicate ?anyObject }
  ${describeClauses('?item', true)}
}`;
    const described = describeRows(await select(query, callOptions.signal), 'item');
    return unique.filter((id) => described.has(id)).map((id) => toEntity(id, described.get(id)));
  };

  /**
   * The items that UNION `branches` match — each branch binds `?matchRank` — best rank first, then the
   * lowest id, with labels, descriptions and `sameAs`; only IRIs starting with `itemPrefix`.
   */
  const rankedItems = async (branches: readonly string[], itemPrefix: string, limit: number, signal: AbortSignal | undefined): Promise<KgEntity[]> => {
    const query = `${PREFIXES}SELECT ?item ?rank ?label ?description${sameAsVariables(true)} WHERE {
  {
    SELECT ?item (MIN(?matchRank) AS ?rank) WHERE {
      ${branches.join('\n      UNION\n      ')}
      FILTER(STRSTARTS(STR(?item), "${itemPrefix}"))
    }
    GROUP BY ?item
    ORDER BY ?rank ${numericOrder('?item')}
    LIMIT ${limit}
  }
  ${describeClauses('?item', true)}
}
ORDER BY ?rank ${numericOrder('?item')}`;
    // The rows come ranked and limited; describeRows keeps their first-seen order.
    const described = describeRows(await select(query, signal), 'item');
    return [...described].map(([id, entry]) => toEntity(id, entry));
  };

  const searchEntities = async (text: string, callOptions: KgCallOptions & { limit?: number } = {}): Promise<KgEntity[]> => {
    const limit = positiveInteger('limit', callOptions.limit, searchLimit);
    const term = text.trim().replace(/\s+/g, ' ');
    if (term === '' || term.length >= MAX_SEARCH_LENGTH) return [];
    // Rank: 0 label as given, 1 label in another case, 2 alias as given, 3 alias in another case. Each branch
    // has a constant object, so every engine answers it from its object index.
    const branches = caseVariants(term).flatMap((variant, index) => {
      const literal = sparqlStringLiteral(variant, language);
      const caseRank = index === 0 ? 0 : 1;
      return [`{ ?item rdfs:label ${literal} . BIND(${caseRank} AS ?matchRank) }`, `{ ?item skos:altLabel ${literal} . BIND(${2 + caseRank} AS ?matchRank) }`];
    });
    return rankedItems(branches, `${ENTITY_IRI}Q`, limit, callOptions.signal);
  };

  /** Distinct properties linking the entities (as subjects or objects), labelled, in numeric order. */
  const relationQuery = (ids: readonly string[], direction: KgRelation['direction']): string => {
    const values = ids.map((id) => `wd:${id}`).join(' ');
    const pattern =
      direction === 'forward'
        ? `VALUES ?subject { ${values} }\n      ?subject ?predicate ?object .`
        : `VALUES ?object { ${values} }\n      ?subject ?predicate ?object .`;
    return `${PREFIXES}SELECT ?property ?label WHERE {
  {
    SELECT DISTINCT ?property WHERE {
      ${pattern}
      ?property wikibase:directClaim ?predicate .
    }${direction === 'backward' ? `\n    LIMIT ${backwardInnerLimit + 1}` : ''}
  }
  OPTIONAL { ?property rdfs:label ?label . FILTER(LANG(?label) = ${languageLiteral}) }
}
ORDER BY ${numericOrder('?property')}`;
  };

  const readRelations = (rows: readonly Binding[], direction: KgRelation['direction']): KgRelation[] => {
    const labels = new Map<string, string>();
    for (const row of rows) {
      const id = row.property === undefined ? undefined : idOfIri(row.property.value);
      if (id === undefined || !PROPERTY_ID.test(id) || labels.has(id)) continue;
      labels.set(id, row.label?.value ?? id);
    }
    return [...labels.keys()].sort(compareIds).map((id) => ({ id, label: labels.get(id) as string, direction, graph: name }));
  };

  const keepLabel = (relation: KgRelation): boolean => excludeLabel === undefined || !excludeLabel.test(relation.label);

  const getRelations = async (entities: readonly string[], callOptions: KgCallOptions = {}): Promise<KgRelationList> => {
    const ids = checkIds(entities, 'entity');
    if (ids.length === 0) return { relations: [], truncated: false, warnings: [] };
    const [forwardRows, backward] = await Promise.all([
      select(relationQuery(ids, 'forward'), callOptions.signal),
      // relation_options.py leaves the backward list empty when its query fails; so do we, but say so.
      select(relationQuery(ids, 'backward'), callOptions.signal).then(
        (rows) => ({ rows }),
        (error: unknown) => {
          if (callOptions.signal?.aborted || !KgragError.isInstance(error)) throw error;
          return { error };
        },
      ),
    ]);
    const warnings: string[] = [];
    let limit: number | undefined;
    const cut = (at: number, warning: string): void => {
      limit ??= at;
      warnings.push(warning);
    };

    const forwardAll = readRelations(forwardRows, 'forward').filter(keepLabel);
    if (forwardAll.length > relationLimit) cut(relationLimit, `forward relations cut at relationLimit ${relationLimit} of ${forwardAll.length}`);
    const forward = forwardAll.slice(0, relationLimit);

    let backwardKept: KgRelation[] = [];
    if ('error' in backward) {
      warnings.push(`backward relations could not be fetched, so only forward relations are listed: ${backward.error.message}`);
    } else {
      let found = readRelations(backward.rows, 'backward');
      if (found.length > backwardInnerLimit) {
        cut(backwardInnerLimit, `backward relations: the endpoint had more than backwardRelationLimit.inner ${backwardInnerLimit} distinct properties; which ones it returned is up to the endpoint`);
        found = found.slice(0, backwardInnerLimit);
      }
      const filtered = found.filter(keepLabel);
      if (filtered.length > backwardOuterLimit) cut(backwardOuterLimit, `backward relations cut at backwardRelationLimit.outer ${backwardOuterLimit} of ${filtered.length}`);
      backwardKept = filtered.slice(0, backwardOuterLimit);
    }
    return {
      relations: [...forward, ...backwardKept],
      truncated: warnings.length > 0,
      ...(limit === undefined ? {} : { limit }),
      warnings,
    };
  };

  const getEdges = async (entities: readonly string[], relation: KgRelation, callOptions: KgCallOptions = {}): Promise<KgEdgeList> => {
    const ids = checkIds(entities, 'entity');
    const [property] = checkIds([relation.id], 'property', PROPERTY_ID) as [string];
    if (relation.direction !== 'forward' && relation.direction !== 'backward') {
      throw new KgragError(`Relation direction ${JSON.stringify(relation.direction)} is neither "forward" nor "backward"`, {
        code: 'KG_INVALID_ID',
        category: 'input',
        hint: 'Pass a relation exactly as getRelations returned it',
        details: { relation },
      });
    }
    if (ids.length === 0) return { edges: [], entities: [], truncated: false };
    const values = ids.map((id) => `wd:${id}`).join(' ');
    // expand_edges.py: the wdt: triple keeps truthy (best-rank) statements only; psv: gives the time precision.
    const pattern =
      relation.direction === 'forward'
        ? `?source p:${property} ?statement .
  ?statement ps:${property} ?object .
  ?source wdt:${property} ?object .
  OPTIONAL { ?statement psv:${property} ?fullValue . ?fullValue wikibase:timePrecision ?precision . }`
        : `?statement ps:${property} ?source .
  ?object p:${property} ?statement .
  ?object wdt:${property} ?source .`;
    const query = `${PREFIXES}SELECT DISTINCT ?source ?object${relation.direction === 'forward' ? ' ?precision' : ''} ?label ?description WHERE {
  VALUES ?source { ${values} }
  ${pattern}
  ${describeClauses('?object', false)}
}
ORDER BY ${numericOrder('?source')} STR(?source) IF(isIRI(?object), 0, 1) ${numericOrder('?object')} STR(?object)${relation.direction === 'forward' ? ' ?precision' : ''}
LIMIT ${edgeLimit + 1}`;
    const rows = await select(query, callOptions.signal);
    const truncated = rows.length > edgeLimit;
    const kept = rows.slice(0, edgeLimit);

    const edgeRelation: KgRelation = { id: property, label: relation.label, direction: relation.direction, graph: name };
    const edges: KgEdge[] = [];
    const seen = new Set<string>();
    const reached: string[] = [];
    for (const row of kept) {
      const source = row.source === undefined ? undefined : idOfIri(row.source.value);
      if (source === undefined || row.object === undefined) continue;
      const end = objectOf(row.object, row.precision, row.label?.value);
      const key = `${source}\u0000${'target' in end ? `t:${end.target}` : `v:${end.value}`}`;
      if (seen.has(key)) continue;
      seen.add(key);
      edges.push({ source, relation: edgeRelation, ...end });
      if ('target' in end && !reached.includes(end.target)) reached.push(end.target);
    }
    const described = describeRows(kept, 'object');
    let entityList = reached.map((id) => toEntity(id, described.get(id)));
    if (identifierProperties.length > 0 && reached.length > 0) {
      // Identifier values can multiply rows, so they are fetched apart and cannot eat into the edge limit.
      const withLinks = new Map((await getEntities(reached, callOptions)).map((entity) => [entity.id, entity]));
      entityList = entityList.map((entity) => withLinks.get(entity.id) ?? entity);
    }
    return { edges, entities: entityList, truncated, ...(truncated ? { limit: edgeLimit } : {}) };
  };

  /** The entity holding one of the identifier values, the earliest link first, then the lowest id. */
  const findByIdentifier = async (links: ReadonlyArray<{ property: string; value: string }>, signal: AbortSignal | undefined): Promise<KgEntity | undefined> => {
    const branches = links.map(({ property, value }, index) => `{ ?item wdt:${property} ${sparqlStringLiteral(value)} . BIND(${index} AS ?matchRank) }`);
    const [first] = await rankedItems(branches, ENTITY_IRI, 1, signal);
    return first;
  };

  const linkEntity = async (entity: KgEntity, callOptions: KgCallOptions = {}): Promise<KgEntity | undefined> => {
    const explicit = entity.graph === name ? entity.id : entity.sameAs?.[name];
    if (explicit !== undefined) {
      const [found] = await getEntities([explicit], callOptions);
      if (found) return found;
    }
    const links: Array<{ property: string; value: string }> = [];
    const ownProperty = identifierPropertyOf.get(entity.graph);
    if (ownProperty !== undefined) links.push({ property: ownProperty, value: entity.id });
    for (const [graph, value] of Object.entries(entity.sameAs ?? {}).sort(([a], [b]) => a.localeCompare(b))) {
      const property = identifierPropertyOf.get(graph);
      if (property !== undefined && graph !== entity.graph) links.push({ property, value });
    }
    if (links.length > 0) {
      const found = await findByIdentifier(links, callOptions.signal);
      if (found) return found;
    }
    const [byLabel] = await searchEntities(entity.label, { ...callOptions, limit: 1 });
    return byLabel;
  };

  return {
    name,
    searchEntities,
    getEntities,
    getRelations,
    getEdges,
    linkEntity,
  };
}
