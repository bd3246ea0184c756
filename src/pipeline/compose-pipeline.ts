import { KgragError } from '../core/errors.js';
import type { ArtifactRequest, PipelineStep, StepName } from './pipeline-step.js';

/** What one method asks of an index: the steps it reads, and the steps it adds. */
export interface PipelineContribution {
  /** The method, for messages. */
  method: string;
  requires: readonly StepName[];
  steps: readonly PipelineStep[];
}

/**
 * A shared artifact several steps may read with different parameters (the chunk kNN graph, at different k): built
 * by one step made for the largest value of each parameter requested, so that a step asking for less reads a
 * prefix of it instead of building its own copy.
 */
export interface ArtifactProvider {
  /** The artifact's name, as steps request it (`chunk-knn`). */
  readonly artifact: string;
  /** The step that builds it; consumers list it in their `reads`. */
  readonly step: StepName;
  /** The step for these parameters (the largest requested of each). */
  create(params: Readonly<Record<string, number>>): PipelineStep;
}

/**
 * The pipeline of an index built for some methods: of the shared steps, those the methods read and what those
 * read in turn; then the shared artifacts the chosen steps consume, each built once at the largest parameters
 * requested; then the methods' own steps, in the order the methods come. Loading and chunking always run.
 * A step named by a method but found nowhere is a bug in that method, reported as such.
 */
export function composePipeline(shared: readonly PipelineStep[], contributions: readonly PipelineContribution[], artifacts: readonly ArtifactProvider[] = []): PipelineStep[] {
  const own: PipelineStep[] = [];
  for (const contribution of contributions) {
    for (const step of contribution.steps) if (!own.some((existing) => existing.name === step.name)) own.push(step);
  }
  const byName = new Map([...shared, ...own].map((step) => [step.name, step]));
  const providerOf = new Map(artifacts.map((provider) => [provider.step, provider]));
  const needed = new Set<StepName>();
  const need = (name: StepName, by: string): void => {
    if (needed.has(name)) return;
    needed.add(name);
    // An artifact's step is made once every consumer is known, below.
    if (providerOf.has(name) && !byName.has(name)) return;
    const step = byName.get(name);
    if (!step) {
      throw new KgragError(`${by} needs the index step "${name}", which no shared step or method provides in this mode`, {
        code: 'PIPELINE_UNKNOWN_STEP',
        category: 'internal',
        details: { step: name, by },
      });
    }
    for (const read of step.reads) need(read, `step "${name}"`);
  };
  for (const name of ['load', 'chunk'] as const) if (byName.has(name)) need(name, 'every index');
  for (const contribution of contributions) {
    for (const name of contribution.requires) need(name, `method "${contribution.method}"`);
    for (const step of contribution.steps) need(step.name, `method "${contribution.method}"`);
  }
  const artifactSteps: PipelineStep[] = [];
  for (const provider of artifacts) {
    const consumers = [...byName.values()].filter((step) => needed.has(step.name) && step.consumes?.some((request) => request.artifact === provider.artifact));
    if (consumers.length === 0) continue;
    for (const consumer of consumers) {
      if (!consumer.reads.includes(provider.step)) {
        throw new KgragError(`step "${consumer.name}" consumes the artifact "${provider.artifact}" but does not read its step "${provider.step}"`, {
          code: 'PIPELINE_UNKNOWN_STEP',
          category: 'internal',
          details: { step: consumer.name, artifact: provider.artifact },
        });
      }
    }
    const step = provider.create(largestParams(consumers.flatMap((consumer) => consumer.consumes?.filter((request) => request.artifact === provider.artifact) ?? [])));
    byName.set(step.name, step);
    artifactSteps.push(step);
    needed.delete(step.name);
    need(step.name, `artifact "${provider.artifact}"`);
  }
  const unbuilt = [...needed].find((name) => !byName.has(name));
  if (unbuilt !== undefined) {
    throw new KgragError(`a step reads the artifact step "${unbuilt}" without consuming its artifact, so nothing says what to build`, {
      code: 'PIPELINE_UNKNOWN_STEP',
      category: 'internal',
      details: { step: unbuilt },
    });
  }
  return [...shared, ...artifactSteps, ...own].filter((step) => needed.has(step.name));
}

/** The largest value of each parameter over the requests (a parameter one request omits does not bind it). */
function largestParams(requests: readonly ArtifactRequest[]): Record<string, number> {
  const params: Record<string, number> = {};
  for (const request of requests) {
    for (const [key, value] of Object.entries(request.params)) params[key] = Math.max(params[key] ?? Number.NEGATIVE_INFINITY, value);
  }
  return params;
}
