import Graph from 'graphology';
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import Sigma from 'sigma';
import { ApiError } from '../api-client';
import type { GraphNode, GraphSlice } from '../api-types';
import { CommunityLegend } from '../components/community-legend';
import { EntitySearch } from '../components/entity-search';
import { type GraphHighlight, useExplorer } from '../explorer-context';
import { communityColours, neutralColour } from '../graph-colors';

/** The steps of "show more" (the view starts with the server's default slice, which it prepares ahead). */
const sizes = [1000, 2000] as const;

interface NodeAttributes {
  x: number;
  y: number;
  size: number;
  label: string;
  color: string;
  entityType: string;
  degree: number;
  communities: string[];
}

interface Props {
  active: boolean;
  highlight: GraphHighlight | undefined;
  expansion: { entityId: string; request: number } | undefined;
}

/**
 * The entity graph: the top entities by degree (more on demand), placed by the server's ForceAtlas2 layout, coloured
 * by community at a chosen level and sized by degree; search, filters by type and community, neighbours on demand.
 */
export function GraphView({ active, highlight, expansion }: Props) {
  const explorer = useExplorer();
  const container = useRef<HTMLDivElement>(null);
  const sigma = useRef<Sigma<NodeAttributes> | undefined>(undefined);
  const graph = useMemo(() => new Graph<NodeAttributes>({ type: 'undirected', multi: false }), []);
  // Undefined: the server's default slice.
  const [top, setTop] = useState<number | undefined>();
  const [slice, setSlice] = useState<GraphSlice | undefined>();
  const [error, setError] = useState<string | undefined>();
  const [level, setLevel] = useState(0);
  const [hiddenTypes, setHiddenTypes] = useState<ReadonlySet<string>>(new Set());
  const [community, setCommunity] = useState<string | undefined>();
  const [selected, setSelected] = useState<string | undefined>();
  const [hovered, setHovered] = useState<string | undefined>();
  const [version, setVersion] = useState(0);
  // What the frame description reads: kept in a ref so that sigma's listener, registered once, sees the current values.
  const frameFacts = useRef<FrameFacts>({ focus: undefined, emphasised: undefined });

  useEffect(() => {
    let current = true;
    setError(undefined);
    explorer.api
      .graph(top === undefined ? { layout: true } : { top, maxEdges: top * 5, layout: true })
      .then((loaded) => current && setSlice(loaded))
      .catch((failure: unknown) => {
        if (!current) return;
        // A workspace nothing was indexed into yet has no graph: shown as empty, with what to do.
        if (failure instanceof ApiError && failure.problem.code === 'STORE_NO_INDEX') setSlice({ nodes: [], edges: [], truncated: false });
        else setError(failure instanceof Error ? failure.message : String(failure));
      });
    return () => {
      current = false;
    };
  }, [explorer.api, explorer.generation, top]);

  // The slice replaces the graph; nodes added by expansion or search are kept when they are still in the index.
  useEffect(() => {
    if (!slice) return;
    graph.clear();
    addSlice(graph, slice);
    setVersion((value) => value + 1);
  }, [slice, graph]);

  const levels = useMemo(() => {
    let deepest = 0;
    graph.forEachNode((_node, attributes) => {
      deepest = Math.max(deepest, attributes.communities.length);
    });
    return Array.from({ length: deepest }, (_, index) => index);
  }, [graph, version]);

  const types = useMemo(() => {
    const counts = new Map<string, number>();
    graph.forEachNode((_node, attributes) => counts.set(attributes.entityType, (counts.get(attributes.entityType) ?? 0) + 1));
    return [...counts].sort((left, right) => right[1] - left[1]);
  }, [graph, version]);

  const communitySizes = useMemo(() => {
    const counts = new Map<string, number>();
    graph.forEachNode((_node, attributes) => {
      const id = attributes.communities[level];
      if (id !== undefined) counts.set(id, (counts.get(id) ?? 0) + 1);
    });
    return counts;
  }, [graph, version, level]);

  const colours = useMemo(() => communityColours(communitySizes), [communitySizes]);

  // Names for the community filter: report titles where there are reports.
  const [communityTitles, setCommunityTitles] = useState<ReadonlyMap<string, string>>(new Map());
  useEffect(() => {
    if (levels.length === 0) return;
    let current = true;
    explorer.api
      .communities({ level, limit: 1000 })
      .then((page) => current && setCommunityTitles(new Map(page.communities.map((entry) => [entry.id, entry.report?.title ?? entry.title]))))
      .catch(() => current && setCommunityTitles(new Map()));
    return () => {
      current = false;
    };
  }, [explorer.api, explorer.generation, level, levels.length]);

  // Colour by community at the chosen level.
  useEffect(() => {
    graph.updateEachNodeAttributes((_node, attributes) => {
      const id = attributes.communities[level];
      return { ...attributes, color: id === undefined ? neutralColour : (colours.get(id) ?? neutralColour) };
    });
    sigma.current?.refresh();
  }, [graph, colours, level, version]);

  // One renderer for the view's life; sigma reads the graph as it changes.
  useEffect(() => {
    if (!container.current || sigma.current || graph.order === 0) return;
    const renderer = new Sigma<NodeAttributes>(graph, container.current, {
      renderEdgeLabels: false,
      // Thousands of edges and labels redrawn at every step of a drag or zoom make it stutter (10 frames/s with 2,000
      // entities in software WebGL): they are drawn again when the camera stops.
      hideEdgesOnMove: true,
      hideLabelsOnMove: true,
      labelRenderedSizeThreshold: 8,
      defaultEdgeColor: '#d9d9d9',
      zIndex: true,
      allowInvalidContainer: true,
    });
    // sigma draws the graph inside its constructor (synchronously): it is drawn now.
    if (graph.order > 0) {
      performance.mark('kgrag:graph-drawn');
      container.current.setAttribute('data-drawn', String(graph.order));
    }
    // What the last frame showed, for the browser tests and for anyone inspecting the page: how many labels, whether
    // edges were drawn (sigma leaves them out while the camera moves), and how many of the emphasised nodes are in
    // the viewport.
    renderer.on('afterRender', () => describeFrame(renderer, graph, container.current, frameFacts.current));
    renderer.on('clickNode', ({ node }) => {
      setSelected(node);
      explorer.inspect({ kind: 'entity', id: node });
    });
    renderer.on('clickStage', () => setSelected(undefined));
    renderer.on('enterNode', ({ node }) => setHovered(node));
    renderer.on('leaveNode', () => setHovered(undefined));
    sigma.current = renderer;
  }, [graph, version]);

  useEffect(() => () => sigma.current?.kill(), []);

  // A hidden container has no size, and another view may have changed the width it will have (the side panel):
  // sigma measures again when the view is shown, and draws again — resizing clears its canvases.
  useEffect(() => {
    if (!active) return;
    sigma.current?.resize();
    sigma.current?.refresh();
  }, [active]);

  // What is shown: type and community filters; selection, hover and highlight emphasise nodes and their edges.
  useEffect(() => {
    const renderer = sigma.current;
    if (!renderer) return;
    const focus = hovered ?? selected;
    const focusNeighbours = focus !== undefined && graph.hasNode(focus) ? new Set(graph.neighbors(focus)) : undefined;
    const emphasised = highlight?.entityIds;
    frameFacts.current = { focus, emphasised };
    renderer.setSetting('nodeReducer', (node, data) => {
      const shown = { ...data } as Partial<NodeAttributes> & { hidden?: boolean; highlighted?: boolean; zIndex?: number; forceLabel?: boolean };
      if (hiddenTypes.has(data.entityType) || (community !== undefined && data.communities[level] !== community)) shown.hidden = true;
      const dimmed = (focusNeighbours !== undefined && node !== focus && !focusNeighbours.has(node)) || (emphasised !== undefined && !emphasised.has(node));
      if (dimmed) {
        shown.color = '#eeeeee';
        shown.label = '';
        shown.zIndex = 0;
      } else shown.zIndex = 1;
      // Sigma draws a highlighted node's label box even when the label is blanked: only what is not dimmed is.
      if (!dimmed && (node === focus || emphasised?.has(node))) shown.highlighted = true;
      // The focused entity's neighbours are what the user asked to see (an expansion adds them small, below the size
      // that earns a label): they are named at any zoom.
      if (!dimmed && focus !== undefined && (node === focus || focusNeighbours?.has(node) === true)) shown.forceLabel = true;
      return shown;
    });
    renderer.setSetting('edgeReducer', (edge, data) => {
      const [source, target] = graph.extremities(edge);
      const touchesFocus = focus !== undefined && (source === focus || target === focus);
      const inHighlight = emphasised !== undefined && emphasised.has(source) && emphasised.has(target);
      if ((focus !== undefined && !touchesFocus) || (emphasised !== undefined && !inHighlight)) return { ...data, hidden: true };
      return touchesFocus || inHighlight ? { ...data, color: '#666666', size: 2 } : data;
    });
  }, [graph, version, hiddenTypes, community, level, selected, hovered, highlight]);

  // "Expand neighbours" from the entity panel.
  useEffect(() => {
    if (!expansion) return;
    void expand(expansion.entityId);
  }, [expansion?.request]);

  async function expand(entityId: string): Promise<void> {
    try {
      const neighbourhood = await explorer.api.neighbours(entityId, { depth: 1, limit: 40 });
      placeAround(graph, entityId, neighbourhood);
      setVersion((value) => value + 1);
      setSelected(entityId);
      // The neighbours asked for take the place of a highlight, which would dim those outside it.
      if (highlight) explorer.highlight(undefined);
      // The neighbours asked for are framed with the entity, not left beyond the edge of the view.
      const renderer = sigma.current;
      const target = renderer && framing(renderer, graph, [entityId, ...neighbourhood.nodes.map((node) => node.id)]);
      if (renderer && target) await moveCamera(renderer, { ...target, ratio: Math.min(target.ratio, 1) });
    } catch (failure) {
      setError(failure instanceof Error ? failure.message : String(failure));
    }
  }

  async function focusOn(entityId: string): Promise<void> {
    const renderer = sigma.current;
    if (!renderer || !graph.hasNode(entityId)) return;
    const centre = renderer.viewportToFramedGraph(renderer.graphToViewport(graph.getNodeAttributes(entityId)));
    await moveCamera(renderer, { x: centre.x, y: centre.y, ratio: 0.4 });
  }

  // A new highlight (a community's members, a query's entities) is framed once, when its members are on the graph
  // and the view is shown: the camera may be on another entity.
  const framed = useRef<GraphHighlight | undefined>(undefined);
  useEffect(() => {
    const renderer = sigma.current;
    if (!renderer || !highlight || !active || framed.current === highlight) return;
    const target = framing(renderer, graph, highlight.entityIds);
    if (!target) return;
    framed.current = highlight;
    // The highlight takes the place of the entity focused before: it would dim every member that is not its neighbour.
    setSelected(undefined);
    void moveCamera(renderer, target);
  }, [highlight, active, version]);

  async function choose(entityId: string): Promise<void> {
    explorer.inspect({ kind: 'entity', id: entityId });
    if (!graph.hasNode(entityId)) await expand(entityId);
    else {
      setSelected(entityId);
      await focusOn(entityId);
    }
  }

  // The next size, while the index has entities the slice left out.
  const more = slice !== undefined && slice.nodes.length < (explorer.stats?.counts.entities ?? 0) ? sizes.find((size) => size > slice.nodes.length) : undefined;
  const shownHighlight = highlight ? [...highlight.entityIds].filter((id) => graph.hasNode(id)).length : 0;
  const empty = slice !== undefined && slice.nodes.length === 0;
  return (
    <div class="graph-view">
      <div class="toolbar">
        <EntitySearch onChoose={(id) => void choose(id)} />
        {levels.length > 0 && (
          <label>
            Communities at level{' '}
            <select aria-label="Community level" value={level} onChange={(event) => {
              setLevel(Number(event.currentTarget.value));
              setCommunity(undefined);
            }}>
              {levels.map((value) => (
                <option value={value}>{value}</option>
              ))}
            </select>
          </label>
        )}
        {communitySizes.size > 0 && (
          <select aria-label="Show one community" value={community ?? ''} onChange={(event) => setCommunity(event.currentTarget.value || undefined)}>
            <option value="">All communities</option>
            {[...communitySizes].sort((left, right) => right[1] - left[1]).map(([id, size]) => (
              <option value={id}>
                {communityTitles.get(id) ?? id} ({size} shown)
              </option>
            ))}
          </select>
        )}
        <details class="type-filter">
          <summary>Types ({types.length - hiddenTypes.size}/{types.length})</summary>
          {types.map(([type, count]) => (
            <label>
              <input
                type="checkbox"
                checked={!hiddenTypes.has(type)}
                onChange={(event) => {
                  const next = new Set(hiddenTypes);
                  if (event.currentTarget.checked) next.delete(type);
                  else next.add(type);
                  setHiddenTypes(next);
                }}
              />
              {type || 'untyped'} ({count})
            </label>
          ))}
        </details>
        <span class="muted" data-testid="graph-size">
          {graph.order} entities, {graph.size} relations shown{slice?.truncated ? ' (top by degree)' : ''}
        </span>
        {more !== undefined && (
          <button data-testid="graph-more" onClick={() => setTop(more)}>
            Show more
          </button>
        )}
        {highlight && (
          <span class="highlight-note" data-testid="graph-highlight">
            {highlight.label}: {shownHighlight} of {highlight.entityIds.size} on the graph{' '}
            <button class="link" onClick={() => explorer.highlight(undefined)}>
              clear
            </button>
          </span>
        )}
      </div>
      {error && <p class="error" role="alert">{error}</p>}
      {empty && <p class="empty">No entities yet: add documents in the Documents view, and they appear here when their index job ends.</p>}
      {!slice && !error && <p class="loading">Laying out the graph…</p>}
      <div class="graph-stage">
        <div class="sigma" ref={container} data-testid="graph-canvas" />
        <CommunityLegend sizes={communitySizes} colours={colours} titles={communityTitles} level={level} chosen={community} onChoose={setCommunity} />
      </div>
    </div>
  );
}

