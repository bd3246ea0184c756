import Graph from 'graphology';
import { useEffect, useMemo, useRef } from 'preact/hooks';
import Sigma from 'sigma';
import type { QuerySubgraph } from '../api-types';
import { useExplorer } from '../explorer-context';
import { kindColour } from '../graph-colors';
import { inspectTargetOf } from './query-subgraph-targets';

interface NodeAttributes {
  x: number;
  y: number;
  size: number;
  label: string;
  color: string;
  kind: string;
  forceLabel: boolean;
}

interface Props {
  subgraph: QuerySubgraph;
  /** The method that built it (decides what a click opens). */
  method: string;
  /** Called once after sigma's first render of this subgraph. */
  onDrawn?: () => void;
  /** Whether the canvas is visible (sigma measures its container again when it is shown). */
  active?: boolean;
  /** Labels drawn without hovering: the query and this many top-scored nodes. */
  labelled?: number;
  testId?: string;
}

const isPassage = (kind: string): boolean => kind === 'chunk' || kind === 'chunk-dense' || kind === 'passage';

/**
 * Columns of the layered layout: BFS depth from the query node over the edges taken both ways; passages go to the
 * last column when other kinds of nodes lie between (query → keywords/entities → passages, as the AutoKG figures
 * draw it). Nodes the query does not reach go one column past the deepest.
 */
function columnsOf(subgraph: QuerySubgraph): Map<string, number> {
  const neighbours = new Map<string, string[]>();
  for (const { source, target } of subgraph.edges) {
    neighbours.set(source, [...(neighbours.get(source) ?? []), target]);
    neighbours.set(target, [...(neighbours.get(target) ?? []), source]);
  }
  const depth = new Map<string, number>([['query', 0]]);
  const queue = ['query'];
  for (let index = 0; index < queue.length; index++) {
    const node = queue[index] as string;
    for (const next of neighbours.get(node) ?? []) {
      if (depth.has(next)) continue;
      depth.set(next, (depth.get(node) ?? 0) + 1);
      queue.push(next);
    }
  }
  const deepest = Math.max(0, ...depth.values());
  for (const node of subgraph.nodes) if (!depth.has(node.id)) depth.set(node.id, deepest + 1);
  const betweenKinds = subgraph.nodes.some((node) => node.kind !== 'query' && !isPassage(node.kind));
  if (betweenKinds) {
    const last = Math.max(1, ...subgraph.nodes.filter((node) => !isPassage(node.kind)).map((node) => depth.get(node.id) ?? 0)) + 1;
    for (const node of subgraph.nodes) if (isPassage(node.kind)) depth.set(node.id, last);
  }
  return depth;
}

function buildGraph(subgraph: QuerySubgraph, labelled: number): Graph<NodeAttributes> {
  const graph = new Graph<NodeAttributes>({ type: 'directed', multi: false, allowSelfLoops: false });
  const columns = columnsOf(subgraph);
  const maxScore = new Map<string, number>();
  for (const node of subgraph.nodes) maxScore.set(node.kind, Math.max(maxScore.get(node.kind) ?? 0, Math.abs(node.score ?? 0)));
  const topIds = new Set(
    subgraph.nodes
      .filter((node) => node.kind !== 'query' && node.score !== undefined)
      .sort((left, right) => (right.score ?? 0) / (maxScore.get(right.kind) || 1) - (left.score ?? 0) / (maxScore.get(left.kind) || 1) || (left.id < right.id ? -1 : 1))
      .slice(0, labelled)
      .map((node) => node.id),
  );
  const byColumn = new Map<number, QuerySubgraph['nodes']>();
  for (const node of subgraph.nodes) {
    const column = columns.get(node.id) ?? 0;
    byColumn.set(column, [...(byColumn.get(column) ?? []), node]);
  }
  const tallest = Math.max(1, ...[...byColumn.values()].map((nodes) => nodes.length));
  // Sigma fits the drawing to the canvas: tall columns would make the nodes overlap, so they shrink.
  const shrink = Math.min(1, 16 / tallest);
  for (const [column, nodes] of byColumn) {
    // Highest scores at the top of each column; a column is centred on the tallest one.
    nodes.sort((left, right) => (right.score ?? 0) - (left.score ?? 0) || (left.id < right.id ? -1 : 1));
    nodes.forEach((node, row) => {
      if (graph.hasNode(node.id)) return;
      const relative = (maxScore.get(node.kind) ?? 0) > 0 ? Math.abs(node.score ?? 0) / (maxScore.get(node.kind) as number) : 0.5;
      const text = node.label.length > 48 ? `${node.label.slice(0, 47)}…` : node.label;
      graph.addNode(node.id, {
        x: column * Math.max(4, tallest / 2),
        y: -(row - (nodes.length - 1) / 2) * 1.2,
        size: node.kind === 'query' ? 12 : (3 + 8 * relative) * shrink + 1,
        label: text,
        color: kindColour(node.kind),
        kind: node.kind,
        forceLabel: node.kind === 'query' || topIds.has(node.id),
      });
    });
  }
  for (const edge of subgraph.edges) {
    if (edge.source === edge.target || !graph.hasNode(edge.source) || !graph.hasNode(edge.target)) continue;
    graph.mergeEdge(edge.source, edge.target, { size: 1, color: '#cfcfcf', label: edge.kind });
  }
  return graph;
}

