import { createHash } from 'node:crypto';
import { KgragError } from '../core/errors.js';
import type { StepShard } from './pipeline-step.js';

/**
 * The shard of `count` that item `id` belongs to: the first 32 bits of the SHA-256 of the id, modulo `count`. A
 * content hash rather than the item's position, so that every process (the coordinator and each worker, each reading
 * the store on its own) puts an item in the same shard whatever order it read the items in.
 */
export function shardOfItem(id: string, count: number): number {
  return createHash('sha256').update(id).digest().readUInt32BE(0) % count;
}

/** Whether `shard` owns the item `id`; each item is owned by exactly one of the `count` shards. */
export function ownsItem(shard: StepShard, id: string): boolean {
  const { index, count } = shard;
  if (!Number.isInteger(count) || count < 1 || !Number.isInteger(index) || index < 0 || index >= count) {
    // Shards come from the coordinator, which validated the job: a bad one is a bug, not an input.
    throw new KgragError(`invalid prefetch shard ${index} of ${count}`, {
      code: 'PIPELINE_INVALID_SHARD',
      category: 'internal',
      details: { index, count },
    });
  }
  return shardOfItem(id, count) === index;
}
