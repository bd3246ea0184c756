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
  /** Labels drawn without hovering: the query and this many top-scored nodes of each kind. */
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
  // The nodes that matter are named: the top-scored of each kind (entities and passages alike), not the top of all.
  const topIds = new Set<string>();
  for (const kind of maxScore.keys()) {
    if (kind === 'query') continue;
    subgraph.nodes
      .filter((node) => node.kind === kind)
      .sort((left, right) => (right.score ?? 0) - (left.score ?? 0) || (left.id < right.id ? -1 : 1))
      .slice(0, labelled)
      .forEach((node) => topIds.add(node.id));
  }
  const byColumn = new Map<number, QuerySubgraph['nodes']>();
  for (const node of subgraph.nodes) {
    const column = columns.get(node.id) ?? 0;
    byColumn.set(column, [...(byColumn.get(column) ?? []), node]);
  }
  // A layer of more than `layerRows` nodes is laid out in several narrow columns, the highest scores in the first:
  // one column of 33 entities was a comb of dots too close to label.
  const layerRows = 12;
  const tallest = Math.min(layerRows, Math.max(1, ...[...byColumn.values()].map((nodes) => nodes.length)));
  const shrink = Math.min(1, 12 / tallest);
  const columnGap = 9;
  let x = 0;
  for (const column of [...byColumn.keys()].sort((left, right) => left - right)) {
    const nodes = byColumn.get(column) ?? [];
    nodes.sort((left, right) => (right.score ?? 0) - (left.score ?? 0) || (left.id < right.id ? -1 : 1));
    const subColumns = Math.ceil(nodes.length / layerRows);
    const rows = Math.min(layerRows, nodes.length);
    nodes.forEach((node, index) => {
      if (graph.hasNode(node.id)) return;
      const relative = (maxScore.get(node.kind) ?? 0) > 0 ? Math.abs(node.score ?? 0) / (maxScore.get(node.kind) as number) : 0.5;
      const text = node.label.length > 40 ? `${node.label.slice(0, 39)}…` : node.label;
      const subColumn = Math.floor(index / layerRows);
      const row = index % layerRows;
      graph.addNode(node.id, {
        // Sub-columns sit close, and rows alternate a little, so that the labels of neighbours do not meet.
        x: x + subColumn * 2.4,
        y: -(row - (rows - 1) / 2) * 1.2 - (subColumn % 2) * 0.6,
        size: node.kind === 'query' ? 12 : (3 + 8 * relative) * shrink + 1,
        label: text,
        color: kindColour(node.kind),
        kind: node.kind,
        forceLabel: node.kind === 'query' || topIds.has(node.id),
      });
    });
    x += (subColumns - 1) * 2.4 + columnGap;
  }
  for (const edge of subgraph.edges) {
    if (edge.source === edge.target || !graph.hasNode(edge.source) || !graph.hasNode(edge.target)) continue;
    graph.mergeEdge(edge.source, edge.target, { size: 1, color: '#cfcfcf', label: edge.kind });
  }
  return graph;
}

/**
 * Sigma's label drawer, but a label that would run past the canvas's right edge is drawn on the node's left: the
 * last layer's labels stay inside the frame.
 */
function drawLabelInside(context: CanvasRenderingContext2D, data: { x: number; y: number; size: number; label?: string | null; color: string }, settings: { labelSize: number; labelFont: string; labelWeight: string }): void {
  if (!data.label) return;
  context.fillStyle = '#222';
  context.font = `${settings.labelWeight} ${settings.labelSize}px ${settings.labelFont}`;
  const width = context.measureText(data.label).width;
  const canvasWidth = context.canvas.width / (window.devicePixelRatio || 1);
  const right = data.x + data.size + 3 + width > canvasWidth - 4;
  context.fillText(data.label, right ? data.x - data.size - 3 - width : data.x + data.size + 3, data.y + settings.labelSize / 3);
}

/** "0.05–0.43": the range of a kind's scores, for the legend's scale. */
function scoreRange(subgraph: QuerySubgraph, kind: string): string | undefined {
  const scores = subgraph.nodes.filter((node) => node.kind === kind && node.score !== undefined).map((node) => node.score as number);
  if (scores.length === 0) return undefined;
  const format = (value: number) => (Math.abs(value) >= 10 ? value.toFixed(0) : Math.abs(value) >= 1 ? value.toFixed(1) : value.toFixed(2));
  const low = Math.min(...scores);
  const high = Math.max(...scores);
  return low === high ? format(high) : `${format(low)}–${format(high)}`;
}

/** A query's retrieved subgraph drawn with sigma: layered from the query, coloured by kind, sized by score. */
export function SubgraphCanvas({ subgraph, method, onDrawn, active = true, labelled = 6, testId = 'subgraph-canvas' }: Props) {
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
      defaultDrawNodeLabel: drawLabelInside,
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
        {kinds.map(([kind, count]) => {
          const range = kind === 'query' ? undefined : scoreRange(subgraph, kind);
          return (
            <li>
              <span class="swatch" style={{ background: kindColour(kind) }} />
              {kind} ({count}){range && <span class="muted"> · score {range}</span>}
            </li>
          );
        })}
        <li class="muted">larger = higher score within its kind; the top {labelled} of each kind are named, the rest on hover</li>
      </ul>
    </div>
  );
}