/** A query's retrieved subgraph drawn with sigma: layered from the query, coloured by kind, sized by score. */
export function SubgraphCanvas({ subgraph, method, onDrawn, active = true, labelled = 8, testId = 'subgraph-canvas' }: Props) {
  const explorer = useExplorer();
  const container = useRef<HTMLDivElement>(null);
  const renderer = useRef<Sigma<NodeAttributes> | undefined>(undefined);
  const drawn = useRef(onDrawn);
  drawn.current = onDrawn;
  const inspect = useRef(explorer.inspect);
  inspect.current = explorer.inspect;
  const kinds = useMemo(() => {
    const counts = new Map<string, number>();
    for (const node of subgraph.nodes) counts.set(node.kind, (counts.get(node.kind) ?? 0) + 1);
    return [...counts];
  }, [subgraph]);

  useEffect(() => {
    if (!container.current) return;
    const graph = buildGraph(subgraph, labelled);
    const nodeOf = new Map(subgraph.nodes.map((node) => [node.id, node]));
    const sigma = new Sigma<NodeAttributes>(graph, container.current, {
      allowInvalidContainer: true,
      labelRenderedSizeThreshold: 1000,
      renderEdgeLabels: false,
      defaultEdgeType: 'arrow',
      labelSize: 11,
      stagePadding: 40,
    });
    sigma.once('afterRender', () => {
      container.current?.setAttribute('data-drawn', String(graph.order));
      drawn.current?.();
    });
    sigma.on('clickNode', ({ node }) => {
      const found = nodeOf.get(node);
      const target = found && inspectTargetOf(method, found);
      if (target) inspect.current(target);
    });
    sigma.on('enterNode', ({ node }) => {
      const found = nodeOf.get(node);
      if (container.current) container.current.style.cursor = found && inspectTargetOf(method, found) ? 'pointer' : 'default';
    });
    sigma.on('leaveNode', () => {
      if (container.current) container.current.style.cursor = 'default';
    });
    renderer.current = sigma;
    // Sigma's constructor has rendered once already, before the listener above existed: render again so that
    // `onDrawn` hears of a render of this subgraph.
    sigma.refresh();
    return () => {
      sigma.kill();
      renderer.current = undefined;
    };
  }, [subgraph, method, labelled]);

  useEffect(() => {
    if (active) renderer.current?.resize().refresh();
  }, [active]);

  return (
    <div class="subgraph">
      <div class="subgraph-canvas" ref={container} data-testid={testId} aria-label="Retrieved subgraph" role="img" />
      <ul class="subgraph-legend" data-testid="subgraph-legend">
        {kinds.map(([kind, count]) => (
          <li>
            <span class="swatch" style={{ background: kindColour(kind) }} />
            {kind} ({count})
          </li>
        ))}
      </ul>
    </div>
  );
}
