import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { SyntaxKind, computeLineStarts, skipTrivia, type Node, type SourceFile } from 'typescript/unstable/ast';
import { API } from 'typescript/unstable/sync';

/*
 * The library facade stays a set of small services: no function in src/api/ (a declaration, method, accessor, arrow
 * or function expression, from its first line to its last) may grow past 250 lines. This keeps the split of
 * createKgrag into a workspace session and its index, query, interop and worker services (issue 37). The syntax
 * trees come from the TypeScript 7 compiler's API, as in test/no-spread-arguments.test.ts.
 */

const root = fileURLToPath(new URL('..', import.meta.url));
const maxLines = 250;
const functionKinds = new Set<SyntaxKind>([
  SyntaxKind.FunctionDeclaration,
  SyntaxKind.FunctionExpression,
  SyntaxKind.ArrowFunction,
  SyntaxKind.MethodDeclaration,
  SyntaxKind.Constructor,
  SyntaxKind.GetAccessor,
  SyntaxKind.SetAccessor,
]);

const api = new API({ cwd: root });
after(() => api.close());

/** Every function of a file, named by its file and first line, with its length in lines. */
function functionLengths(source: SourceFile, file: string): Array<{ name: string; lines: number }> {
  const lineStarts = computeLineStarts(source.text);
  const lineAt = (position: number): number => {
    let line = 0;
    while (line + 1 < lineStarts.length && (lineStarts[line + 1] as number) <= position) line++;
    return line + 1;
  };
  const found: Array<{ name: string; lines: number }> = [];
  const visit = (node: Node): void => {
    if (functionKinds.has(node.kind)) {
      const first = lineAt(skipTrivia(source.text, node.pos));
      found.push({ name: `${file}:${first}`, lines: lineAt(node.end) - first + 1 });
    }
    node.forEachChild(visit);
  };
  source.forEachChild(visit);
  return found;
}

test(`no function in src/api/ is longer than ${maxLines} lines`, () => {
  const project = api.updateSnapshot({ openProject: `${root}tsconfig.json` }).getProject(`${root}tsconfig.json`);
  assert.ok(project, 'tsconfig.json opens as a project');
  const files = project.program.getSourceFileNames().filter((name) => name.startsWith(`${root}src/api/`) && !name.endsWith('.test.ts'));
  assert.ok(files.length > 20, `the project lists the files of src/api (${files.length})`);
  const lengths = files.flatMap((file) => {
    const source = project.program.getSourceFile(file);
    assert.ok(source, `${file} is part of the program`);
    return functionLengths(source, file.slice(root.length));
  });
  assert.ok(lengths.length > 100, `found the functions of src/api (${lengths.length})`);
  const longest = lengths.reduce((best, entry) => (entry.lines > best.lines ? entry : best));
  const tooLong = lengths.filter((entry) => entry.lines > maxLines).map((entry) => `${entry.name} (${entry.lines} lines)`);
  assert.deepEqual(tooLong, [], `split these functions; the longest is ${longest.name} (${longest.lines} lines)`);
});
