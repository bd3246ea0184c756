import type { KgragConfig } from '../../core/config/config-schema.js';
import { contentId } from '../../core/ids.js';
import type { PipelineStep, StepEnvironment } from '../../pipeline/pipeline-step.js';

/**
 * What must be the same in a worker and the coordinator for a worker's prefetch to make the calls the coordinator's
 * step will look up: the step's code version and the settings that change its output (model, prompts, options).
 */
export function stepSettingsFingerprint(step: PipelineStep, config: KgragConfig, environment: StepEnvironment): string {
  return contentId('prefetch', step.name, step.version, JSON.stringify(step.settings(config, environment)));
}
