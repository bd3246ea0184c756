import { z } from 'zod';

/*
 * The one configuration schema. Sources, lowest precedence first: these defaults < `kgrag.yaml` in
 * the workspace < `KGRAG_*` environment variables < CLI flags (see `loadConfig`). Descriptions are
 * shown by `kgrag init` in the commented template and in validation errors, so they are written for users.
 */

const positiveInt = () => z.number().int().positive();

/**
 * An OpenAI-compatible endpoint. A user name and password inside it cannot be sent (fetch refuses such
 * URLs) and would be printed wherever the URL is, so they are refused here, naming where a key belongs.
 */
const endpointUrl = (section: 'llm' | 'embeddings') =>
  z.url().refine((url) => !URL.canParse(url) || (new URL(url).username === '' && new URL(url).password === ''), {
    message: `must not contain a user name or password; put the key in ${section}.apiKey${section === 'llm' ? ' (or KGRAG_LLM_API_KEY)' : ''}, or other credentials in llm.headers`,
  });

export const llmConfigSchema = z
  .object({
    provider: z
      .enum(['auto', 'none', 'openai-compatible'])
      .default('auto')
      .describe('"auto" uses an OpenAI-compatible server when baseURL or apiKey is set, else no LLM (extractive answers, fast indexing)'),
    baseURL: endpointUrl('llm')
      .optional()
      .describe('OpenAI-compatible endpoint, e.g. https://api.openai.com/v1, http://localhost:11434/v1 (Ollama), http://localhost:8000/v1 (vLLM)'),
    apiKey: z.string().optional().describe('API key; prefer the KGRAG_LLM_API_KEY or OPENAI_API_KEY environment variable'),
    model: z.string().min(1).default('gpt-4.1-mini').describe('Model id sent to the server'),
    temperature: z.number().min(0).max(2).default(0).describe('Sampling temperature; 0 makes indexing reproducible with most servers'),
    maxOutputTokens: positiveInt().optional().describe('Upper bound on reply tokens per call'),
    structuredOutputs: z
      .enum(['auto', 'json_schema', 'json_object'])
      .default('auto')
      .describe('How JSON replies are requested; "auto" tries json_schema and falls back to json_object if the server rejects it'),
    concurrency: positiveInt().max(512).default(8).describe('Requests in flight at once'),
    requestsPerMinute: z.number().int().min(0).default(0).describe('Rate limit on requests (0 = unlimited)'),
    tokensPerMinute: z.number().int().min(0).default(0).describe('Rate limit on prompt + completion tokens (0 = unlimited)'),
    maxRetries: z.number().int().min(0).max(20).default(6).describe('Retries of 429, 5xx, timeouts and truncated streams'),
    retryBaseDelayMs: z.number().int().min(0).default(1000).describe('First retry delay; doubles each retry, with jitter; a retry-after header wins'),
    retryMaxDelayMs: z.number().int().min(0).default(60000).describe('Longest wait between retries'),
    timeoutMs: positiveInt().default(180000).describe('Per-call timeout'),
    maxReplyBytes: positiveInt()
      .min(1024)
      .default(32 * 1024 * 1024)
      .describe(
        'Largest reply accepted from the server, in bytes (a streamed reply counted as sent, about 200 bytes per token); a longer one is aborted and fails as LLM_REPLY_TOO_LARGE, the model\'s fault, not retried',
      ),
    cache: z.boolean().default(true).describe('Cache responses in the workspace, keyed by model, parameters and messages'),
    pricePerMillionTokens: z
      .object({
        input: z.number().min(0).describe('USD per million prompt tokens'),
        output: z.number().min(0).describe('USD per million completion tokens'),
      })
      .strict()
      .optional()
      .describe('Price used for cost estimates; known OpenAI models have built-in prices'),
    prices: z
      .record(
        z.string().min(1),
        z
          .object({
            input: z.number().min(0).describe('USD per million prompt tokens'),
            output: z.number().min(0).describe('USD per million completion tokens'),
          })
          .strict(),
      )
      // An empty `prices:` in kgrag.yaml (what uncommenting the template line gives) means no extra prices.
      .nullable()
      .optional()
      .describe(
        'Prices by model id in USD per million tokens, e.g. {"my-model": {"input": 0.2, "output": 0.8}}, merged over the built-in OpenAI prices; used by usage reports and `kgrag index --dry-run`',
      ),
    headers: z.record(z.string(), z.string()).optional().describe('Extra HTTP headers sent with every request'),
  })
  .strict();

