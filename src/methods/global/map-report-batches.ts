import { z } from 'zod';
import { appendAll } from '../../core/append-all.js';
import { mapWithConcurrency } from '../../core/map-with-concurrency.js';
import { modelScore } from '../../providers/llm/model-score.js';
import { generateObject } from '../../providers/llm/generate-object.js';
import type { LanguageModel } from '../../providers/llm/language-model.js';
import { LlmCallError } from '../../providers/llm/llm-call-error.js';
import type { ReportBatch } from './build-report-batches.js';

/** One key point of a map answer. `analyst` is the 1-based number of the batch it came from. */
export interface AnalystPoint {
  analyst: number;
  description: string;
  /** Importance, 0–100. */
  score: number;
}

/** What the map produced: every point, in batch order, and the batches whose reply could not be used. */
export interface MapOutcome {
  points: AnalystPoint[];
  /** 1-based batch numbers whose reply stayed invalid after the repair turn, with the reason. */
  unusable: Array<{ analyst: number; problem: string }>;
}

/** Options of {@link mapReportBatches}. */
export interface MapReportBatchesOptions {
  model: LanguageModel;
  question: string;
  batches: readonly ReportBatch[];
  /** The system prompt of one batch (the map template filled with its table). */
  systemPrompt: (batch: ReportBatch) => string;
  concurrency: number;
  abortSignal?: AbortSignal;
}

/**
 * The map reply. Scores may come as strings (`"85"`, `"85/100"`, see `modelScore`); points are checked one by
 * one afterwards so that a single malformed point does not cost the whole batch.
 */
const mapReply = z.object({
  points: z.array(
    z.object({
      description: z.string().describe('The point, with [Data: Reports (ids)] references'),
      score: modelScore(100, 'Importance from 0 to 100'),
    }),
  ),
});

/**
 * GraphRAG's map step (microsoft/graphrag `query/structured_search/global_search/search.py`): one JSON call per batch, run in parallel, each listing
 * key points with an importance score. A reply that is still invalid after `generateObject`'s repair turn
 * yields no points, as in GraphRAG, and is reported in `unusable`; other failures (network, abort) propagate.
 */
export async function mapReportBatches(options: MapReportBatchesOptions): Promise<MapOutcome> {
  const results = await mapWithConcurrency(
    options.batches,
    options.concurrency,
    async (batch, index): Promise<{ points: AnalystPoint[]; problem?: string }> => {
      try {
        const { object } = await generateObject({
          model: options.model,
          messages: [
            { role: 'system', content: options.systemPrompt(batch) },
            { role: 'user', content: options.question },
          ],
          schema: mapReply,
          schemaName: 'global_map',
          ...(options.abortSignal === undefined ? {} : { abortSignal: options.abortSignal }),
        });
        const points = object.points.flatMap((point) => {
          const description = point.description.trim();
          if (description.length === 0 || !Number.isFinite(point.score)) return [];
          return [{ analyst: index + 1, description, score: Math.min(100, Math.max(0, Math.round(point.score))) }];
        });
        return { points };
      } catch (error) {
        if (error instanceof LlmCallError && error.code === 'LLM_INVALID_OUTPUT') return { points: [], problem: error.message };
        throw error;
      }
    },
    options.abortSignal,
  );
  const points: AnalystPoint[] = [];
  const unusable: MapOutcome['unusable'] = [];
  results.forEach((result, index) => {
    appendAll(points, result.points);
    if (result.problem !== undefined) unusable.push({ analyst: index + 1, problem: result.problem });
  });
  return { points, unusable };
}
