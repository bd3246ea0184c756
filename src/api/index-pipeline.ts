import type { KgragConfig } from '../core/config/config-schema.js';
import { KgragError } from '../core/errors.js';
import { parseMethodConfigs } from '../methods/method-config.js';
import type { AnyQueryMethod } from '../methods/query-method.js';
import { composePipeline, type ArtifactProvider, type PipelineContribution } from '../pipeline/compose-pipeline.js';
import type { PipelineStep, StepName } from '../pipeline/pipeline-step.js';
import { graphStepOf, sharedArtifacts, sharedSteps, sharedStepsOfImport } from '../pipeline/shared-steps.js';
import { builtInMethods } from './built-in-methods.js';

/** Options of {@link indexPipeline}. */
export interface IndexPipelineOptions {
  config: KgragConfig;
  mode: 'fast' | 'standard';
  hasLlm: boolean;
  /** Every method of the workspace, whose configuration sections `config.methods` holds. @default the built-in methods */
  registry?: readonly AnyQueryMethod[];
  /** The methods the index is built for. @default every method of `registry` */
  methods?: readonly AnyQueryMethod[];
  /** Each method's parsed section of `config.methods`, as the workspace parsed it when it opened. @default parsed here */
  methodConfigs?: ReadonlyMap<string, Record<string, unknown>>;
}

/**
 * A method's steps as it declared them: those `indexSteps` returned must be those `provides` names, and what its
 * steps and the method read must be a step of the pipeline. Checked when the pipeline is composed, before any step
 * runs, for the built-in methods as for plugins (a built-in that fails it is a bug, found by the tests).
 */
function checkMethodSteps(method: AnyQueryMethod, requires: readonly StepName[], steps: readonly PipelineStep[], available: ReadonlySet<StepName>): void {
  const fail = (message: string, hint: string): never => {
    throw new KgragError(`method plugin "${method.name}" ${message}`, { code: 'PLUGIN_INVALID', category: 'config', hint, details: { method: method.name } });
  };
  const declared = method.provides ?? [];
  const undeclared = steps.filter((step) => !declared.includes(step.name)).map((step) => step.name);
  if (undeclared.length > 0) fail(`returns the index steps ${undeclared.join(', ')}, which it does not declare in \`provides\``, `add ${undeclared.map((name) => `"${name}"`).join(', ')} to its \`provides\``);
  for (const read of [...requires, ...steps.flatMap((step) => step.reads)]) {
    if (!available.has(read)) fail(`reads the step "${read}", which no shared step or method provides in this mode`, `read one of ${[...available].join(', ')}, or add a method that provides "${read}"`);
  }
}

/** What each method reads and adds, with its configuration, for steps built in `mode` over the graph of `graphStep`. */
async function methodContributions(
  config: KgragConfig,
  configs: ReadonlyMap<string, Record<string, unknown>>,
  methods: readonly AnyQueryMethod[],
  mode: 'fast' | 'standard',
  graphStep: StepName,
  pipeline: { shared: readonly PipelineStep[]; artifacts: readonly ArtifactProvider[] },
): Promise<PipelineContribution[]> {
  const { knn } = config.index;
  const contributions = await Promise.all(
    methods.map(async (method) => ({
      method,
      requires: method.indexRequires?.(configs.get(method.name)) ?? method.requires,
      steps: (await method.indexSteps?.({ config: configs.get(method.name), mode, graphStep, knn })) ?? [],
    })),
  );
  const available = new Set([...pipeline.shared.map((step) => step.name), ...pipeline.artifacts.map((provider) => provider.step), ...contributions.flatMap((contribution) => contribution.steps.map((step) => step.name))]);
  for (const contribution of contributions) checkMethodSteps(contribution.method, contribution.requires, contribution.steps, available);
  return contributions.map((contribution) => ({ method: contribution.method.name, requires: contribution.requires, steps: contribution.steps }));
}

/**
 * The pipeline of an index built for some methods: the shared steps they read (load, chunk, vectors, the
 * entity graph and its reports, triples) and the steps they contribute, in order.
 */
export async function indexPipeline(options: IndexPipelineOptions): Promise<PipelineStep[]> {
  const registry = options.registry ?? builtInMethods;
  const configs = options.methodConfigs ?? parseMethodConfigs(options.config.methods, registry);
  const shared = sharedSteps(options.mode, options.config, options.hasLlm);
  const artifacts = sharedArtifacts(options.config);
  return composePipeline(shared, await methodContributions(options.config, configs, options.methods ?? registry, options.mode, graphStepOf(options.mode), { shared, artifacts }), artifacts);
}

/** Options of {@link importPipeline}. */
export interface ImportPipelineOptions {
  config: KgragConfig;
  hasLlm: boolean;
  /** Every method of the workspace: an imported index is built for all of them. */
  registry: readonly AnyQueryMethod[];
  /** Each method's parsed section of `config.methods`. */
  methodConfigs: ReadonlyMap<string, Record<string, unknown>>;
  /** The steps whose output the import supplies. */
  imported: ReadonlyMap<StepName, PipelineStep>;
}

/**
 * The pipeline of an imported index: the imported steps, then every step the workspace's methods read or add, built
 * LLM-free (fast mode's triples and keyword names) unless an LLM is configured, over the imported graph.
 */
export async function importPipeline(options: ImportPipelineOptions): Promise<PipelineStep[]> {
  const shared = sharedStepsOfImport(options.imported, options.hasLlm);
  const artifacts = sharedArtifacts(options.config);
  return composePipeline(shared, await methodContributions(options.config, options.methodConfigs, options.registry, options.hasLlm ? 'standard' : 'fast', 'summarize', { shared, artifacts }), artifacts);
}