export const embeddingsConfigSchema = z
  .object({
    provider: z
      .enum(['local', 'openai-compatible'])
      .default('local')
      .describe('"local" needs no model or network (hashed n-gram features with corpus IDF); or any OpenAI-compatible /v1/embeddings'),
    model: z.string().min(1).default('text-embedding-3-small').describe('Embedding model id (openai-compatible only)'),
    baseURL: endpointUrl('embeddings').optional().describe('Embeddings endpoint; defaults to llm.baseURL'),
    apiKey: z.string().optional().describe('API key; defaults to llm.apiKey'),
    dimensions: positiveInt().max(8192).optional().describe('Vector length: local default 1024; for remote models, requested from the server if set'),
    batchSize: positiveInt().max(2048).default(64).describe('Texts per request'),
    concurrency: positiveInt().max(64).default(4).describe('Requests in flight at once'),
    queryPrefix: z.string().default('').describe('Prepended to queries (e.g. "query: " for e5, "search_query: " for nomic)'),
    documentPrefix: z.string().default('').describe('Prepended to indexed texts (e.g. "passage: " for e5)'),
    maxReplyBytes: positiveInt()
      .min(1024)
      .optional()
      .describe(
        'Largest embeddings response accepted, in bytes; a longer one is aborted and fails as LLM_REPLY_TOO_LARGE (default: 1 MiB plus 32 bytes per dimension for each text of a batch, dimensions or 8192)',
      ),
  })
  .strict();

export const chunkingConfigSchema = z
  .object({
    strategy: z
      .enum(['tokens', 'sentences', 'separators'])
      .default('tokens')
      .describe(
        '"tokens": sliding token window (GraphRAG); "sentences": whole sentences packed up to size; "separators": AutoKG\'s recursive splitter on blank lines, lines, ". " and spaces (AutoKG used size 200; no overlap)',
      ),
    size: positiveInt().max(100000).default(1200).describe('Chunk size in tokens (GraphRAG 1200; its paper used 600)'),
    overlap: z.number().int().min(0).default(100).describe('Tokens shared by consecutive chunks'),
  })
  .strict()
  .refine((chunking) => chunking.overlap < chunking.size, {
    message: 'overlap must be smaller than size',
    path: ['overlap'],
  });

export const inputConfigSchema = z
  .object({
    include: z
      .array(z.string())
      // Office formats kgrag cannot read are included so that each gets a warning instead of vanishing.
      .default(['**/*.{txt,md,markdown,html,htm,pdf,docx,json,jsonl,ndjson,csv,tsv,doc,rtf,odt,xls,xlsx,ods,ppt,pptx,odp,epub}'])
      .describe('Glob patterns of files to index inside folders (office formats kgrag cannot read are listed so that each gets a warning)'),
    exclude: z
      .array(z.string())
      .default(['**/node_modules/**', '**/.git/**', '**/.*/**'])
      .describe('Glob patterns to skip inside folders'),
    textField: z.string().optional().describe('JSON/JSONL/CSV field holding the text (default: text, content or body)'),
    titleField: z.string().optional().describe('Field holding the title (default: title or name)'),
    idField: z.string().optional().describe('Field holding a stable record id (default: id, else the record position)'),
    maxFileMegabytes: z
      .number()
      .positive()
      .default(64)
      .describe("Files larger than this are skipped with a warning: a 49 MB file is indexed with every method in under 2 GB; for larger ones raise this and Node's heap (NODE_OPTIONS=--max-old-space-size=<MB>)"),
  })
  .strict();

