import { useEffect, useMemo, useState } from 'preact/hooks';
import { ApiError } from '../api-client';
import type { CommunityView } from '../api-types';
import { highlightMembers, useLoaded } from '../components/inspector';
import { ReportScore } from '../components/report-score';
import { useExplorer } from '../explorer-context';

/** The community hierarchy as a tree: report titles and scores (LLM importance, or extractive connectivity); selecting one shows its report and members. */
export function CommunitiesView({ active }: { active: boolean }) {
  const explorer = useExplorer();
  const { value: all, error } = useLoaded(`${explorer.generation}`, () => loadAll(explorer.api));
  const [filter, setFilter] = useState('');
  const [selected, setSelected] = useState<string | undefined>();
  const byId = useMemo(() => new Map((all ?? []).map((community) => [community.id, community])), [all]);
  const roots = useMemo(() => (all ?? []).filter((community) => community.parent === null || !byId.has(community.parent)), [all, byId]);
  const initiallyOpen = useMemo(() => openingRows(roots, byId), [roots, byId]);
  const matching = useMemo(() => {
    const text = filter.trim().toLowerCase();
    if (!text) return undefined;
    // A match keeps its ancestors visible, so that the tree still reads as a tree.
    const kept = new Set<string>();
    for (const community of all ?? []) {
      const title = `${community.report?.title ?? ''} ${community.title}`.toLowerCase();
      if (!title.includes(text)) continue;
      for (let id: string | null = community.id; id !== null && !kept.has(id); id = byId.get(id)?.parent ?? null) kept.add(id);
    }
    return kept;
  }, [filter, all, byId]);

  // Selecting a community opens its report and highlights its members on the graph view.
  useEffect(() => {
    if (!active || !selected) return;
    explorer.inspect({ kind: 'community', id: selected });
    void highlightMembers(explorer, selected, false).catch(() => undefined);
  }, [selected]);

  if (error) return <p class="error">{error}</p>;
  if (!all) return <p class="loading">Loading communities…</p>;
  if (all.length === 0) return <p class="empty">This index has no communities: they are built for the GraphRAG methods (local, global, drift), which the query view builds on request.</p>;
  const levels = new Set(all.map((community) => community.level)).size;
  return (
    <div class="communities-view">
      <div class="toolbar">
        <input type="search" placeholder="Filter by title…" aria-label="Filter communities" value={filter} onInput={(event) => setFilter(event.currentTarget.value)} />
        <span class="muted">
          {all.length} communities on {levels} level{levels === 1 ? '' : 's'}
        </span>
      </div>
      <ul class="tree" role="tree" data-testid="community-tree">
        {roots.filter((root) => !matching || matching.has(root.id)).map((root) => (
          <CommunityNode community={root} byId={byId} matching={matching} initiallyOpen={initiallyOpen} selected={selected} onSelect={setSelected} />
        ))}
      </ul>
    </div>
  );
}

interface NodeProps {
  community: CommunityView;
  byId: ReadonlyMap<string, CommunityView>;
  matching: ReadonlySet<string> | undefined;
  /** Communities shown open at first ({@link openingRows}). */
  initiallyOpen: ReadonlySet<string>;
  selected: string | undefined;
  onSelect: (id: string) => void;
}

function CommunityNode({ community, byId, matching, initiallyOpen, selected, onSelect }: NodeProps) {
  const explorer = useExplorer();
  const children = community.children.map((id) => byId.get(id)).filter((child): child is CommunityView => child !== undefined && (!matching || matching.has(child.id)));
  const [open, setOpen] = useState(initiallyOpen.has(community.id));
  const expanded = open || (matching !== undefined && children.length > 0);
  return (
    <li role="treeitem" aria-expanded={children.length > 0 ? expanded : undefined} aria-selected={selected === community.id}>
      <div class="tree-row">
        {children.length > 0 ? (
          <button class="twisty" aria-label={expanded ? 'Collapse' : 'Expand'} onClick={() => setOpen(!expanded)}>
            {expanded ? '▾' : '▸'}
          </button>
        ) : (
          <span class="twisty" />
        )}
        <button class="link" onClick={() => onSelect(community.id)}>
          {community.report?.title ?? community.title}
        </button>
        <span class="muted">
          {' '}
          L{community.level} · {community.size} entities{community.report ? ' · ' : ''}
          {community.report && <ReportScore report={community.report} />}
        </span>
        <button class="link small" onClick={() => void highlightMembers(explorer, community.id)}>
          on graph
        </button>
      </div>
      {expanded && children.length > 0 && (
        <ul role="group">
          {children.map((child) => (
            <CommunityNode community={child} byId={byId} matching={matching} initiallyOpen={initiallyOpen} selected={selected} onSelect={onSelect} />
          ))}
        </ul>
      )}
    </li>
  );
}

/** About the rows the pane shows without scrolling. */
const firstScreenRows = 32;

/**
 * The communities to show open at first: level by level, the largest first, each whose children still fit on the
 * first screen — a tree of a few roots no longer opens as a few lines and an empty pane.
 */
function openingRows(roots: readonly CommunityView[], byId: ReadonlyMap<string, CommunityView>): Set<string> {
  const open = new Set<string>();
  let rows = roots.length;
  let level = [...roots];
  while (level.length > 0) {
    const next: CommunityView[] = [];
    for (const community of [...level].sort((left, right) => right.size - left.size)) {
      const children = community.children.flatMap((id) => byId.get(id) ?? []);
      if (children.length === 0 || rows + children.length > firstScreenRows) continue;
      open.add(community.id);
      rows += children.length;
      for (const child of children) next.push(child);
    }
    level = next;
  }
  return open;
}

/** Every community of every level, read page by page. */
async function loadAll(api: ReturnType<typeof useExplorer>['api']): Promise<CommunityView[]> {
  const all: CommunityView[] = [];
  for (let offset = 0; ; ) {
    const page = await api.communities({ limit: 1000, offset }).catch((error: unknown) => {
      // Nothing indexed yet: no communities, which the view says with what builds them.
      if (error instanceof ApiError && error.problem.code === 'STORE_NO_INDEX') return { total: 0, levels: [], communities: [] };
      throw error;
    });
    for (const community of page.communities) all.push(community);
    offset += page.communities.length;
    if (page.communities.length === 0 || offset >= page.total) return all;
  }
}
