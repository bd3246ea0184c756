import { createCallMeter } from '../shared/call-meter.js';
import { contextOnlyUnsupported } from '../shared/context-only-unsupported.js';
import { requireLlm } from '../shared/require-llm.js';
import { methodSpecificationVersion, type MethodAnswer, type QueryMethod, type Retrieval } from '../query-method.js';
import { workspaceEvidence } from './workspace-evidence.js';
import { initializeTraversal } from './initialize-traversal.js';
import { memoizedKnowledgeGraph } from './memoized-knowledge-graph.js';
import { indexGraphSteps, resolveKnowledgeGraphs } from './resolve-knowledge-graphs.js';
import { indexGraphName } from './workspace-knowledge-graph.js';
import { totConfig, totConfigOnlySettings, type TotConfig } from './config.js';
import type { KnowledgeGraph } from './kg/knowledge-graph.js';
import { totPromptTemplates } from './tot-prompts.js';
import { totSubgraph } from './tot-subgraph.js';
import type { TraversalContext } from './traversal-context.js';
import { TraversalState } from './traversal-state.js';
import { runTreeSearch, type TreeSearchResult } from './tree-search.js';
import { visitedGraph } from './visited-graph.js';

/** What `answer` needs from the search `retrieve` ran. */
interface TotRun {
  search: TreeSearchResult;
  threshold: number;
  usage: { inputTokens: number; outputTokens: number };
  llmCalls: number;
}

/** The label shown with the answer: its value, or why there is none. */
function answerLabel(run: TotRun): string {
  const { search } = run;
  if (search.answer === undefined) return `no answer found (Tree-of-Traversals stopped: ${search.stopReason}, ${search.expansions} expansions)`;
  const value = (search.value ?? 0).toFixed(2);
  return `Tree-of-Traversals answer, value ${value}${(search.value ?? 0) >= run.threshold ? '' : ` (below the threshold ${run.threshold})`}`;
}

/** Options of {@link createTotMethod}. */
export interface TotMethodOptions {
  /**
   * Knowledge-graph instances by name (an in-memory graph, a graph of your own): `graphs` may name them, and one
   * named like an entry of `methods.tot.knowledgeGraphs`, or `index`, replaces it.
   */
  knowledgeGraphs?: Readonly<Record<string, KnowledgeGraph>>;
}

/**
 * `tot`: Tree-of-Traversals (Markowitz et al., ACL 2024; amazon-science/tree-of-traversals) over the workspace
 * graph (`index`), configured SPARQL graphs, or several linked together (parameter `graphs`). The LLM
 * names the question's entities and picks their graph entities; then a best-first tree search over
 * traversal states — each node THINKs, EXPANDs (select entities, then one relation, whose edges join the
 * local subgraph) or ANSWERs, scored by the LLM as a value function — runs until an answer scores at least
 * `answerThreshold` or `maxExpansions` nodes were expanded. The answer is the best-valued answer in the
 * tree; the retrieval holds the passages behind the visited index entities and the explored subgraph; the
 * trace step `tot-search` holds the whole tree. Needs an LLM; `sampleBreadth: 1` is Chain-of-Traversals.
 *
 * `requires` is empty because the graphs are a parameter: with `index` among them, the graph steps are
 * checked when the graph is resolved, and an index built for tot builds them (`indexRequires`). Graph instances in
 * `options` are walked as well as the configured ones (a library user's in-memory graphs).
 */