export const nlpExtractConfigSchema = z
  .object({
    minNodeFrequency: positiveInt().default(2).describe('Drop common noun phrases found in fewer chunks (GraphRAG fast: 2)'),
    minProperNameFrequency: positiveInt()
      .default(1)
      .describe('Drop proper names found in fewer chunks; 1 keeps a name mentioned once, so it is an entity as soon as its document is added (GraphRAG fast: 2, as for phrases)'),
    minPhraseRepeats: positiveInt()
      .default(2)
      .describe('A common noun phrase counts in a chunk only when the chunk mentions it this often: a passage about it repeats it, one that merely uses it does not ("same time", "film director"); 1 counts every mention (GraphRAG fast)'),
    mergeShortNames: z
      .boolean()
      .default(false)
      .describe('A one-word name used after a longer name ending in it, in the same chunk, is that name ("Charles Babbage" … "Babbage"); `kgrag entities merges` lists and undoes the merges. Off by default: about 3 in 4 of the merges drawn on 2Wiki were right'),
    titleAliases: z
      .boolean()
      .default(true)
      .describe('A document\'s title that its text never writes is another name of the name the text opens with and defines, when the two share a word ("Sam Davis" for "Samuel George Davis MM (…) was …"); `kgrag entities merges` lists and undoes these merges'),
    keepApart: z
      .array(z.string().min(1))
      .default([])
      .describe('Names never merged into another: one-word names kept from a longer one, titles kept from the name their document opens with (`kgrag entities merges --undo <name>` adds to it)'),
    minNodeDegree: z
      .number()
      .int()
      .min(0)
      .default(1)
      .describe('Drop phrases with fewer co-occurring neighbours, counted before pruning (GraphRAG fast: 1); phrases left with no edge are always dropped'),
    minEdgeWeightPercentile: z.number().min(0).max(100).default(40).describe('Drop edges below this percentile of PMI weight (GraphRAG fast: 40)'),
    removeEgoNodes: z.boolean().default(true).describe('Drop the single highest-degree node, usually a corpus-wide hub (GraphRAG fast: true)'),
    maxPhrasesPerChunk: positiveInt().default(64).describe('Keep the most frequent phrases of a chunk when it has more, bounding pairs per chunk'),
    typing: z
      .enum(['auto', 'heuristic', 'compromise', 'none'])
      .default('auto')
      .describe(
        'Entity types: "heuristic" = cue words (Street, University, Festival, Dr.); "compromise" = also its NER on every other proper noun (slow on big corpora); "auto" = compromise on the 2,000 most frequent only',
      ),
  })
  .strict();

export const llmExtractConfigSchema = z
  .object({
    entityTypes: z
      .array(z.string().min(1))
      .min(1)
      .default(['organization', 'person', 'geo', 'event'])
      .describe('Entity types the LLM extracts (GraphRAG default: organization, person, geo, event)'),
    maxGleanings: z.number().int().min(0).max(5).default(1).describe('Extra "you missed some" turns per chunk (GraphRAG: 1)'),
    format: z
      .enum(['json', 'tuples'])
      .default('json')
      .describe('"json": structured output validated by schema; "tuples": GraphRAG\'s ("entity"<|>…)## format, parsed tolerantly'),
  })
  .strict();

export const claimsConfigSchema = z
  .object({
    enabled: z.boolean().default(false).describe('Extract claims (GraphRAG covariates); costs about one extra call per chunk'),
    description: z
      .string()
      .min(1)
      .default('Any claims or facts that could be relevant to information discovery.')
      .describe('What counts as a claim'),
    maxGleanings: z.number().int().min(0).max(5).default(1).describe('Extra gleaning turns per chunk (their output is used, unlike GraphRAG)'),
  })
  .strict();

export const triplesExtractConfigSchema = z
  .object({
    extractor: z
      .enum(['auto', 'nlp', 'llm'])
      .default('auto')
      .describe(
        'OpenIE triples for the ppr and relations methods: "llm" = HippoRAG\'s two LLM calls per chunk (entities, then triples); "nlp" = part-of-speech patterns, no LLM; "auto" = llm in standard mode with an LLM configured, else nlp. Chunks covered by `kgrag import openie` use the imported triples',
      ),
  })
  .strict();

export const resolutionConfigSchema = z
  .object({
    enabled: z.boolean().default(true).describe('Merge entities that name the same thing ("Sherlock Holmes", "Holmes")'),
    nameSimilarity: z.number().min(0).max(1).default(0.75).describe('Name similarity that makes two entities a candidate pair'),
    embeddingSimilarity: z.number().min(0).max(1).default(0.9).describe('Cosine of "title: description" embeddings that makes a candidate pair'),
    maxGroupSize: z.number().int().min(2).max(50).default(10).describe('Candidates confirmed together in one LLM call'),
  })
  .strict();

