import type { JobStep, JobView } from '../api-types';

/** `/tmp/uploads/notes.md` → `notes.md`: uploads are named by their file, which is all the reader needs. */
const baseName = (path: string): string => path.split(/[\\/]/).pop() ?? path;

function duration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return '';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}

/** An entity-edit job's request in words: "merge Lovelace into Ada Lovelace". */
function describeEntityEdit(edit: Record<string, unknown>): string {
  const text = (value: unknown): string => (Array.isArray(value) ? value.map(String).join(', ') : String(value));
  if ('undo' in edit) return `undo ${text(edit.undo)}`;
  if ('split' in edit) return `split ${text(edit.split)} off ${text(edit.from)}`;
  return `merge ${text(edit.merge)} into ${text(edit.into)}`;
}

/** What the job was asked to do, in words. */
function describeInput(job: JobView, titleOf: (documentId: string) => string | undefined): string {
  const { input } = job;
  const parts: string[] = [];
  // A job of `kgrag serve --watch` reads the watched files and folders whole and removes what is gone from them.
  if (input.watched.length > 0) parts.push(`update from ${input.watched.map(baseName).join(', ')} (watched)`);
  if (input.files.length > 0) parts.push(`${job.kind === 'delete' ? 'remove' : 'read'} ${input.files.map(baseName).join(', ')}`);
  if (input.documents.length > 0) parts.push(`${input.documents.length === 1 ? 'document' : 'documents'} ${input.documents.join(', ')}`);
  const named = (selector: string) => {
    const title = titleOf(selector);
    return title ? `“${title}”` : selector;
  };
  if (input.selectors.length > 0) parts.push(`delete ${input.selectors.map(named).join(', ')}`);
  if (input.entityEdit) parts.push(describeEntityEdit(input.entityEdit));
  if (input.mode) parts.push(`${input.mode} mode`);
  if (input.methods && input.methods.length > 0) parts.push(`for ${input.methods.join(', ')}`);
  return parts.length === 0 ? 'bring the index up to date' : parts.join(' · ');
}

function StepRow({ step }: { step: JobStep }) {
  const fraction = step.total > 0 ? Math.min(1, step.done / step.total) : step.status === 'done' ? 1 : 0;
  return (
    <tr class={`job-step ${step.status}`} data-testid="job-step" data-step={step.step} data-status={step.status}>
      <th scope="row">{step.step}</th>
      <td class="job-step-status">{step.status}</td>
      <td class="job-step-progress">
        {step.total > 0 ? (
          <span
            class="progress"
            role="progressbar"
            aria-label={`${step.step}: ${step.done} of ${step.total} ${step.unit}`}
            aria-valuemin={0}
            aria-valuemax={step.total}
            aria-valuenow={step.done}
          >
            <span class="progress-fill" style={{ width: `${(fraction * 100).toFixed(1)}%` }} />
          </span>
        ) : null}
        <span class="progress-text">{step.total > 0 ? `${step.done}/${step.total} ${step.unit}` : step.status === 'running' ? '…' : ''}</span>
      </td>
      <td class="num">{duration(step.durationMs)}</td>
    </tr>
  );
}

/** Props of {@link JobCard}. */
export interface JobCardProps {
  job: JobView;
  /** Set while the card follows the job's event stream. */
  live: boolean;
  /** The title of a document id the job names (delete jobs name documents by id), when known. */
  titleOf(documentId: string): string | undefined;
  onCancel(job: JobView): void;
}

/** One index or delete job: its status, what it was asked, per-step progress while it runs, its warnings and error. */
export function JobCard({ job, live, titleOf, onCancel }: JobCardProps) {
  const active = job.status === 'queued' || job.status === 'running';
  const took = job.result?.durationMs ?? (job.startedAt && job.endedAt ? Date.parse(job.endedAt) - Date.parse(job.startedAt) : null);
  const steps = job.steps.filter((step) => step.status !== 'pending' || active);
  return (
    <li class={`job-card ${job.status}`} data-testid="job-card" data-job-id={job.id} data-status={job.status}>
      <div class="job-head">
        <span class={`job-status ${job.status}`} data-testid="job-status">
          {job.status}
        </span>
        <strong>{job.kind === 'delete' ? 'Delete' : job.kind === 'entity-edit' ? 'Entity edit' : 'Index'}</strong>
        <span class="job-input" data-testid="job-input">
          {describeInput(job, titleOf)}
        </span>
        <span class="muted job-time">
          {new Date(job.createdAt).toLocaleTimeString()}
          {took !== null ? ` · took ${duration(took)}` : ''}
          {job.resumed > 0 ? ` · resumed ${job.resumed}×` : ''}
          {live && active ? ' · live' : ''}
        </span>
        {active && (
          <button data-testid="job-cancel" aria-label={`Cancel job ${job.id}`} onClick={() => onCancel(job)}>
            Cancel
          </button>
        )}
      </div>
      {job.result?.deleted && job.result.deleted.length > 0 && <p class="job-result">Deleted {job.result.deleted.length} document{job.result.deleted.length === 1 ? '' : 's'}.</p>}
      {job.error && (
        <p class="error job-error" data-testid="job-error">
          {job.error.message} <span class="muted">({job.error.code})</span>
        </p>
      )}
      {job.warnings.length > 0 && (
        <ul class="job-warnings" data-testid="job-warnings">
          {job.warnings.map((warning) => (
            <li>{warning}</li>
          ))}
        </ul>
      )}
      {steps.length > 0 && (active || job.status === 'failed' ? (
        <StepsTable steps={steps} />
      ) : (
        <details class="job-steps-details">
          <summary>{steps.length} steps</summary>
          <StepsTable steps={steps} />
        </details>
      ))}
    </li>
  );
}

function StepsTable({ steps }: { steps: JobStep[] }) {
  return (
    <table class="job-steps" data-testid="job-steps">
      <thead>
        <tr>
          <th scope="col">step</th>
          <th scope="col">status</th>
          <th scope="col">progress</th>
          <th scope="col" class="num">duration</th>
        </tr>
      </thead>
      <tbody>
        {steps.map((step) => (
          <StepRow step={step} />
        ))}
      </tbody>
    </table>
  );
}