function nodeAttributes(node: GraphNode, maxDegree: number, x: number, y: number): NodeAttributes {
  return {
    x,
    y,
    size: 2 + 10 * Math.sqrt(node.degree / Math.max(1, maxDegree)),
    label: node.title,
    color: neutralColour,
    entityType: node.type,
    degree: node.degree,
    communities: node.communities ?? [],
  };
}

function addSlice(graph: Graph<NodeAttributes>, slice: GraphSlice): void {
  const maxDegree = slice.nodes.reduce((most, node) => Math.max(most, node.degree), 1);
  slice.nodes.forEach((node, index) => {
    // The server lays the slice out; without positions (an older server), a spiral keeps nodes apart.
    const angle = index * 2.399963;
    graph.mergeNode(node.id, nodeAttributes(node, maxDegree, node.x ?? Math.sqrt(index) * Math.cos(angle), node.y ?? Math.sqrt(index) * Math.sin(angle)));
  });
  for (const edge of slice.edges) if (graph.hasNode(edge.source) && graph.hasNode(edge.target) && !graph.hasEdge(edge.source, edge.target)) graph.addEdge(edge.source, edge.target, { size: 0.5 + Math.min(3, Math.log1p(edge.weight)) });
}

/** Adds a neighbourhood: nodes already drawn keep their place, new ones go on a circle around the entity. */
function placeAround(graph: Graph<NodeAttributes>, centre: string, neighbourhood: GraphSlice): void {
  const maxDegree = graph.reduceNodes((most, _node, attributes) => Math.max(most, attributes.degree), 1);
  let extent = 1;
  graph.forEachNode((_node, attributes) => {
    extent = Math.max(extent, Math.abs(attributes.x), Math.abs(attributes.y));
  });
  const origin = graph.hasNode(centre) ? graph.getNodeAttributes(centre) : { x: 0, y: 0 };
  const fresh = neighbourhood.nodes.filter((node) => !graph.hasNode(node.id));
  fresh.forEach((node, index) => {
    const radius = node.id === centre ? 0 : extent * 0.08;
    const angle = (2 * Math.PI * index) / Math.max(1, fresh.length);
    graph.addNode(node.id, nodeAttributes(node, maxDegree, origin.x + radius * Math.cos(angle), origin.y + radius * Math.sin(angle)));
  });
  for (const edge of neighbourhood.edges) if (graph.hasNode(edge.source) && graph.hasNode(edge.target) && !graph.hasEdge(edge.source, edge.target)) graph.addEdge(edge.source, edge.target, { size: 0.5 + Math.min(3, Math.log1p(edge.weight)) });
}

