import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { KgragError } from '../core/errors.js';
import { composePipeline, type ArtifactProvider } from './compose-pipeline.js';
import type { ArtifactRequest, PipelineStep, StepName } from './pipeline-step.js';

/** A step that only declares what it reads and consumes: composing never runs a step. */
function step(name: string, reads: readonly string[], consumes?: readonly ArtifactRequest[]): PipelineStep {
  return {
    name: name as StepName,
    version: 1,
    reads: reads as StepName[],
    ...(consumes ? { consumes } : {}),
    settings: () => ({}),
    run: () => Promise.reject(new Error('not run')),
  };
}

const shared = [step('load', []), step('chunk', ['load']), step('embed-chunks', ['chunk'])];

/** The `chunk-knn` provider, recording the parameters of every step it makes. */
function knnProvider(made: Array<Readonly<Record<string, number>>>): ArtifactProvider {
  return {
    artifact: 'chunk-knn',
    step: 'chunk-knn',
    create(params) {
      made.push(params);
      return step('chunk-knn', ['embed-chunks']);
    },
  };
}

describe('composePipeline with shared artifacts', () => {
  test('an artifact two methods consume is built once, at the largest parameter, before its consumers', () => {
    const made: Array<Readonly<Record<string, number>>> = [];
    const pipeline = composePipeline(
      shared,
      [
        { method: 'a', requires: [], steps: [step('chunk-graph', ['embed-chunks', 'chunk-knn'], [{ artifact: 'chunk-knn', params: { k: 29 } }])] },
        { method: 'b', requires: [], steps: [step('passage-graph', ['chunk', 'chunk-knn'], [{ artifact: 'chunk-knn', params: { k: 10 } }])] },
      ],
      [knnProvider(made)],
    );
    assert.deepEqual(
      pipeline.map((each) => each.name),
      ['load', 'chunk', 'embed-chunks', 'chunk-knn', 'chunk-graph', 'passage-graph'],
    );
    assert.deepEqual(made, [{ k: 29 }]);
  });

  test('an artifact nobody consumes is not built', () => {
    const made: Array<Readonly<Record<string, number>>> = [];
    const pipeline = composePipeline(shared, [{ method: 'b', requires: [], steps: [step('passage-graph', ['chunk'])] }], [knnProvider(made)]);
    assert.deepEqual(
      pipeline.map((each) => each.name),
      ['load', 'chunk', 'passage-graph'],
    );
    assert.deepEqual(made, []);
  });

  test('a consumer that does not read the artifact step is a bug, reported as one', () => {
    assert.throws(
      () => composePipeline(shared, [{ method: 'b', requires: [], steps: [step('passage-graph', ['chunk'], [{ artifact: 'chunk-knn', params: { k: 10 } }])] }], [knnProvider([])]),
      (error: unknown) => KgragError.isInstance(error) && error.code === 'PIPELINE_UNKNOWN_STEP' && /does not read its step "chunk-knn"/.test(error.message),
    );
  });
});
