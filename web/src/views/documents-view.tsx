import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { ApiError } from '../api-client';
import type { DocumentInfo, JobView } from '../api-types';
import { DocumentsDropZone } from '../components/documents-drop-zone';
import { DocumentsTable } from '../components/documents-table';
import { JobCard } from '../components/job-card';
import { useExplorer } from '../explorer-context';
import './documents-view.css';

const isActive = (job: JobView) => job.status === 'queued' || job.status === 'running';

/** Ended jobs shown before "show all". */
const recentJobs = 5;

/** An API failure in the words of the server's problem document: its detail says what went wrong, then how to fix it. */
function problemText(error: unknown): string {
  if (error instanceof ApiError) {
    const { problem } = error;
    return `${problem.detail ?? problem.title ?? `HTTP ${error.status}`} (HTTP ${error.status})`;
  }
  return error instanceof Error ? error.message : String(error);
}

/**
 * The workspace's documents and index jobs: upload files (a queued index job), follow jobs live, cancel them, and
 * delete a document after a dry run says what that costs.
 */
export function DocumentsView({ active }: { active: boolean }) {
  const explorer = useExplorer();
  const { api } = explorer;
  const [documents, setDocuments] = useState<DocumentInfo[] | undefined>();
  const [documentsError, setDocumentsError] = useState<string | undefined>();
  const [jobs, setJobs] = useState<JobView[]>([]);
  const [jobsError, setJobsError] = useState<string | undefined>();
  const [live, setLive] = useState<ReadonlySet<string>>(new Set());
  const [uploadError, setUploadError] = useState<string | undefined>();
  const [actionError, setActionError] = useState<string | undefined>();
  const [showAllJobs, setShowAllJobs] = useState(false);
  const followers = useRef(new Map<string, AbortController>());
  // The follow callbacks outlive renders: they read the explorer of now, not of when the job started.
  const explorerRef = useRef(explorer);
  // Titles of every document seen, so that a delete job (which names its document by id) still says which one after it is gone.
  const titles = useRef(new Map<string, string>());
  explorerRef.current = explorer;

  const upsertJob = useCallback((job: JobView) => {
    setJobs((previous) => {
      const index = previous.findIndex((entry) => entry.id === job.id);
      if (index < 0) return [job, ...previous];
      const next = [...previous];
      next[index] = job;
      return next;
    });
  }, []);

  const loadDocuments = useCallback(() => {
    api
      .documents()
      .then(({ documents: found }) => {
        for (const document of found) titles.current.set(document.id, document.title);
        setDocuments(found);
        setDocumentsError(undefined);
      })
      .catch((error: unknown) => setDocumentsError(problemText(error)));
  }, [api]);

  const follow = useCallback(
    (job: JobView) => {
      upsertJob(job);
      if (!isActive(job) || followers.current.has(job.id)) return;
      const controller = new AbortController();
      followers.current.set(job.id, controller);
      setLive((previous) => new Set([...previous, job.id]));
      const stop = () => {
        followers.current.delete(job.id);
        setLive((previous) => new Set([...previous].filter((id) => id !== job.id)));
      };
      api
        .followJob(job.id, upsertJob, { signal: controller.signal })
        .then(async (last) => {
          stop();
          // The stream can close before the end (a restarted server): the job's own state then says how it ended.
          const final = last?.endedAt ? last : (await api.job(job.id)).job;
          upsertJob(final);
          if (isActive(final)) {
            follow(final);
            return;
          }
          // The index changed (or a cancelled job may have published part of it): new counts, new graph, new list.
          await explorerRef.current.refreshStats().catch(() => undefined);
          loadDocuments();
        })
        .catch((error: unknown) => {
          stop();
          if (!controller.signal.aborted) setJobsError(`lost the progress of job ${job.id}: ${problemText(error)}`);
        });
    },
    [api, upsertJob, loadDocuments],
  );

  const loadJobs = useCallback(() => {
    api
      .jobs()
      .then(({ jobs: found }) => {
        setJobsError(undefined);
        setJobs((previous) => {
          // Jobs the server no longer lists but this page started stay visible until reload.
          const listed = new Set(found.map((job) => job.id));
          return [...found, ...previous.filter((job) => !listed.has(job.id))];
        });
        for (const job of found) if (isActive(job)) follow(job);
      })
      .catch((error: unknown) => setJobsError(problemText(error)));
  }, [api, follow]);

  // On mount, on a new workspace, and whenever the view is shown again: jobs may have started elsewhere.
  useEffect(() => {
    if (!active) return;
    loadJobs();
    loadDocuments();
  }, [active, loadJobs, loadDocuments]);

  // A newer index (a job of another tab, an update of `kgrag serve --watch`) changes the list, and its job is new.
  useEffect(() => {
    if (!active) return;
    loadDocuments();
    loadJobs();
  }, [explorer.generation]);

  useEffect(() => {
    const current = followers.current;
    return () => {
      for (const controller of current.values()) controller.abort();
      current.clear();
    };
  }, [api]);

  const upload = async (files: File[]) => {
    setUploadError(undefined);
    try {
      const { job } = await api.uploadDocuments(files);
      follow(job);
    } catch (error) {
      setUploadError(problemText(error));
    }
  };

  const cancel = (job: JobView) => {
    setActionError(undefined);
    api
      .cancelJob(job.id)
      .then(({ job: cancelled }) => upsertJob(cancelled))
      .catch((error: unknown) => setActionError(`could not cancel job ${job.id}: ${problemText(error)}`));
  };

  const remove = async (document: DocumentInfo) => {
    setActionError(undefined);
    try {
      const { job } = await api.deleteDocument(document.id);
      follow(job);
    } catch (error) {
      setActionError(`could not delete “${document.title}”: ${problemText(error)}`);
    }
  };

  const running = jobs.filter(isActive);
  const ended = jobs.filter((job) => !isActive(job));
  const shownEnded = showAllJobs ? ended : ended.slice(0, recentJobs);
  return (
    <div class="documents-view">
      <section class="documents-upload" aria-label="Upload documents">
        <DocumentsDropZone onFiles={upload} />
        {uploadError && (
          <p class="error upload-error" role="alert" data-testid="upload-error">
            Upload refused: {uploadError}
          </p>
        )}
      </section>
      {actionError && (
        <p class="error upload-error" role="alert" data-testid="documents-action-error">
          {actionError}
        </p>
      )}
      <section class="documents-jobs" aria-label="Jobs" data-testid="jobs">
        <h2>
          Jobs <span class="muted">{running.length > 0 ? `${running.length} running or queued` : ''}</span>
        </h2>
        {jobsError && <p class="error">{jobsError}</p>}
        {jobs.length === 0 && !jobsError && <p class="muted">No jobs yet.</p>}
        <ul class="job-list">
          {[...running, ...shownEnded].map((job) => (
            <JobCard job={job} live={live.has(job.id)} titleOf={(id) => titles.current.get(id)} onCancel={cancel} key={job.id} />
          ))}
        </ul>
        {ended.length > recentJobs && (
          <button class="link" data-testid="jobs-show-all" onClick={() => setShowAllJobs(!showAllJobs)}>
            {showAllJobs ? 'Show recent jobs only' : `Show all ${ended.length} ended jobs`}
          </button>
        )}
      </section>
      <section class="documents-list" aria-label="Documents">
        <h2>Documents</h2>
        {documentsError && <p class="error">{documentsError}</p>}
        {!documents && !documentsError && <p class="muted">Loading…</p>}
        {documents && <DocumentsTable api={api} documents={documents} onDelete={remove} />}
      </section>
    </div>
  );
}
