import { useRef, useState } from 'preact/hooks';
import type { QueryRequest, QueryResult } from '../api-types';
import { useExplorer } from '../explorer-context';

/** One streamed query's state: the text so far, then the result or the error. */
export interface QueryRun {
  running: boolean;
  streamed: string;
  result: QueryResult | undefined;
  error: string | undefined;
  /** Runs a query (aborting the one running); resolves with its result, or undefined when it failed or was stopped. */
  run(request: QueryRequest): Promise<QueryResult | undefined>;
  stop(): void;
}

/** Runs streamed queries against the workspace: text deltas as they come, then the result; Stop aborts. */
export function useQueryRun(): QueryRun {
  const explorer = useExplorer();
  const [state, setState] = useState<{ running: boolean; streamed: string; result?: QueryResult; error?: string }>({ running: false, streamed: '' });
  const controller = useRef<AbortController | undefined>(undefined);

  async function run(request: QueryRequest): Promise<QueryResult | undefined> {
    controller.current?.abort();
    const abort = new AbortController();
    controller.current = abort;
    setState({ running: true, streamed: '' });
    try {
      const result = await explorer.api.query(
        request,
        { onText: (delta) => setState((previous) => (abort.signal.aborted ? previous : { ...previous, streamed: previous.streamed + delta })) },
        abort.signal,
      );
      if (!abort.signal.aborted) setState({ running: false, streamed: '', result });
      return abort.signal.aborted ? undefined : result;
    } catch (error) {
      if (controller.current === abort) {
        const stopped = abort.signal.aborted;
        setState((previous) => ({ running: false, streamed: previous.streamed, ...(stopped ? { error: 'stopped' } : { error: error instanceof Error ? error.message : String(error) }) }));
      }
      return undefined;
    } finally {
      if (controller.current === abort) controller.current = undefined;
    }
  }

  return {
    running: state.running,
    streamed: state.streamed,
    result: state.result,
    error: state.error,
    run,
    stop: () => controller.current?.abort(),
  };
}
