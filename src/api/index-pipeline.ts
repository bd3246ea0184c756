import type { KgragConfig } from '../core/config/config-schema.js';
import { parseMethodConfigs } from '../methods/method-config.js';
import type { AnyQueryMethod } from '../methods/query-method.js';
import { composePipeline } from '../pipeline/compose-pipeline.js';
import type { PipelineStep } from '../pipeline/pipeline-step.js';
import { graphStepOf, sharedSteps } from '../pipeline/shared-steps.js';
import { registeredMethods } from './registered-methods.js';

/** Options of {@link indexPipeline}. */
export interface IndexPipelineOptions {
  config: KgragConfig;
  mode: 'fast' | 'standard';
  hasLlm: boolean;
  /** The methods the index is built for. @default every registered method */
  methods?: readonly AnyQueryMethod[];
}

/**
 * The pipeline of an index built for some methods: the shared steps they read (load, chunk, vectors, the
 * entity graph and its reports, triples) and the steps they contribute, in order.
 */
export async function indexPipeline(options: IndexPipelineOptions): Promise<PipelineStep[]> {
  const methods = options.methods ?? registeredMethods;
  const configs = parseMethodConfigs(options.config.methods, registeredMethods);
  const graphStep = graphStepOf(options.mode);
  const shared = sharedSteps(options.mode, options.config, options.hasLlm);
  const contributions = await Promise.all(
    methods.map(async (method) => ({
      method: method.name,
      requires: method.indexRequires?.(configs.get(method.name)) ?? method.requires,
      steps: (await method.indexSteps?.({ config: configs.get(method.name), mode: options.mode, graphStep })) ?? [],
    })),
  );
  return composePipeline(shared, contributions);
}