export const summariesConfigSchema = z
  .object({
    maxInputTokens: positiveInt().default(4000).describe('Description tokens per summarization call; longer lists are summarized in rounds (GraphRAG: 4000)'),
    maxWords: positiveInt().default(500).describe('Length limit of a summary, in words (GraphRAG max_length: 500)'),
  })
  .strict();

export const communitiesConfigSchema = z
  .object({
    maxClusterSize: positiveInt().default(10).describe('Communities larger than this are split into a deeper level (GraphRAG: 10)'),
    resolution: z.number().positive().default(1).describe('Modularity resolution; higher gives smaller communities'),
    seed: z.number().int().min(0).default(0xdeadbeef).describe('Random seed of the clustering (GraphRAG: 0xDEADBEEF)'),
    incremental: z
      .boolean()
      .default(true)
      .describe(
        'After documents are added or changed, update the previous communities instead of clustering anew: Leiden starts from the previous partition and revisits only the entities whose edges changed, and sub-communities of an unchanged community are kept. A first build is the same either way',
      ),
    betweenRefreshes: z
      .enum(['place', 'recluster'])
      .default('place')
      .describe(
        "How an update between refreshes of the corpus statistics changes the communities. 'place': every entity keeps its communities, and a new entity joins, level by level, the community it adds most modularity to (the partition is kept like the other corpus statistics, and the next refresh re-clusters). 'recluster': every community with a member whose edges changed is clustered again from the previous partition, as at a refresh (a 1 % addition to 2Wiki redoes about 1,600 clusterings)",
      ),
    moveMargin: z
      .number()
      .min(0)
      .max(1)
      .default(0.2)
      .describe(
        'In an update, an entity leaves the community it shares with others only when the move gains more than this share of its edge weight; smaller moves are churn rather than quality (0 = every improving move, as a fresh clustering makes)',
      ),
    maxModularityLoss: z
      .number()
      .min(0)
      .max(1)
      .default(0.005)
      .describe(
        'An update checks its level 0 against a fresh clustering of the whole graph and uses the fresh one when the update\'s modularity is lower by more than this share',
      ),
    maxSplitModularityLoss: z
      .number()
      .min(0)
      .max(1)
      .default(0.05)
      .describe(
        'The same check for each community an update splits again at a deeper level, against a fresh split of it: looser, as fresh splits of a small community differ by more than 0.5 % with the seed alone',
      ),
    keepIdJaccard: z
      .number()
      .gt(0)
      .max(1)
      .default(0.5)
      .describe(
        'A community keeps the id (and title) of a previous community of its level when their member sets have Jaccard similarity at least this (one-to-one, best match first; 1 = only identical members); other communities get new ids. Reports are regenerated only when what they are written from changed, whatever the id',
      ),
  })
  .strict();

export const reportsConfigSchema = z
  .object({
    maxFindings: positiveInt().max(20).default(5).describe('Findings per extractive report'),
    maxInputTokens: positiveInt().default(8000).describe('Context budget per report (GraphRAG: 8000)'),
    maxWords: positiveInt().default(2000).describe('Length limit of an LLM report, in words (GraphRAG: 2000)'),
  })
  .strict();

export const queryConfigSchema = z
  .object({
    method: z.string().default('basic').describe('Default method of `kgrag query`'),
    topK: positiveInt().max(1000).default(10).describe('Passages retrieved by default (GraphRAG basic search: 10)'),
    maxContextTokens: positiveInt().default(12000).describe('Token budget of the context given to the LLM (GraphRAG: 12000)'),
    responseType: z.string().default('Multiple Paragraphs').describe('Answer shape asked of the LLM'),
  })
  .strict();

/**
 * An API key limited to some workspaces and a role (`kgrag keys create` prints one). The key itself (`key`) or, so that
 * the file need not hold it, its SHA-256 (`keyHash: sha256:<hex>`). Roles: `read` asks (queries, chat, MCP reads,
 * listings), `write` also adds and deletes documents and cancels jobs, `admin` also creates workspaces.
 */
