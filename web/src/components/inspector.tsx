import { useEffect, useState } from 'preact/hooks';
import { ApiError } from '../api-client';
import type { ChunkView, CommunityView, EntityDetail } from '../api-types';
import { type Inspected, useExplorer } from '../explorer-context';
import { EntityEditControls } from './entity-edit-controls';
import { Markdown } from './markdown';
import { ReportScore } from './report-score';

/** Loads what `load` returns whenever its key changes; the error of a failed load is shown, not thrown. */
export function useLoaded<T>(key: string, load: () => Promise<T>): { value: T | undefined; error: string | undefined } {
  const [state, setState] = useState<{ key: string; value?: T; error?: string }>({ key });
  useEffect(() => {
    let current = true;
    setState({ key });
    load()
      .then((value) => current && setState({ key, value }))
      .catch((error: unknown) => current && setState({ key, error: error instanceof Error ? error.message : String(error) }));
    return () => {
      current = false;
    };
  }, [key]);
  return state.key === key ? { value: state.value, error: state.error } : { value: undefined, error: undefined };
}

/** The side panel: an entity, a passage with its document, or a community with its report. */
export function Inspector({ inspected, onClose }: { inspected: Inspected; onClose: () => void }) {
  return (
    <aside class="inspector" data-testid="inspector" aria-label="Details">
      <button class="close" aria-label="Close the panel" onClick={onClose}>
        ×
      </button>
      {inspected.kind === 'entity' && <EntityPanel id={inspected.id} />}
      {inspected.kind === 'chunk' && <ChunkPanel id={inspected.id} />}
      {inspected.kind === 'community' && <CommunityPanel id={inspected.id} />}
    </aside>
  );
}

function EntityPanel({ id }: { id: string }) {
  const explorer = useExplorer();
  const { value: entity, error } = useLoaded<EntityDetail | null>(`${explorer.generation}:${id}`, () =>
    explorer.api.entity(id, 10).catch((failure: unknown) => {
      // The panel outlives index changes: after a delete or update the entity may be gone.
      if (failure instanceof ApiError && failure.status === 404) return null;
      throw failure;
    }),
  );
  if (error) return <p class="error">{error}</p>;
  if (entity === null) return <p class="empty" data-testid="entity-gone">This entity is no longer in the index: the documents that named it were deleted or changed.</p>;
  if (!entity) return <p class="loading">Loading…</p>;
  const finest = entity.communities[entity.communities.length - 1];
  return (
    <div data-testid="entity-panel" data-entity-id={entity.id}>
      <h2>{entity.title}</h2>
      <p class="facts">
        <span class="type">{entity.type || 'untyped'}</span> · degree {entity.degree} · in {entity.chunkIds.length} passage{entity.chunkIds.length === 1 ? '' : 's'}
      </p>
      <button onClick={() => explorer.expand(entity.id)} data-testid="expand-neighbours">
        Expand neighbours
      </button>
      {entity.description && <p class="description">{entity.description}</p>}
      {entity.aliases.length > 0 && (
        <p class="aliases">
          Also: {entity.aliases.join(', ')}
        </p>
      )}
      <EntityEditControls entity={entity} />
      {entity.communities.length > 0 && (
        <section>
          <h3>Communities</h3>
          <ul class="links">
            {entity.communities.map((community) => (
              <li>
                <button class="link" onClick={() => explorer.inspect({ kind: 'community', id: community.id })}>
                  Level {community.level}: {community.reportTitle ?? community.title}
                </button>
              </li>
            ))}
          </ul>
        </section>
      )}
      <section>
        <h3>Source passages</h3>
        {entity.sources.length === 0 && <p class="muted">No passages kept for this entity.</p>}
        {entity.sources.map((source) => (
          <button class="passage" data-testid="source-passage" onClick={() => explorer.inspect({ kind: 'chunk', id: source.chunkId })}>
            <strong>{source.documentTitle}</strong>
            <span>{source.text.length > 280 ? `${source.text.slice(0, 280)}…` : source.text}</span>
          </button>
        ))}
      </section>
      {finest && <CommunityReport id={finest.id} />}
    </div>
  );
}

function ChunkPanel({ id }: { id: string }) {
  const explorer = useExplorer();
  const { value: chunk, error } = useLoaded<ChunkView>(`${explorer.generation}:${id}`, () => explorer.api.chunk(id));
  if (error) return <p class="error">{error}</p>;
  if (!chunk) return <p class="loading">Loading…</p>;
  return (
    <div data-testid="chunk-panel" data-chunk-id={chunk.id}>
      <h2>{chunk.document.title}</h2>
      <p class="facts">
        Passage {chunk.ordinal + 1} · {chunk.nTokens} tokens · characters {chunk.start}–{chunk.end}
      </p>
      <p class="source">{chunk.document.source}</p>
      <blockquote class="chunk-text">{chunk.text}</blockquote>
    </div>
  );
}

function CommunityPanel({ id }: { id: string }) {
  const explorer = useExplorer();
  return (
    <div data-testid="community-panel">
      <CommunityReport id={id} open />
      <button onClick={() => void highlightMembers(explorer, id)}>Show its members on the graph</button>
    </div>
  );
}

/** Highlights a community's members on the graph (and shows the graph when `reveal`). */
export async function highlightMembers(explorer: ReturnType<typeof useExplorer>, id: string, reveal = true): Promise<void> {
  const community = await explorer.api.community(id);
  explorer.highlight({ label: community.report?.title ?? community.title, entityIds: new Set(community.entityIds) }, reveal);
}

/** A community's report rendered from its markdown, or its title when it has no report. */
export function CommunityReport({ id, open = false }: { id: string; open?: boolean }) {
  const explorer = useExplorer();
  const { value: community, error } = useLoaded<CommunityView>(`${explorer.generation}:${id}`, () => explorer.api.community(id));
  if (error) return <p class="error">{error}</p>;
  if (!community) return null;
  const report = community.report;
  return (
    <details class="report" data-testid="community-report" open={open}>
      <summary>
        <strong>{report?.title ?? community.title}</strong>
        {report && <ReportScore report={report} />}
        <span class="muted"> · level {community.level} · {community.size} entities</span>
      </summary>
      {report ? <Markdown text={report.fullContent || [report.summary, ...report.findings.map((finding) => `## ${finding.summary}\n\n${finding.explanation}`)].join('\n\n')} /> : <p class="muted">No report for this community (fast index, or reports not built).</p>}
    </details>
  );
}
