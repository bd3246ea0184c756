import { useCallback, useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { ApiClient, ApiError, onUnauthorized, storeApiKey, storedApiKey } from './api-client';
import type { MethodDescription, WorkspaceStats } from './api-types';
import { ApiKeyForm } from './components/api-key-form';
import { Inspector } from './components/inspector';
import { statisticsDrift } from './components/statistics-drift';
import { type Explorer, ExplorerContext, type GraphHighlight, type Inspected, type ViewName } from './explorer-context';
import { CommunitiesView } from './views/communities-view';
import { CompareView } from './views/compare-view';
import { DocumentsView } from './views/documents-view';
import { EvaluationView } from './views/evaluation-view';
import { GraphView } from './views/graph-view';
import { QueryView } from './views/query-view';

const views: Array<{ name: ViewName; label: string }> = [
  { name: 'graph', label: 'Graph' },
  { name: 'communities', label: 'Communities' },
  { name: 'query', label: 'Query' },
  { name: 'compare', label: 'Compare' },
  { name: 'documents', label: 'Documents' },
  { name: 'evaluation', label: 'Evaluation' },
];

/** How often the explorer asks whether the published index changed. */
const statsPollMs = 2000;

function viewFromHash(): ViewName {
  const name = new URLSearchParams(location.hash.slice(1)).get('view');
  return views.some((view) => view.name === name) ? (name as ViewName) : 'graph';
}

function workspaceFromHash(): string | undefined {
  return new URLSearchParams(location.hash.slice(1)).get('workspace') ?? undefined;
}

/** The explorer: a header with the workspace and the views, the active view, and the side panel. */
export function App() {
  const [layout, setLayout] = useState<{ single: boolean; names: string[] } | undefined>();
  const [workspace, setWorkspace] = useState<string | undefined>(workspaceFromHash());
  const [needsKey, setNeedsKey] = useState(false);
  const [failure, setFailure] = useState<string | undefined>();
  const [view, setView] = useState<ViewName>(viewFromHash());
  // A view mounts when first shown and stays mounted (hidden) after: its state survives a look at another view.
  const [visited, setVisited] = useState<ReadonlySet<ViewName>>(new Set([viewFromHash()]));
  const [stats, setStats] = useState<WorkspaceStats | undefined>();
  const [methods, setMethods] = useState<{ default: string; methods: MethodDescription[] }>({ default: 'ppr', methods: [] });
  const [inspected, setInspected] = useState<Inspected | undefined>();
  const [graphHighlight, setGraphHighlight] = useState<GraphHighlight | undefined>();
  // A counter, so that asking twice for the same entity expands it twice (after new documents, say).
  const [expansion, setExpansion] = useState<{ entityId: string; request: number } | undefined>();

  useEffect(() => onUnauthorized(() => setNeedsKey(true)), []);

  // Which workspaces the server serves decides the API base: `/v1` or `/v1/workspaces/{name}`.
  useEffect(() => {
    if (needsKey) return;
    ApiClient.workspaces()
      .then((found) => {
        const names = found.workspaces.map((entry) => entry.name);
        setLayout({ single: found.layout === 'single', names });
        if (found.layout === 'folder') setWorkspace((current) => (current !== undefined && names.includes(current) ? current : names[0]));
      })
      .catch((error: unknown) => {
        if (!(error instanceof ApiError && (error.status === 401 || error.status === 403))) setFailure(`the server did not answer: ${String(error)}`);
      });
  }, [needsKey]);

  const api = useMemo(() => (layout === undefined ? undefined : ApiClient.forWorkspace(layout.single ? undefined : workspace)), [layout, workspace]);

  const refreshStats = useCallback(async () => {
    if (!api) return;
    const next = await api.stats();
    // The same stats keep the same object, so a poll that found nothing new re-renders nothing.
    setStats((current) => (current !== undefined && JSON.stringify(current) === JSON.stringify(next) ? current : next));
  }, [api]);

  // Updates the explorer did not start (`kgrag serve --watch`, another client, a `kgrag index` beside the server) show as
  // they publish: a new generation reloads every view's data (they key it by `generation`), without a page reload.
  useEffect(() => {
    if (!api) return;
    const timer = setInterval(() => {
      if (document.visibilityState === 'visible') refreshStats().catch(() => undefined);
    }, statsPollMs);
    return () => clearInterval(timer);
  }, [api, refreshStats]);

  useEffect(() => {
    if (!api) return;
    setStats(undefined);
    void refreshStats().catch((error: unknown) => setFailure(String(error)));
  }, [api, refreshStats]);

  // Asked once the stats say which generation is published, and again for each new one: what each method is built
  // for changes with the index (a job for one method, the first documents).
  const generation = stats?.index.generation;
  const methodsLoaded = useRef(false);
  useEffect(() => {
    if (!api || generation === undefined) return;
    api
      .methods()
      .then((loaded) => {
        methodsLoaded.current = true;
        setMethods(loaded);
      })
      // Without the method list the explorer cannot work; a later reload that fails keeps the list it has.
      .catch((error: unknown) => !methodsLoaded.current && setFailure(String(error)));
  }, [api, generation]);

  useEffect(() => {
    const onHash = () => setView(viewFromHash());
    addEventListener('hashchange', onHash);
    return () => removeEventListener('hashchange', onHash);
  }, []);

  const show = useCallback(
    (next: ViewName) => {
      const params = new URLSearchParams(location.hash.slice(1));
      params.set('view', next);
      if (workspace !== undefined && layout?.single === false) params.set('workspace', workspace);
      history.replaceState(null, '', `#${params.toString()}`);
      setView(next);
    },
    [workspace, layout],
  );

  useEffect(() => setVisited((seen) => (seen.has(view) ? seen : new Set([...seen, view]))), [view]);

  // A workspace nothing was indexed into opens on the Documents view (its drop zone), unless the address asked for a
  // view; the graph is drawn when the first job publishes.
  const unindexed = stats !== undefined && stats.index.generation === null;
  const openedEmpty = useRef(false);
  useEffect(() => {
    if (!unindexed || openedEmpty.current) return;
    openedEmpty.current = true;
    if (!new URLSearchParams(location.hash.slice(1)).has('view')) show('documents');
  }, [unindexed, show]);

  const explorer = useMemo<Explorer | undefined>(
    () =>
      api && {
        api,
        stats,
        methods: methods.methods,
        defaultMethod: methods.default,
        refreshStats,
        // No index yet is not generation 0, the first one published: the views load again when it comes.
        generation: stats?.index.generation ?? -1,
        show,
        inspect: setInspected,
        expand: (entityId) => {
          setExpansion((previous) => ({ entityId, request: (previous?.request ?? 0) + 1 }));
          show('graph');
        },
        highlight: (next, reveal) => {
          setGraphHighlight(next);
          if (reveal) show('graph');
        },
      },
    [api, stats, methods, refreshStats, show],
  );

  if (needsKey) {
    return (
      <ApiKeyForm
        hadKey={storedApiKey() !== undefined}
        onKey={(key) => {
          storeApiKey(key);
          setNeedsKey(false);
          setFailure(undefined);
        }}
      />
    );
  }
  if (failure) return <p class="fatal" role="alert">{failure}</p>;
  if (!explorer) return <p class="loading">Connecting…</p>;

  const noLlm = stats?.llm !== undefined && !stats.llm.configured;
  const drift = statisticsDrift(stats?.statistics ?? null);
  return (
    <ExplorerContext.Provider value={explorer}>
      <header class="top">
        <h1>kgrag</h1>
        {layout && !layout.single && (
          <select aria-label="Workspace" value={workspace} onChange={(event) => setWorkspace(event.currentTarget.value)}>
            {layout.names.map((name) => (
              <option value={name}>{name}</option>
            ))}
          </select>
        )}
        <nav role="tablist">
          {views.map((entry) => (
            <button
              role="tab"
              aria-selected={view === entry.name}
              data-view={entry.name}
              onClick={() => {
                // The side panel belongs to the view it was opened from: in another it takes a third of the width
                // from the query subgraph or the evaluation table. Going to the graph from the panel keeps it.
                if (entry.name !== view) setInspected(undefined);
                show(entry.name);
              }}
            >
              {entry.label}
            </button>
          ))}
        </nav>
        <span class="index-facts" data-testid="index-facts">
          {stats
            ? `${stats.counts.entities ?? 0} entities · ${stats.counts.relations ?? 0} relations · ${stats.counts.chunks ?? 0} passages · generation ${stats.index.generation ?? '—'}`
            : '…'}
        </span>
        {drift && (
          <span class="statistics-drift" data-testid="statistics-drift" title={drift.title}>
            {drift.text}
          </span>
        )}
        {unindexed && (
          <span class="notice" data-testid="empty-index">
            No index yet: add documents in the Documents view
          </span>
        )}
        {noLlm && (
          <span class="notice" data-testid="no-llm" title="Configure an LLM in kgrag.yaml to get generated answers">
            No LLM configured: answers are extractive (quoted passages)
          </span>
        )}
      </header>
      <div class="body">
        <main>
          {views.map(
            (entry) =>
              visited.has(entry.name) && (
                <section class="view" data-view={entry.name} hidden={view !== entry.name}>
                  <ViewOf name={entry.name} active={view === entry.name} highlight={graphHighlight} expansion={expansion} />
                </section>
              ),
          )}
        </main>
        {inspected && <Inspector inspected={inspected} onClose={() => setInspected(undefined)} />}
      </div>
    </ExplorerContext.Provider>
  );
}

interface ViewProps {
  name: ViewName;
  active: boolean;
  highlight: GraphHighlight | undefined;
  expansion: { entityId: string; request: number } | undefined;
}

function ViewOf({ name, active, highlight, expansion }: ViewProps) {
  switch (name) {
    case 'graph':
      return <GraphView active={active} highlight={highlight} expansion={expansion} />;
    case 'communities':
      return <CommunitiesView active={active} />;
    case 'query':
      return <QueryView active={active} />;
    case 'compare':
      return <CompareView active={active} />;
    case 'documents':
      return <DocumentsView active={active} />;
    case 'evaluation':
      return <EvaluationView active={active} />;
  }
}