export const scopedApiKeySchema = z
  .object({
    key: z.string().min(16, { error: 'an API key needs at least 16 characters; generate one with `kgrag keys create`' }).optional(),
    keyHash: z
      .string()
      .regex(/^sha256:[0-9a-f]{64}$/, { error: 'keyHash is "sha256:" and 64 lower-case hex digits, as `kgrag keys hash` prints it' })
      .optional(),
    name: z.string().regex(/^[\w.-]{1,64}$/, { error: 'a key name is 1–64 letters, digits, ".", "_" or "-"' }).optional().describe('What logs and rate limits call the key (default key-<n>)'),
    workspaces: z.array(z.string().min(1)).min(1).default(['*']).describe('Workspaces the key may use ("*": all)'),
    role: z.enum(['read', 'write', 'admin']).default('admin').describe('read: ask; write: also add and delete documents; admin: also create workspaces'),
  })
  .strict()
  .refine((entry) => (entry.key === undefined) !== (entry.keyHash === undefined), { error: 'give an API key entry either key or keyHash, not both or neither' });

/** `kgrag serve`: where it listens, who may call it, and how much one caller may ask of it. */
export const serverConfigSchema = z
  .object({
    host: z.string().min(1).default('127.0.0.1').describe('Address `kgrag serve` binds; a non-loopback address needs API keys (real ones: no placeholder)'),
    port: z.number().int().min(0).max(65535).default(8080).describe('Port of `kgrag serve` (0: any free port, printed at start)'),
    apiKeys: z
      .array(z.union([z.string().min(16, { error: 'an API key needs at least 16 characters; generate one with `openssl rand -hex 32`' }), scopedApiKeySchema]))
      .default([])
      .describe('Bearer keys accepted by `kgrag serve` (also KGRAG_API_KEYS, comma-separated; in kgrag.yaml write "${NAME}" to name a variable); none: only this machine (loopback names, same-origin writes)'),
    corsOrigins: z.array(z.string().min(1)).default([]).describe('Browser origins allowed to call the API (CORS), e.g. ["https://app.example.com"]; none: same origin only'),
    metricsPublic: z
      .boolean()
      .default(false)
      .describe('Serve /metrics without an API key (for a scraper inside the cluster). Off: the series name workspaces, models and routes, and with keys a scrape sends one like any caller'),
    maxJsonBytes: positiveInt().default(1_048_576).describe('Largest JSON request body, in bytes'),
    maxUploadBytes: positiveInt().default(52_428_800).describe('Largest multipart upload (all files of one request), in bytes'),
    requestsPerMinute: positiveInt().default(6000).describe('Requests one API key (or, without keys, one client address) may make per minute; more get 429 with Retry-After'),
    maxConcurrentQueries: positiveInt().default(64).describe('Queries answered at once per key (or client address); more get 429 with Retry-After'),
    queryTimeoutMs: positiveInt().default(120_000).describe('Deadline of one query or chat request; a query past it is cancelled with 504'),
    shutdownGraceMs: positiveInt().default(10_000).describe('On SIGTERM: how long running queries may take to finish, and a running index job to stop, before the server exits'),
    indexJobs: z
      .enum(['here', 'workers'])
      .default('here')
      .describe(
        "Where this server's index jobs run: here (in processes the server starts), or workers (only `kgrag worker --role indexer` processes run them, and this server only queues and reads them: its queries never wait on index work). workers needs the postgres store, whose jobs every server shares",
      ),
    jobLeaseSeconds: positiveInt()
      .min(2)
      .default(30)
      .describe("How long a job a process runs stays that process's without a renewal (renewed every third of it; postgres store). A job whose process died is taken over by another after this long"),
    jobMemoryMb: positiveInt()
      .optional()
      .describe("Heap of each index job's process, in MB (Node's --max-old-space-size; default: Node's, about a quarter of the machine's memory); a job past it fails alone, the server keeps serving"),
  })
  .strict();

/** Keys that moved, with their new place: an old file is told where, rather than that the key is unknown. */
export const movedConfigKeys: ReadonlyMap<string, string> = new Map([['knowledgeGraphs', 'methods.tot.knowledgeGraphs']]);

