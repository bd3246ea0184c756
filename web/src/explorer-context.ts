import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { ApiClient } from './api-client';
import type { MethodDescription, WorkspaceStats } from './api-types';

/** The views of the explorer, one tab each. */
export type ViewName = 'graph' | 'communities' | 'query' | 'compare' | 'documents' | 'evaluation';

/** What the side panel shows: an entity, a passage, or a community with its report. */
export type Inspected = { kind: 'entity'; id: string } | { kind: 'chunk'; id: string } | { kind: 'community'; id: string };

/** Entities to emphasise on the graph (community members, a query's retrieved entities), with what they are. */
export interface GraphHighlight {
  label: string;
  entityIds: ReadonlySet<string>;
}

/** What every view shares: the workspace's client and facts, and navigation between views. */
export interface Explorer {
  api: ApiClient;
  stats: WorkspaceStats | undefined;
  methods: MethodDescription[];
  defaultMethod: string;
  /** Reads the stats again (after an index job). */
  refreshStats(): Promise<void>;
  /** Increments when the published index changes, so views reload what they show. */
  generation: number;
  show(view: ViewName): void;
  inspect(what: Inspected | undefined): void;
  /** Adds an entity's neighbours to the graph view and switches to it. */
  expand(entityId: string): void;
  /** Shows entities on the graph view (and switches to it when `reveal`). */
  highlight(highlight: GraphHighlight | undefined, reveal?: boolean): void;
}

export const ExplorerContext = createContext<Explorer | undefined>(undefined);

export function useExplorer(): Explorer {
  const explorer = useContext(ExplorerContext);
  if (!explorer) throw new Error('useExplorer outside the explorer');
  return explorer;
}
