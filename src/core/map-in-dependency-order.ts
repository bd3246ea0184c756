import { lowerBound } from './lower-bound.js';

/**
 * Runs `work` over `items` with at most `concurrency` calls in flight, starting an item only once the
 * work of every item it depends on has finished; returns the results in input order. Among ready items
 * the earliest in input order starts first, so callers put the items on the longest dependency chains
 * first. Unlike running one level at a time, no item waits for unrelated items of its level: GraphRAG's
 * community reports need only their own sub-communities' reports, and a level barrier idles the model
 * while the slowest report of a level finishes.
 *
 * Dependencies that are not among `items` are ignored. A dependency cycle, the first rejection of `work`
 * or an aborted `abortSignal` stops new work and rejects once the calls in flight have settled.
 */
export async function mapInDependencyOrder<T, R>(
  items: readonly T[],
  options: {
    key: (item: T) => string;
    dependencies: (item: T) => readonly string[];
    concurrency: number;
    abortSignal?: AbortSignal | undefined;
  },
  work: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const limit = Math.max(1, Math.floor(Number.isFinite(options.concurrency) ? options.concurrency : 1));
  const indexByKey = new Map(items.map((item, index) => [options.key(item), index]));
  const waitingOn = new Int32Array(items.length);
  const dependents: number[][] = items.map(() => []);
  for (const [index, item] of items.entries()) {
    for (const key of new Set(options.dependencies(item))) {
      const dependency = indexByKey.get(key);
      if (dependency === undefined || dependency === index) continue;
      waitingOn[index] = (waitingOn[index] ?? 0) + 1;
      dependents[dependency]?.push(index);
    }
  }
  // Ready items in input order: a sorted array kept small by taking from the front.
  const ready: number[] = [];
  for (let index = 0; index < items.length; index++) if (waitingOn[index] === 0) ready.push(index);
  const results = new Array<R>(items.length);
  let running = 0;
  let finished = 0;
  let failure: { error: unknown } | undefined;

  return new Promise<R[]>((resolve, reject) => {
    const settle = (): void => {
      if (running > 0) return;
      if (failure !== undefined) reject(failure.error);
      else if (finished === items.length) resolve(results);
      else {
        reject(new Error(`mapInDependencyOrder: ${items.length - finished} items wait on each other in a cycle`));
      }
    };
    const pump = (): void => {
      while (failure === undefined && running < limit && ready.length > 0) {
        if (options.abortSignal?.aborted) {
          failure = { error: options.abortSignal.reason };
          break;
        }
        const index = ready.shift() as number;
        running++;
        // A synchronous throw of `work` rejects like an asynchronous one.
        new Promise<R>((resolveWork) => resolveWork(work(items[index] as T, index))).then(
          (value) => {
            results[index] = value;
            running--;
            finished++;
            for (const dependent of dependents[index] ?? []) {
              waitingOn[dependent] = (waitingOn[dependent] ?? 0) - 1;
              if (waitingOn[dependent] === 0) insertSorted(ready, dependent);
            }
            pump();
          },
          (error: unknown) => {
            running--;
            failure ??= { error };
            pump();
          },
        );
      }
      settle();
    };
    pump();
  });
}

function insertSorted(sorted: number[], value: number): void {
  sorted.splice(lowerBound(sorted, value), 0, value);
}
