import { KgragError } from '../../core/errors.js';
import type { KnowledgeGraph } from './kg/knowledge-graph.js';
import type { KnowledgeGraphConfig } from './kg/knowledge-graphs-config.js';
import { createMultiKnowledgeGraph } from './kg/multi-knowledge-graph.js';
import { createSparqlKnowledgeGraph } from './kg/sparql-knowledge-graph.js';
import type { MethodContext } from '../query-method.js';
import { typedRelationGraph } from './typed-relation-graph.js';
import { createWorkspaceKnowledgeGraph, indexGraphName } from './workspace-knowledge-graph.js';

/** The index steps the walk over `index` reads: `communities` runs in both modes once the entity graph is final. */
export const indexGraphSteps = ['chunk', 'communities'] as const;

/**
 * The knowledge graph `tot` walks for its `graphs` parameter: each name is a graph instance given to the method
 * (`createTotMethod({ knowledgeGraphs })`), else `index` — the workspace graph — or an entry of
 * `methods.tot.knowledgeGraphs`. Several names are linked into one graph (`createMultiKnowledgeGraph`). Graphs built
 * here are shared by the queries of a workspace through `memo` (the index graph until the next index run).
 */
export async function resolveKnowledgeGraphs(
  context: MethodContext,
  names: readonly string[],
  configured: Readonly<Record<string, KnowledgeGraphConfig>>,
  instances: Readonly<Record<string, KnowledgeGraph>> = {},
): Promise<KnowledgeGraph> {
  const graphs: KnowledgeGraph[] = [];
  for (const name of [...new Set(names)]) {
    const given = instances[name];
    if (given) {
      graphs.push(given);
      continue;
    }
    if (name === indexGraphName) {
      await context.requireSteps(indexGraphSteps, 'or walk only configured graphs (methods.tot.graphs, e.g. ["wikidata"])');
      graphs.push(await context.memo(`tot:kg:${indexGraphName}`, async () => createWorkspaceKnowledgeGraph(context.store, { name: indexGraphName, load: () => typedRelationGraph(context) })));
      continue;
    }
    const settings = configured[name];
    if (!settings) {
      const known = [indexGraphName, ...Object.keys(configured), ...Object.keys(instances)];
      throw new KgragError(`unknown knowledge graph "${name}" in methods.tot.graphs`, {
        code: 'QUERY_UNKNOWN_GRAPH',
        category: 'config',
        hint: `use one of: ${[...new Set(known)].join(', ')} — or add it to methods.tot.knowledgeGraphs in kgrag.yaml, e.g. methods: { tot: { knowledgeGraphs: { ${name}: { type: sparql, endpoint: https://… } } } }`,
        details: { graph: name, known },
      });
    }
    // The configuration's keys are the SPARQL graph's option names.
    const { type: _sparql, ...sparqlOptions } = settings;
    graphs.push(await context.memo(`tot:kg:${name}`, async () => createSparqlKnowledgeGraph({ name, ...sparqlOptions })));
  }
  if (graphs.length === 1) return graphs[0] as KnowledgeGraph;
  return createMultiKnowledgeGraph(graphs);
}
