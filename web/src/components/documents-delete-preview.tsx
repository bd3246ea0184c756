import { useEffect, useRef, useState } from 'preact/hooks';
import type { ApiClient } from '../api-client';
import type { DocumentInfo } from '../api-types';

/**
 * The parts of a delete dry run (`Kgrag.estimateDelete`: `DeleteDryRun` = `IndexDryRun` + `deleting`) the preview
 * shows. The API declares it a loose object, so it is read field by field with defaults.
 */
interface DeleteEstimate {
  deleting: Array<{ title: string; chunks: number }>;
  documents: { total: number; removed: number };
  chunks: { total: number; tokens: number; toExtract: number };
  mode: string;
  model: string | null;
  steps: Array<{ step: string; calls: number; minCalls: number | undefined; inputTokens: number; outputTokens: number; costUsd: number | null; exact: boolean; basis: string }>;
  totals: { calls: number; minCalls: number; inputTokens: number; outputTokens: number; costUsd: number | null; exact: boolean };
  notes: string[];
  warnings: string[];
}

type Loose = Record<string, unknown>;
const objectOf = (value: unknown): Loose => (typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Loose) : {});
const listOf = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
const numberOf = (value: unknown): number => (typeof value === 'number' && Number.isFinite(value) ? value : 0);
const costOf = (value: unknown): number | null => (typeof value === 'number' && Number.isFinite(value) ? value : null);

function readEstimate(raw: Loose): DeleteEstimate {
  const documents = objectOf(raw['documents']);
  const chunks = objectOf(raw['chunks']);
  const totals = objectOf(raw['totals']);
  return {
    deleting: listOf(raw['deleting']).map((entry) => {
      const document = objectOf(entry);
      return { title: String(document['title'] ?? document['id'] ?? '?'), chunks: numberOf(document['chunks']) };
    }),
    documents: { total: numberOf(documents['total']), removed: numberOf(documents['removed']) },
    chunks: { total: numberOf(chunks['total']), tokens: numberOf(chunks['tokens']), toExtract: numberOf(chunks['toExtract']) },
    mode: String(raw['mode'] ?? 'fast'),
    model: typeof raw['model'] === 'string' ? raw['model'] : null,
    steps: listOf(raw['steps']).map((entry) => {
      const step = objectOf(entry);
      return {
        step: String(step['step'] ?? '?'),
        calls: numberOf(step['calls']),
        minCalls: typeof step['minCalls'] === 'number' ? step['minCalls'] : undefined,
        inputTokens: numberOf(step['inputTokens']),
        outputTokens: numberOf(step['outputTokens']),
        costUsd: costOf(step['costUsd']),
        exact: step['exact'] === true,
        basis: String(step['basis'] ?? ''),
      };
    }),
    totals: {
      calls: numberOf(totals['calls']),
      minCalls: numberOf(totals['minCalls'] ?? totals['calls']),
      inputTokens: numberOf(totals['inputTokens']),
      outputTokens: numberOf(totals['outputTokens']),
      costUsd: costOf(totals['costUsd']),
      exact: totals['exact'] === true,
    },
    notes: listOf(raw['notes']).map(String),
    warnings: listOf(raw['warnings']).map((entry) => {
      const warning = objectOf(entry);
      return typeof entry === 'string' ? entry : String(warning['message'] ?? JSON.stringify(entry));
    }),
  };
}

const integer = new Intl.NumberFormat('en-US');
const count = (value: number, noun: string) => `${integer.format(value)} ${noun}${value === 1 ? '' : 's'}`;
const usd = (value: number | null) => (value === null ? 'unknown' : `$${value.toFixed(value < 0.01 && value > 0 ? 4 : 2)}`);
const calls = (minimum: number | undefined, maximum: number) => (minimum === undefined || minimum === maximum ? integer.format(maximum) : `${integer.format(minimum)}–${integer.format(maximum)}`);

/** Props of {@link DocumentsDeletePreview}. */
export interface DocumentsDeletePreviewProps {
  api: ApiClient;
  document: DocumentInfo;
  onConfirm(): Promise<void>;
  onCancel(): void;
}