/** What {@link describeFrame} reports on besides the frame itself. */
interface FrameFacts {
  focus: string | undefined;
  emphasised: ReadonlySet<string> | undefined;
}

/**
 * Writes what sigma's last frame showed on the graph's container: `data-camera` ("x,y,ratio"), `data-labels` (labels
 * drawn), `data-edges-drawn`,
 * `data-focus-labelled` ("k/n": the focused entity's neighbours with a label) and `data-highlight-in-view` ("k/n": the
 * emphasised entities inside the viewport).
 */
function describeFrame(renderer: Sigma<NodeAttributes>, graph: Graph<NodeAttributes>, element: HTMLElement | null, facts: FrameFacts): void {
  if (!element) return;
  const labelled = renderer.getNodeDisplayedLabels();
  const camera = renderer.getCamera();
  const hideEdges = renderer.getSetting('hideEdgesOnMove') && camera.isAnimated();
  const state = camera.getState();
  element.dataset.camera = `${state.x.toFixed(3)},${state.y.toFixed(3)},${state.ratio.toFixed(3)}`;
  element.dataset.labels = String(labelled.size);
  element.dataset.edgesDrawn = String(graph.size > 0 && !hideEdges);
  if (facts.focus !== undefined && graph.hasNode(facts.focus)) {
    const neighbours = graph.neighbors(facts.focus);
    element.dataset.focusLabelled = `${neighbours.filter((node) => labelled.has(node)).length}/${neighbours.length}`;
  } else delete element.dataset.focusLabelled;
  if (facts.emphasised !== undefined) {
    const { width, height } = renderer.getDimensions();
    let onGraph = 0;
    let inView = 0;
    for (const node of facts.emphasised) {
      const data = renderer.getNodeDisplayData(node);
      if (!data) continue;
      onGraph++;
      const point = renderer.framedGraphToViewport(data);
      if (point.x >= 0 && point.x <= width && point.y >= 0 && point.y <= height) inView++;
    }
    element.dataset.highlightInView = `${inView}/${onGraph}`;
  } else delete element.dataset.highlightInView;
}