export const configSchema = z
  .object({
    llm: llmConfigSchema.prefault({}),
    embeddings: embeddingsConfigSchema.prefault({}),
    tokenizer: z
      .object({
        encoding: z
          .enum(['o200k_base', 'cl100k_base', 'p50k_base', 'r50k_base'])
          .default('o200k_base')
          .describe('Tokenizer used for chunking and token budgets'),
      })
      .strict()
      .prefault({}),
    input: inputConfigSchema.prefault({}),
    chunking: chunkingConfigSchema.prefault({}),
    pipeline: z
      .object({
        methods: z
          .union([z.literal('all'), z.array(z.string().min(1)).min(1)])
          .default('all')
          .describe(
            'Methods the index is built for: "all", or a list such as [basic, local, global, drift] (GraphRAG only); the pipeline is the union of their steps, and the steps of methods built earlier are kept up to date',
          ),
      })
      .strict()
      .prefault({}),
    index: z
      .object({
        mode: z
          .enum(['fast', 'standard'])
          .default('fast')
          .describe('"fast": NLP noun-phrase graph, no LLM (GraphRAG FastGraphRAG); "standard": LLM extraction'),
        refreshShare: z
          .number()
          .min(0)
          .max(1)
          .default(0.2)
          .describe(
            'Corpus-wide statistics (the local embedder\'s document frequencies, the noun-phrase graph\'s PMI totals and threshold) are kept between refreshes, and an update computes only what it touches with them, until more than this share of the chunks fitted on has been added, changed or removed since; then the run refits them (an index equal to a fresh build). 0 refits on every run; `kgrag index --refresh` refits now',
          ),
        knn: z
          .object({
            exactUpTo: positiveInt()
              .optional()
              .describe(
                "Chunk kNN graphs (kgp's passage graph, autokg's chunk graph) are exact up to this many chunks and built by NN-descent above, which finds 0.83–0.87 of the exact neighbours at about 100,000 chunks (default 50,000); set it above the chunk count to keep them exact at a cost that grows as the square of the chunks",
              ),
          })
          .strict()
          .prefault({}),
      })
      .strict()
      .prefault({}),
    extract: z
      .object({
        nlp: nlpExtractConfigSchema.prefault({}),
        llm: llmExtractConfigSchema.prefault({}),
        claims: claimsConfigSchema.prefault({}),
        triples: triplesExtractConfigSchema.prefault({}),
      })
      .strict()
      .prefault({}),
    resolution: resolutionConfigSchema.prefault({}),
    summaries: summariesConfigSchema.prefault({}),
    communities: communitiesConfigSchema.prefault({}),
    reports: reportsConfigSchema.prefault({}),
    query: queryConfigSchema.prefault({}),
    server: serverConfigSchema.prefault({}),
    plugins: z
      .array(z.string().min(1))
      .default([])
      .describe(
        'Method plugins loaded when the workspace opens: module paths relative to the workspace (./my-method.js) or package names, each exporting a kgrag-method-v1 method (default export, or `method` / `methods`); served like the built-in methods',
      ),
    methods: z
      .record(z.string(), z.record(z.string(), z.unknown()))
      .default({})
      .describe('Per-method settings and parameters, e.g. methods.basic.variant: bm25, methods.autokg.clusters: 20; each method\'s own schema validates them when the configuration is loaded'),
    prompts: z
      .object({
        directory: z.string().default('prompts').describe('Workspace folder of prompt overrides (`kgrag init` writes them); a file there replaces the built-in prompt of the same name'),
      })
      .strict()
      .prefault({}),
    store: z
      .object({
        backend: z
          .string()
          .regex(/^[a-z][a-z0-9-]*$/, 'must be a backend name such as sqlite or postgres')
          .default('sqlite')
          .describe('Storage backend: "sqlite" (one SQLite file per workspace), "postgres" (a database shared by many workspaces and processes), or one given to createKgrag({ stores })'),
        path: z.string().default('kgrag.db').describe('SQLite database file, relative to the workspace'),
        url: z.string().optional().describe('Postgres connection URL (postgres://user:password@host:5432/database); also KGRAG_DATABASE_URL, which selects the postgres backend'),
        schema: z.string().min(1).default('kgrag').describe("Postgres schema that holds kgrag's tables, created when missing"),
        workspace: z.string().min(1).optional().describe("Name of this workspace in the Postgres database (default: the workspace folder's name); processes that share a name share the index"),
        poolSize: z.number().int().min(1).max(100).default(8).describe('Postgres connections this process opens at most'),
        exactVectorSearch: z.boolean().default(false).describe("Postgres: answer nearest-neighbour searches by an exact scan instead of pgvector's approximate HNSW index"),
        postingsCacheMb: z
          .number()
          .min(0)
          .max(65536)
          .default(64)
          .describe('Postgres: MB of BM25 postings each open index keeps in memory between queries (least recently used dropped first; 0 reads them every time)'),
      })
      .strict()
      .superRefine((store, issues) => {
        if (store.backend === 'postgres' && !store.url) {
          issues.addIssue({ code: 'custom', path: ['url'], message: 'the postgres backend needs store.url (or KGRAG_DATABASE_URL), e.g. postgres://kgrag:secret@localhost:5432/kgrag' });
        }
      })
      .prefault({}),
    workers: z
      .object({
        local: z.number().int().min(0).max(64).default(0).describe('Worker processes `kgrag index` starts beside itself to make the per-chunk and per-community LLM calls (extraction, claims, summaries, reports) in parallel; postgres backend only'),
        remote: z.boolean().default(false).describe('Also hand that work to `kgrag worker` processes on other machines sharing the database; postgres backend only'),
        shardsPerRound: z.number().int().min(1).max(10000).default(16).describe("Shards a step's LLM work is split into for the workers: more shards balance better, fewer cost less queue traffic"),
        leaseSeconds: z.number().int().min(2).max(86400).default(60).describe("Seconds a shard stays a worker's without a renewal; a working worker renews it every third of it, so a killed worker's shard goes to another after this long"),
      })
      .strict()
      .prefault({}),
    seed: z.number().int().min(0).default(42).describe('Seed of every other random choice'),
  })
  .strict();