export function createTotMethod(options: TotMethodOptions = {}): QueryMethod<TotConfig, TotRun> {
  const instances = options.knowledgeGraphs ?? {};
  return {
    specificationVersion: methodSpecificationVersion,
    name: 'tot',
    description: 'Tree-of-Traversals: an LLM tree search over a knowledge graph (the index, SPARQL endpoints, or both), expanding entities along chosen relations until a confident answer (needs an LLM)',
    variants: [],
    config: totConfig,
    configOnly: totConfigOnlySettings,
    ranking: { kind: 'native' },
    needsLlm: true,
    prompts: totPromptTemplates,
    topKParam: 'maxChunks',
    requires: [],
    indexRequires: (config) => (config.graphs.includes(indexGraphName) ? indexGraphSteps : []),

    async retrieve(context, question, params): Promise<Retrieval<TotRun>> {
      if (context.contextOnly) throw contextOnlyUnsupported('tot', 'its subgraph is what the LLM explores in a tree search', 'use kgp or ppr --context-only for passages of the index');
      const llm = requireLlm(context, 'the tot method needs an LLM to walk the knowledge graph', 'use another --method (kgp, ppr, local)');
      const kg = memoizedKnowledgeGraph(await resolveKnowledgeGraphs(context, params.graphs, params.knowledgeGraphs, instances));
      const meter = createCallMeter(llm);
      const traversal: TraversalContext = {
        question,
        kg,
        model: (purpose) => meter.model(purpose),
        prompts: context.prompts,
        sampleBreadth: params.sampleBreadth,
        maxDepth: params.maxDepth,
        maxExpansions: params.maxExpansions,
        answerThreshold: params.answerThreshold,
        temperature: params.temperature,
        seed: params.seed ?? context.config.seed,
        candidates: params.candidates,
        ...(context.signal === undefined ? {} : { signal: context.signal }),
        onExpansion: ({ expansions, nodes, best }) =>
          context.progress({
            step: 'tot-search',
            done: expansions,
            total: params.maxExpansions,
            message: `expansion ${expansions}/${params.maxExpansions} · ${nodes} nodes · ${meter.calls} LLM calls · ${best ? `best answer "${best.answer}" (value ${best.value.toFixed(2)})` : 'no answer yet'}`,
          }),
      };
      const initial = await context.trace.time(
        'tot-initialize',
        () => initializeTraversal(traversal),
        (result) => ({ graph: kg.name, attempts: result.attempts, mentions: result.mentions, entities: result.entities.map((entity) => ({ id: entity.id, label: entity.label, graph: entity.graph })) }),
      );
      context.progress({
        step: 'tot-initialize',
        done: 1,
        total: 1,
        message:
          initial.entities.length > 0
            ? `start from ${initial.entities.map((entity) => `${entity.label} (${entity.id})`).join(', ')}`
            : `no entity of the question was found in graph "${kg.name}" (mentions: ${initial.mentions.map((mention) => mention.label).join(', ') || 'none'}); searching from an empty subgraph`,
      });
      const search = await context.trace.time(
        'tot-search',
        () => runTreeSearch(traversal, TraversalState.initial(initial.entities)),
        (result) => ({ ...result.trace }),
      );
      const visited = visitedGraph(search);
      const evidence = await context.trace.time(
        'tot-evidence',
        () => workspaceEvidence(context, visited, params.maxChunks),
        (result) => ({ chunks: result.chunks.length, entities: result.entities.length, relations: result.relations.length }),
      );
      return {
        chunks: evidence.chunks,
        entities: evidence.entities,
        relations: evidence.relations,
        subgraph: totSubgraph(question, visited),
        // The search is done once, here, and answered from in `answer`.
        state: { search, threshold: params.answerThreshold, usage: meter.usage, llmCalls: meter.paidCalls },
      };
    },

    async answer(context, _question, retrieval, _params, options): Promise<MethodAnswer> {
      const run = retrieval.state;
      const { search } = run;
      // The context is the local subgraph the answer was given from (or the root's when there is none).
      const contextText = (search.answerNode ?? search.root).state.kgText();
      const contextTokens = context.tokenizer.count(contextText);
      const made = { usage: run.usage, llmCalls: run.llmCalls, unknownReferences: 0 };
      // "No answer found" is a label, not the text: as text, evaluation's EM-in would find "no" in it.
      const text = search.answer ?? '';
      options.onText?.(text);
      return { answer: { text, kind: 'generated', label: answerLabel(run) }, citations: [], contextText, contextTokens, ...made };
    },
  };
}

/** Tree-of-Traversals with the graphs of the configuration only (`methods.tot.knowledgeGraphs` and `index`). */
export const totMethod = createTotMethod();
