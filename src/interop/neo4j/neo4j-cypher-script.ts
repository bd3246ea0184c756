import type { Neo4jFile, Neo4jProperty } from './neo4j-file.js';
import { neo4jArrayDelimiter, neo4jHeader } from './write-neo4j-csv.js';

/** Rows per transaction of each LOAD CSV: small enough for a default heap, large enough to load 10⁵ rows in seconds. */
const rowsPerTransaction = 1000;

/**
 * The Cypher script that builds the same graph from the same CSV files in a running database (`cypher-shell -f`):
 * a uniqueness constraint on `id` per label first (which also indexes the lookups the relationship statements
 * make), then one `LOAD CSV` per file, nodes before relationships, each batched with `CALL (row) { … } IN
 * TRANSACTIONS`. Columns are read by their header names, back-quoted (`row.\`hid:int\``), and converted as the
 * header's type says. MERGE rather than CREATE, so running the script again changes nothing.
 */
export function neo4jCypherScript(files: readonly Neo4jFile[]): string {
  const statements = [
    `// A kgrag index for Neo4j 5.23 or later. Copy the CSV files of this folder into the database's import folder, then:\n// cypher-shell -u neo4j -p <password> -d neo4j -f import.cypher`,
    ...neo4jConstraints(files),
    ...files.map(loadStatement),
  ];
  return `${statements.join('\n\n')}\n`;
}

/** One uniqueness constraint per node label, named `kgrag_<label>_id`. */
export function neo4jConstraints(files: readonly Neo4jFile[]): string[] {
  return files
    .filter((file) => file.kind === 'nodes')
    .map((file) => `CREATE CONSTRAINT kgrag_${file.label.toLowerCase()}_id IF NOT EXISTS FOR (n:${file.label}) REQUIRE n.id IS UNIQUE;`);
}

function loadStatement(file: Neo4jFile): string {
  const header = neo4jHeader(file);
  const column = (index: number): string => `row.${backquoted(header[index] ?? '')}`;
  // Properties follow the id column of a node file and the two id columns of a relationship file.
  const first = file.kind === 'nodes' ? 1 : 2;
  const assignments = file.properties.map((property, index) => `    ${backquoted(property.name)}: ${converted(property, column(first + index))}`);
  const variable = file.kind === 'nodes' ? 'n' : 'r';
  const set = assignments.length === 0 ? [] : [`  SET ${variable} += {\n${assignments.join(',\n')}\n  }`];
  const body =
    file.kind === 'nodes'
      ? [`  MERGE (n:${file.label} {id: ${column(0)}})`]
      : [
          `  MATCH (a:${file.start} {id: ${column(0)}})`,
          `  MATCH (b:${file.end} {id: ${column(1)}})`,
          `  MERGE (a)-[r:${file.type}]->(b)`,
        ];
  return [
    `// ${file.kind === 'nodes' ? `${file.label} nodes` : `${file.type} relationships`} (${file.file})`,
    `LOAD CSV WITH HEADERS FROM 'file:///${file.file}' AS row`,
    'CALL (row) {',
    ...body,
    ...set,
    `} IN TRANSACTIONS OF ${rowsPerTransaction} ROWS;`,
  ].join('\n');
}

function converted(property: Neo4jProperty, value: string): string {
  switch (property.type) {
    case 'int':
      return `toInteger(${value})`;
    case 'double':
      return `toFloat(${value})`;
    case 'string[]':
      return `split(${value}, '${neo4jArrayDelimiter}')`;
    case 'string':
      return value;
  }
}

function backquoted(name: string): string {
  return `\`${name.replaceAll('`', '``')}\``;
}
