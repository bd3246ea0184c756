import { neo4jConstraints } from './neo4j-cypher-script.js';
import type { Neo4jFile } from './neo4j-file.js';
import { neo4jArrayDelimiter } from './write-neo4j-csv.js';

/** A written file of the export and its number of rows. */
export interface Neo4jWrittenFile {
  spec: Neo4jFile;
  rows: number;
}

/**
 * The README.txt of a Neo4j export: what each file holds, the exact `neo4j-admin database import full` command
 * line for these files, and how to run `import.cypher` instead.
 */
export function neo4jImportReadme(written: readonly Neo4jWrittenFile[]): string {
  const list = (kind: Neo4jFile['kind']): string[] =>
    written
      .filter(({ spec }) => spec.kind === kind)
      .map(({ spec, rows }) => `  ${spec.file.padEnd(22)} ${String(rows).padStart(9)}  ${spec.kind === 'nodes' ? `:${spec.label}` : `(:${spec.start})-[:${spec.type}]->(:${spec.end})`}`);
  const options = written.map(({ spec }) => `--${spec.kind}=${spec.file}`);
  const command = ['neo4j-admin database import full', ...options, '--multiline-fields=true', `--array-delimiter="${neo4jArrayDelimiter}"`, '--id-type=string', 'neo4j'];
  return [
    'A kgrag index, exported for Neo4j 5 (5.23 or later for import.cypher).',
    '',
    'Nodes (file, rows, label):',
    ...list('nodes'),
    '',
    'Relationships (file, rows, pattern):',
    ...list('relationships'),
    '',
    'Every node has a unique string property `id` (its kgrag id) and `hid` (its row number in the kgrag index).',
    'kgrag relations are undirected: each RELATED relationship points from the relation\'s source to its target,',
    'so match it as (a)-[:RELATED]-(b). Texts keep their line breaks: the import needs --multiline-fields=true.',
    '',
    '1. Bulk import into a new database (fastest; the database must not be running). In this folder run:',
    '',
    `  ${command.join(' \\\n    ')}`,
    '',
    '   (add --overwrite-destination=true to replace an existing database of that name), start the database,',
    '   then create the uniqueness constraints in cypher-shell:',
    '',
    ...neo4jConstraints(written.map(({ spec }) => spec)).map((statement) => `  ${statement}`),
    '',
    '2. Or load into a running database: copy the CSV files into its import folder (server.directories.import,',
    '   <NEO4J_HOME>/import by default) and run',
    '',
    '  cypher-shell -u neo4j -p <password> -d neo4j -f import.cypher',
    '',
    '   In Neo4j Browser, prefix each LOAD CSV statement with :auto (CALL … IN TRANSACTIONS needs its own transactions).',
    '',
  ].join('\n');
}
