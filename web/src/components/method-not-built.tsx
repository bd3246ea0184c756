import { useState } from 'preact/hooks';
import { useExplorer } from '../explorer-context';

/** Says the index is not built for a method, and builds it on request (an index job for it). */
export function MethodNotBuilt({ name }: { name: string }) {
  const explorer = useExplorer();
  const [state, setState] = useState<{ running: boolean; error?: string }>({ running: false });
  async function build(): Promise<void> {
    setState({ running: true });
    try {
      const { job } = await explorer.api.startJob({ methods: [name] });
      const ended = await explorer.api.followJob(job.id, () => undefined);
      setState(ended?.status === 'succeeded' ? { running: false } : { running: false, error: ended?.error?.message ?? `the job ended ${ended?.status ?? 'without a result'}` });
      await explorer.refreshStats();
    } catch (error) {
      setState({ running: false, error: error instanceof Error ? error.message : String(error) });
    }
  }
  return (
    <p class="notice" data-testid="method-not-built">
      {name} is not built for this index.{' '}
      <button type="button" class="link" disabled={state.running} onClick={() => void build()}>
        {state.running ? 'Building…' : `Build it now`}
      </button>
      {state.error && <span class="error"> {state.error}</span>}
    </p>
  );
}
