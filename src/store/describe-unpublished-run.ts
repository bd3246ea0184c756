import type { UnpublishedRun } from './workspace-storage.js';

/**
 * How a write that did not publish ended, for people: `was interrupted (the process stopped without finishing: killed
 * or crashed) at step chunk — "kgrag delete docs/old.md", started 2026-11-25T10:00:00.000Z`, or `failed at step
 * reports (2026-11-25T10:00:00.000Z): <error>` for a run recorded by an older kgrag, which kept no command.
 */
export function describeUnpublishedRun(run: UnpublishedRun): string {
  const ended = run.status === 'failed' ? 'failed' : run.processGone ? 'was interrupted (the process stopped without finishing: killed or crashed)' : 'was interrupted';
  const where = run.step ? ` at step ${run.step}` : '';
  const what = run.command === null ? ` (${run.at})` : ` — \`${run.command}\`, started ${run.startedAt ?? run.at}`;
  return `${ended}${where}${what}${run.error ? `: ${run.error}` : ''}`;
}
