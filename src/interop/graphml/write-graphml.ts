import type { Store } from '../../store/store.js';
import { writeStreamedFile, type OutputSink } from '../shared/write-streamed-file.js';
import { escapeXml } from './escape-xml.js';

/** What {@link writeGraphml} wrote. */
export interface GraphmlExportSummary {
  file: string;
  /** One per entity. */
  nodes: number;
  /** One per relation. */
  edges: number;
  /** Community levels, each a pair of node attributes `community_L<k>` and `community_L<k>_title`. */
  levels: number;
}

/** Options of {@link writeGraphml}. */
export interface GraphmlExportOptions {
  signal?: AbortSignal;
}

type AttributeType = 'string' | 'int' | 'double';

interface GraphmlKey {
  /** The `<key id>` that `<data key>` names; unique over nodes and edges. */
  id: string;
  for: 'node' | 'edge';
  /** The attribute name tools show (networkx's dict key, Gephi's and Cytoscape's column). */
  name: string;
  type: AttributeType;
}

/** The community an entity belongs to at one level, as a node shows it. */
interface CommunityMark {
  hid: number;
  title: string;
}

const nodeKeys: readonly GraphmlKey[] = [
  // Gephi takes the node attribute named `label` as the node's label and the edge attribute `weight` as its weight.
  { id: 'label', for: 'node', name: 'label', type: 'string' },
  { id: 'type', for: 'node', name: 'type', type: 'string' },
  { id: 'description', for: 'node', name: 'description', type: 'string' },
  { id: 'aliases', for: 'node', name: 'aliases', type: 'string' },
  { id: 'hid', for: 'node', name: 'hid', type: 'int' },
  { id: 'degree', for: 'node', name: 'degree', type: 'int' },
  { id: 'frequency', for: 'node', name: 'frequency', type: 'int' },
];

const edgeKeys: readonly GraphmlKey[] = [
  { id: 'weight', for: 'edge', name: 'weight', type: 'double' },
  { id: 'edge_description', for: 'edge', name: 'description', type: 'string' },
  { id: 'edge_keywords', for: 'edge', name: 'keywords', type: 'string' },
  { id: 'edge_hid', for: 'edge', name: 'hid', type: 'int' },
];

/**
 * Writes the entity graph of an index as GraphML (for Gephi, Cytoscape, networkx, igraph): a node per entity
 * (`id` = kgrag's entity id) with its title as `label`, and an undirected edge per relation (kgrag keeps one
 * relation per entity pair; `source`/`target` are as stored). Each community level `k` adds two node attributes:
 * `community_L<k>`, the integer `hid` of the entity's community at that level — the number the same community has
 * in the Neo4j export and in the index, and an integer partition that Gephi's "Partition" colouring, Cytoscape's
 * discrete mappings and networkx all take as it is — and `community_L<k>_title`, its report's title (else the
 * community's), for a legend that says what each colour is about. An entity in no community at a level (a deeper
 * level splits only large communities) has neither attribute there, as an empty description or keyword list is
 * left out rather than written empty. Rows are written in index order, so the same index gives the same bytes.
 */
export async function writeGraphml(store: Store, file: string, options: GraphmlExportOptions = {}): Promise<GraphmlExportSummary> {
  const entities = await store.table('entities').pick(['id', 'title', 'type', 'description', 'aliases', 'degree', 'frequency']);
  const relations = await store.table('relations').pick(['id', 'source', 'target', 'weight', 'description', 'keywords']);
  const { levels, marks } = await communityMarks(store);
  const communityKeys = levels.flatMap((level): GraphmlKey[] => [
    { id: `community_L${level}`, for: 'node', name: `community_L${level}`, type: 'int' },
    { id: `community_L${level}_title`, for: 'node', name: `community_L${level}_title`, type: 'string' },
  ]);

  await writeStreamedFile(
    file,
    'the GraphML export',
    async (sink) => {
      await sink.write(
        '<?xml version="1.0" encoding="UTF-8"?>\n' +
          '<graphml xmlns="http://graphml.graphdrawing.org/xmlns" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" ' +
          'xsi:schemaLocation="http://graphml.graphdrawing.org/xmlns http://graphml.graphdrawing.org/xmlns/1.0/graphml.xsd">\n',
      );
      for (const key of [...nodeKeys, ...communityKeys, ...edgeKeys]) {
        await sink.write(`  <key id="${escapeXml(key.id, true)}" for="${key.for}" attr.name="${escapeXml(key.name, true)}" attr.type="${key.type}"/>\n`);
      }
      await sink.write('  <graph id="kgrag" edgedefault="undirected">\n');
      for (const entity of entities) {
        await sink.write(`    <node id="${escapeXml(entity.id, true)}">\n`);
        await writeData(sink, 'label', entity.title);
        await writeData(sink, 'type', entity.type);
        await writeData(sink, 'description', entity.description);
        await writeData(sink, 'aliases', entity.aliases.join('; '));
        await writeData(sink, 'hid', entity.hid);
        await writeData(sink, 'degree', entity.degree);
        await writeData(sink, 'frequency', entity.frequency);
        for (const [index, level] of levels.entries()) {
          const mark = marks[index]?.get(entity.id);
          await writeData(sink, `community_L${level}`, mark?.hid);
          await writeData(sink, `community_L${level}_title`, mark?.title);
        }
        await sink.write('    </node>\n');
      }
      for (const relation of relations) {
        await sink.write(`    <edge id="${escapeXml(relation.id, true)}" source="${escapeXml(relation.source, true)}" target="${escapeXml(relation.target, true)}">\n`);
        await writeData(sink, 'weight', relation.weight);
        await writeData(sink, 'edge_description', relation.description);
        await writeData(sink, 'edge_keywords', relation.keywords.join('; '));
        await writeData(sink, 'edge_hid', relation.hid);
        await sink.write('    </edge>\n');
      }
      await sink.write('  </graph>\n</graphml>\n');
    },
    options.signal,
  );
  return { file, nodes: entities.length, edges: relations.length, levels: levels.length };
}

/** One `<data>` element; an absent value, an empty text or a number GraphML cannot spell (NaN, ±∞) is left out. */
async function writeData(sink: OutputSink, key: string, value: string | number | undefined): Promise<void> {
  if (value === undefined || value === '' || (typeof value === 'number' && !Number.isFinite(value))) return;
  await sink.write(`      <data key="${key}">${typeof value === 'number' ? String(value) : escapeXml(value)}</data>\n`);
}

/**
 * The community levels of the index, ascending, and per level the community of each member entity. A level is a
 * partition, so an entity has at most one community per level; were an imported index to list one twice, the
 * first community in index order keeps it, so the export stays deterministic.
 */
async function communityMarks(store: Store): Promise<{ levels: number[]; marks: Array<Map<string, CommunityMark>> }> {
  const communities = await store.table('communities').pick(['id', 'level', 'title', 'entityIds']);
  const reportTitles = new Map((await store.table('reports').pick(['communityId', 'title'])).map((report) => [report.communityId, report.title]));
  const levels = [...new Set(communities.map((community) => community.level))].sort((a, b) => a - b);
  const marks = levels.map(() => new Map<string, CommunityMark>());
  for (const community of communities) {
    const members = marks[levels.indexOf(community.level)];
    // The communities table keeps row numbers (schema: `hid: true`), so every row read has one.
    const mark: CommunityMark = { hid: community.hid as number, title: reportTitles.get(community.id) || community.title };
    for (const entityId of community.entityIds) if (members !== undefined && !members.has(entityId)) members.set(entityId, mark);
  }
  return { levels, marks };
}