/** What a method declares that types its section of the configuration, `methods.<name>` (a `QueryMethod` is one). */
export interface MethodSectionDeclaration {
  readonly name: string;
  readonly variants: readonly string[];
  readonly config: z.ZodType;
}

/**
 * `methods.<name>` for a list of methods whose names are literal types: each method's settings and parameters, all
 * optional (the method's schema fills in its defaults), and its default `variant`.
 */
export type MethodSections<Methods extends readonly MethodSectionDeclaration[]> = {
  [Method in Methods[number] as Method['name']]?: Partial<z.output<Method['config']>> & { variant?: Method['variants'][number] };
};

/** `methods.<name>` when the methods' names are not known to the compiler: any method's section, or none. */
type AnyMethodSections = Record<string, Record<string, unknown> | undefined>;

/** Whether a method list's names are known to the compiler (a list typed `AnyQueryMethod[]` has only `string`). */
type NamesKnown<Methods extends readonly MethodSectionDeclaration[]> = string extends Methods[number]['name'] ? false : true;

/**
 * The configuration as a user writes it (everything optional). With the workspace's methods as the type argument
 * (`KgragConfigInput<typeof builtInMethods>`), `methods.<name>` is typed by each method's schema.
 */
export type KgragConfigInput<Methods extends readonly MethodSectionDeclaration[] = readonly MethodSectionDeclaration[]> =
  Omit<z.input<typeof configSchema>, 'methods'> & { methods?: NamesKnown<Methods> extends true ? MethodSections<Methods> : AnyMethodSections };

/**
 * The resolved configuration every layer receives. With the workspace's methods as the type argument
 * (`KgragConfig<typeof builtInMethods>`, what `createKgrag` returns by default), `methods.<name>` is typed by each
 * method's schema; the sections hold what was written, and each method's schema, parsed once when the workspace
 * opens, fills in the defaults.
 */
export type KgragConfig<Methods extends readonly MethodSectionDeclaration[] = readonly MethodSectionDeclaration[]> =
  Omit<z.output<typeof configSchema>, 'methods'> & { methods: NamesKnown<Methods> extends true ? MethodSections<Methods> : AnyMethodSections };
export type LlmConfig = KgragConfig['llm'];
export type EmbeddingsConfig = KgragConfig['embeddings'];
export type ChunkingConfig = KgragConfig['chunking'];
export type InputConfig = KgragConfig['input'];
export type NlpExtractConfig = KgragConfig['extract']['nlp'];
export type LlmExtractConfig = KgragConfig['extract']['llm'];
export type ClaimsConfig = KgragConfig['extract']['claims'];
export type TriplesExtractConfig = KgragConfig['extract']['triples'];
export type ResolutionConfig = KgragConfig['resolution'];
export type SummariesConfig = KgragConfig['summaries'];
export type CommunitiesConfig = KgragConfig['communities'];
export type ReportsConfig = KgragConfig['reports'];
export type QueryConfig = KgragConfig['query'];
export type ServerConfig = KgragConfig['server'];