/** What deleting a document costs (the server's dry run), with Confirm and Cancel. */
export function DocumentsDeletePreview({ api, document, onConfirm, onCancel }: DocumentsDeletePreviewProps) {
  const [estimate, setEstimate] = useState<DeleteEstimate | undefined>();
  const [error, setError] = useState<string | undefined>();
  const [confirming, setConfirming] = useState(false);

  useEffect(() => {
    let current = true;
    setEstimate(undefined);
    setError(undefined);
    api
      .deletePreview(document.id)
      .then((raw) => current && setEstimate(readEstimate(raw)))
      .catch((failure: unknown) => current && setError(failure instanceof Error ? failure.message : String(failure)));
    return () => {
      current = false;
    };
  }, [api, document.id]);

  const removedChunks = estimate?.deleting.reduce((sum, entry) => sum + entry.chunks, 0) ?? 0;
  // Opened under a row near the bottom of the window, it would be out of sight.
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => box.current?.scrollIntoView({ block: 'nearest' }), []);
  return (
    <div class="delete-preview" role="dialog" aria-label={`Delete ${document.title}`} data-testid="delete-preview" ref={box}>
      <h3>Delete “{document.title}”?</h3>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      {!estimate && !error && <p class="muted">Working out what the delete would change…</p>}
      {estimate && (
        <div data-testid="delete-estimate">
          <ul class="delete-facts">
            <li data-testid="delete-removes">
              Removes {count(estimate.deleting.length, 'document')} ({estimate.deleting.map((entry) => entry.title).join(', ')}) and{' '}
              {count(removedChunks, 'passage')}, with the entities, relations and claims found only in {removedChunks === 1 ? 'it' : 'them'}.
            </li>
            <li>
              The index keeps {count(estimate.documents.total, 'document')}, {count(estimate.chunks.total, 'passage')} of {count(estimate.chunks.tokens, 'token')}.
            </li>
            {estimate.mode === 'fast' ? (
              <li data-testid="delete-llm-calls">Fast mode: the update makes no LLM calls (0 tokens, $0).</li>
            ) : (
              <li data-testid="delete-llm-calls">
                Standard mode{estimate.model ? ` (model ${estimate.model})` : ''}: {calls(estimate.totals.minCalls, estimate.totals.calls)} LLM call
                {estimate.totals.calls === 1 ? '' : 's'} ({estimate.totals.exact ? 'exact' : 'estimated'}), {integer.format(estimate.totals.inputTokens)} input and{' '}
                {integer.format(estimate.totals.outputTokens)} output tokens, cost {usd(estimate.totals.costUsd)}.
              </li>
            )}
          </ul>
          {estimate.steps.length > 0 && (
            <table class="delete-steps">
              <caption>What the update redoes (descriptions, community reports, …) step by step</caption>
              <thead>
                <tr>
                  <th scope="col">step</th>
                  <th scope="col" class="num">LLM calls</th>
                  <th scope="col" class="num">input tokens</th>
                  <th scope="col" class="num">output tokens</th>
                  <th scope="col" class="num">cost</th>
                  <th scope="col">how counted</th>
                </tr>
              </thead>
              <tbody>
                {estimate.steps.map((step) => (
                  <tr>
                    <th scope="row">{step.step}</th>
                    <td class="num">{calls(step.minCalls, step.calls)}</td>
                    <td class="num">{integer.format(step.inputTokens)}</td>
                    <td class="num">{integer.format(step.outputTokens)}</td>
                    <td class="num">{usd(step.costUsd)}</td>
                    <td class="basis">{step.basis}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          {[...estimate.notes, ...estimate.warnings].length > 0 && (
            <ul class="delete-notes muted">
              {estimate.notes.map((note) => (
                <li>Note: {note}</li>
              ))}
              {estimate.warnings.map((warning) => (
                <li>Warning: {warning}</li>
              ))}
            </ul>
          )}
        </div>
      )}
      <div class="delete-actions">
        <button
          class="danger"
          data-testid="delete-confirm"
          disabled={!estimate || confirming}
          onClick={() => {
            setConfirming(true);
            void onConfirm().finally(() => setConfirming(false));
          }}
        >
          {confirming ? 'Deleting…' : 'Confirm delete'}
        </button>
        <button data-testid="delete-cancel" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </div>
  );
}
