import type { KgragConfig } from '../core/config/config-schema.js';
import { parseMethodConfigs } from '../methods/method-config.js';
import type { AnyQueryMethod } from '../methods/query-method.js';
import { composePipeline, type PipelineContribution } from '../pipeline/compose-pipeline.js';
import type { PipelineStep, StepName } from '../pipeline/pipeline-step.js';
import { graphStepOf, sharedArtifacts, sharedSteps, sharedStepsOfImport } from '../pipeline/shared-steps.js';
import { registeredMethods } from './registered-methods.js';

/** Options of {@link indexPipeline}. */
export interface IndexPipelineOptions {
  config: KgragConfig;
  mode: 'fast' | 'standard';
  hasLlm: boolean;
  /** The methods the index is built for. @default every registered method */
  methods?: readonly AnyQueryMethod[];
}

/** What each method reads and adds, with its configuration, for steps built in `mode` over the graph of `graphStep`. */
async function methodContributions(config: KgragConfig, methods: readonly AnyQueryMethod[], mode: 'fast' | 'standard', graphStep: StepName): Promise<PipelineContribution[]> {
  const configs = parseMethodConfigs(config.methods, registeredMethods);
  const { knn } = config.index;
  return Promise.all(
    methods.map(async (method) => ({
      method: method.name,
      requires: method.indexRequires?.(configs.get(method.name)) ?? method.requires,
      steps: (await method.indexSteps?.({ config: configs.get(method.name), mode, graphStep, knn })) ?? [],
    })),
  );
}

/**
 * The pipeline of an index built for some methods: the shared steps they read (load, chunk, vectors, the
 * entity graph and its reports, triples) and the steps they contribute, in order.
 */
export async function indexPipeline(options: IndexPipelineOptions): Promise<PipelineStep[]> {
  const methods = options.methods ?? registeredMethods;
  const shared = sharedSteps(options.mode, options.config, options.hasLlm);
  return composePipeline(shared, await methodContributions(options.config, methods, options.mode, graphStepOf(options.mode)), sharedArtifacts(options.config));
}

/** Options of {@link importPipeline}. */
export interface ImportPipelineOptions {
  config: KgragConfig;
  hasLlm: boolean;
  /** The steps whose output the import supplies. */
  imported: ReadonlyMap<StepName, PipelineStep>;
}

/**
 * The pipeline of an imported index: the imported steps, then every step the registered methods read or add, built
 * LLM-free (fast mode's triples and keyword names) unless an LLM is configured, over the imported graph.
 */
export async function importPipeline(options: ImportPipelineOptions): Promise<PipelineStep[]> {
  const shared = sharedStepsOfImport(options.imported, options.hasLlm);
  return composePipeline(shared, await methodContributions(options.config, registeredMethods, options.hasLlm ? 'standard' : 'fast', 'summarize'), sharedArtifacts(options.config));
}
