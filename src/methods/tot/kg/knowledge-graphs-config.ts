import { z } from 'zod';

/** How one external knowledge graph is reached: a SPARQL endpoint with Wikidata's vocabulary. */
export const knowledgeGraphConfigSchema = z
  .object({
    type: z.literal('sparql').describe('Kind of graph: "sparql" (a SPARQL endpoint with the Wikidata vocabulary)'),
    endpoint: z.url({ error: 'expected an http(s) URL such as https://query.wikidata.org/sparql' }).describe('SPARQL endpoint URL, e.g. https://query.wikidata.org/sparql'),
    language: z.string().min(1).optional().describe('Language of labels, descriptions and searches (default en)'),
    userAgent: z.string().min(1).optional().describe('User-Agent sent to the endpoint (Wikimedia asks clients to name themselves and a contact)'),
    relationLimit: z.number().int().positive().max(10000).optional().describe('Most forward relation options per expansion, marked truncated when cut (reference and default: 100)'),
    edgeLimit: z.number().int().positive().max(10000).optional().describe('Most edges per expansion, marked truncated when cut (reference and default: 100)'),
    maxRetries: z.number().int().min(0).max(20).optional().describe('Retries of failed requests (default 3)'),
    timeoutMs: z.number().int().positive().optional().describe('Per-request timeout (default 30000)'),
    identifierProperties: z
      .record(z.string(), z.string().regex(/^P\d+$/, { error: 'expected a property id such as P434' }))
      .optional()
      .describe('Other graph name → property holding that graph\'s id for an entity, e.g. {"musicbrainz": "P434"}: fills sameAs so tot links entities across graphs by id before label'),
  })
  .strict();

/** One entry of `methods.tot.knowledgeGraphs`. */
export type KnowledgeGraphConfig = z.output<typeof knowledgeGraphConfigSchema>;

/** `methods.tot.knowledgeGraphs`: external graphs by name, which `methods.tot.graphs` may name. */
export const knowledgeGraphsConfigSchema = z
  .record(z.string(), knowledgeGraphConfigSchema)
  .default({})
  // Names are checked here rather than by the record's key schema, whose failures read "Invalid key in record".
  .superRefine((graphs, context) => {
    for (const name of Object.keys(graphs)) {
      if (name === 'index') context.addIssue({ code: 'custom', path: [name], message: '"index" is the workspace graph and cannot be configured; name this graph differently, e.g. "wikidata"' });
      else if (!/^[a-z][a-z0-9_-]*$/.test(name)) context.addIssue({ code: 'custom', path: [name], message: `graph name "${name}" must be lowercase letters, digits, "_" and "-", starting with a letter (e.g. "wikidata")` });
    }
  })
  .describe('External knowledge graphs by name, which graphs may name, e.g. {"wikidata": {"type": "sparql", "endpoint": "https://query.wikidata.org/sparql"}}; set in kgrag.yaml only');
