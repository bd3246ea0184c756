/**
 * Scheduling class of a call, served in this order when several wait:
 * - `interactive`: queries, which a user is waiting for;
 * - `batch`: indexing calls that start new work (a chunk's first extraction turn, a summary, a report);
 * - `batch-continuation`: later turns of a batch conversation (gleanings). A conversation's turns run one after
 *   another, so starting every conversation before continuing any (Hu's highest-level-first rule for chains)
 *   keeps the limiter full to the end of a step instead of leaving the last conversations to glean alone.
 */
export type CallPriority = 'interactive' | 'batch' | 'batch-continuation';

const servingOrder: readonly CallPriority[] = ['interactive', 'batch', 'batch-continuation'];

/** One FIFO queue per {@link CallPriority}, read in serving order. */
export interface PriorityQueues<T> {
  push(priority: CallPriority, item: T): void;
  /** The next item to serve, without removing it. */
  head(): T | undefined;
  /** Removes and returns the next item to serve. */
  shift(): T | undefined;
  /** Removes `item` wherever it waits (an aborted waiter); false if it was not queued. */
  remove(item: T): boolean;
  readonly size: number;
}

export function createPriorityQueues<T>(): PriorityQueues<T> {
  const queues: Record<CallPriority, T[]> = { interactive: [], batch: [], 'batch-continuation': [] };
  const first = (): T[] | undefined => servingOrder.map((priority) => queues[priority]).find((queue) => queue.length > 0);
  return {
    push(priority, item) {
      queues[priority].push(item);
    },
    head: () => first()?.[0],
    shift: () => first()?.shift(),
    remove(item) {
      for (const queue of Object.values(queues)) {
        const index = queue.indexOf(item);
        if (index !== -1) {
          queue.splice(index, 1);
          return true;
        }
      }
      return false;
    },
    get size() {
      return queues.interactive.length + queues.batch.length + queues['batch-continuation'].length;
    },
  };
}