/**
 * Animates the camera, then draws once more: sigma leaves edges and labels out of the frames drawn while the camera
 * moves (`hideEdgesOnMove`, `hideLabelsOnMove`), and its last animation frame still counts as moving.
 */
async function moveCamera(renderer: Sigma<NodeAttributes>, state: { x: number; y: number; ratio: number }): Promise<void> {
  await renderer.getCamera().animate(state, { duration: 400 });
  renderer.refresh({ skipIndexation: true });
}

/**
 * The camera state that shows every one of `ids` on the graph, with a margin; undefined when none is on it. Measured
 * in the viewport from the graph's own coordinates: sigma's cached display data is only normalized at its next frame.
 */
function framing(renderer: Sigma<NodeAttributes>, graph: Graph<NodeAttributes>, ids: Iterable<string>): { x: number; y: number; ratio: number } | undefined {
  let minX = Number.POSITIVE_INFINITY;
  let maxX = Number.NEGATIVE_INFINITY;
  let minY = Number.POSITIVE_INFINITY;
  let maxY = Number.NEGATIVE_INFINITY;
  for (const id of ids) {
    if (!graph.hasNode(id)) continue;
    const point = renderer.graphToViewport(graph.getNodeAttributes(id));
    minX = Math.min(minX, point.x);
    maxX = Math.max(maxX, point.x);
    minY = Math.min(minY, point.y);
    maxY = Math.max(maxY, point.y);
  }
  if (minX > maxX) return undefined;
  const { width, height } = renderer.getDimensions();
  const centre = renderer.viewportToFramedGraph({ x: (minX + maxX) / 2, y: (minY + maxY) / 2 });
  // The share of the viewport the members span now, with two fifths more as margin for the labels, scales the current zoom.
  const span = Math.max((maxX - minX) / Math.max(1, width), (maxY - minY) / Math.max(1, height));
  const ratio = Math.min(1.2, Math.max(0.05, renderer.getCamera().ratio * Math.max(0.1, span) * 1.4));
  return { x: centre.x, y: centre.y, ratio };
}
