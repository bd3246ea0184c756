import { KgragError } from '../core/errors.js';
import type { PipelineStep, StepName } from './pipeline-step.js';

/** What one method asks of an index: the steps it reads, and the steps it adds. */
export interface PipelineContribution {
  /** The method, for messages. */
  method: string;
  requires: readonly StepName[];
  steps: readonly PipelineStep[];
}

/**
 * The pipeline of an index built for some methods: of the shared steps, those the methods read and what those
 * read in turn; then the methods' own steps, in the order the methods come. Loading and chunking always run.
 * A step named by a method but found nowhere is a bug in that method, reported as such.
 */
export function composePipeline(shared: readonly PipelineStep[], contributions: readonly PipelineContribution[]): PipelineStep[] {
  const own: PipelineStep[] = [];
  for (const contribution of contributions) {
    for (const step of contribution.steps) if (!own.some((existing) => existing.name === step.name)) own.push(step);
  }
  const all = [...shared, ...own];
  const byName = new Map(all.map((step) => [step.name, step]));
  const needed = new Set<StepName>();
  const need = (name: StepName, by: string): void => {
    if (needed.has(name)) return;
    const step = byName.get(name);
    if (!step) {
      throw new KgragError(`${by} needs the index step "${name}", which no shared step or method provides in this mode`, {
        code: 'PIPELINE_UNKNOWN_STEP',
        category: 'internal',
        details: { step: name, by },
      });
    }
    needed.add(name);
    for (const read of step.reads) need(read, `step "${name}"`);
  };
  for (const name of ['load', 'chunk'] as const) if (byName.has(name)) need(name, 'every index');
  for (const contribution of contributions) {
    for (const name of contribution.requires) need(name, `method "${contribution.method}"`);
    for (const step of contribution.steps) need(step.name, `method "${contribution.method}"`);
  }
  return all.filter((step) => needed.has(step.name));
}
