import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { SyntaxKind, computeLineStarts, skipTrivia, type CallExpression, type Node, type NewExpression, type SourceFile } from 'typescript/unstable/ast';
import { API, ElementFlags, type Checker } from 'typescript/unstable/sync';

/*
 * No code may pass a list of unbounded length as call arguments: `f(...list)`, `Math.max(...list)`,
 * `target.push(...list)`, `f.apply(this, list)` put every element on the stack and throw "Maximum call stack
 * size exceeded" past ~120,000 of them (issue 16: the load, chunk and graph steps crashed that way on large
 * corpora). Use a list parameter (`contentId(kind, list)`), `appendAll`, `maxOf`/`minOf` or a loop instead.
 *
 * A spread is accepted when its length is fixed by the code: an array literal without spreads, or a tuple type
 * without rest elements. Anything else needs a `// bounded-spread: <why it is short>` comment on its line or
 * alone on the line above. Test files are not checked: their inputs are small by construction.
 *
 * The check reads the TypeScript 7 syntax trees and types through the compiler's API (it runs the compiler as a
 * child process), so it sees exactly what `tsc` sees.
 */

const root = fileURLToPath(new URL('..', import.meta.url));
const samplesFile = `${root}test/fixtures/spread-arguments/samples.ts`;
const checkedFolders = ['src/', 'bench/', 'scripts/'];
const optOut = /\/\/\s*bounded-spread:(.*)$/;

interface Finding {
  file: string;
  line: number;
  code: string;
}

let api: API | undefined;
let findings: Finding[] = [];

before(() => {
  api = new API({ cwd: root });
  const project = api.updateSnapshot({ openProject: `${root}tsconfig.json` }).getProject(`${root}tsconfig.json`);
  assert.ok(project, 'tsconfig.json opens as a project');
  const files = project.program.getSourceFileNames().filter((name) => {
    const local = name.startsWith(root) ? name.slice(root.length) : '';
    return name === samplesFile || (checkedFolders.some((folder) => local.startsWith(folder)) && !local.endsWith('.test.ts'));
  });
  assert.ok(files.length > 100, `the project lists the source files (${files.length})`);
  findings = files.flatMap((file) => {
    const source = project.program.getSourceFile(file);
    assert.ok(source, `${file} is part of the program`);
    return unboundedSpreads(source, project.checker).map((found) => ({ ...found, file: file.slice(root.length) }));
  });
});

after(() => api?.close());

test('the check flags spreads of lists into calls and accepts literals, fixed tuples and justified opt-outs', () => {
  const flagged = findings.filter((finding) => finding.file === 'test/fixtures/spread-arguments/samples.ts').map((finding) => finding.line);
  assert.deepEqual(flagged, markedLines(readFileSync(samplesFile, 'utf8')));
});

test('no code in src/, bench/ or scripts/ spreads an unbounded list into call arguments', () => {
  const found = findings.filter((finding) => finding.file !== 'test/fixtures/spread-arguments/samples.ts');
  assert.deepEqual(
    found.map((finding) => `${finding.file}:${finding.line}: ${finding.code}`),
    [],
    'pass the list itself (contentId(kind, list), appendAll(target, list), maxOf(list)), or, when it is provably short, say why with // bounded-spread: <reason>',
  );
});

/** The 1-based lines of the samples marked as to be flagged. */
function markedLines(text: string): number[] {
  return text.split('\n').flatMap((line, index) => (/(\/\/|\/\*) flagged\b/.test(line) ? [index + 1] : []));
}

/** Calls in `source` that pass a list of unbounded length as arguments, and have no justified opt-out. */
function unboundedSpreads(source: SourceFile, checker: Checker): Array<Omit<Finding, 'file'>> {
  const lineStarts = computeLineStarts(source.text);
  const lines = source.text.split('\n');
  const lineOf = (node: Node): number => {
    const start = skipTrivia(source.text, node.pos);
    let low = 0;
    let high = lineStarts.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if ((lineStarts[middle] as number) <= start) low = middle;
      else high = middle - 1;
    }
    return low + 1;
  };
  const justified = (line: number): boolean => {
    const own = optOut.exec(lines[line - 1] ?? '');
    const above = (lines[line - 2] ?? '').trim();
    const previous = above.startsWith('//') ? optOut.exec(above) : null;
    return [own, previous].some((match) => match !== null && (match[1] ?? '').trim().length > 0);
  };
  const found: Array<Omit<Finding, 'file'>> = [];
  const report = (node: Node): void => {
    const line = lineOf(node);
    if (!justified(line)) found.push({ line, code: source.text.slice(skipTrivia(source.text, node.pos), node.end).replace(/\s+/g, ' ').slice(0, 120) });
  };
  const visit = (node: Node): void => {
    if (node.kind === SyntaxKind.CallExpression || node.kind === SyntaxKind.NewExpression) {
      const call = node as CallExpression | NewExpression;
      const args = call.arguments ?? [];
      const spreadOfList = args.some((argument) => argument.kind === SyntaxKind.SpreadElement && !isFixedLength((argument as unknown as { expression: Node }).expression, checker));
      if (spreadOfList || passesArgumentList(call, checker)) report(node);
    }
    node.forEachChild(visit);
  };
  source.forEachChild(visit);
  return found;
}

/** Whether a spread expression's length is fixed by the code: a literal without spreads, or a closed tuple. */
function isFixedLength(expression: Node, checker: Checker): boolean {
  if (expression.kind === SyntaxKind.ArrayLiteralExpression) {
    const elements = (expression as unknown as { elements: readonly Node[] }).elements;
    return elements.every((element) => element.kind !== SyntaxKind.SpreadElement);
  }
  const type = checker.getTypeAtLocation(expression);
  if (type === undefined || !checker.isTupleType(type)) return false;
  const target = 'getTarget' in type && typeof type.getTarget === 'function' ? type.getTarget() : type;
  const flags = (target as { elementFlags?: readonly number[] }).elementFlags ?? [];
  return flags.every((flag) => (flag & (ElementFlags.Rest | ElementFlags.Variadic)) === 0);
}

/** `f.apply(thisArg, list)` and `Reflect.apply(f, thisArg, list)`: the list becomes the arguments. */
function passesArgumentList(call: CallExpression | NewExpression, checker: Checker): boolean {
  if (call.kind !== SyntaxKind.CallExpression || call.expression.kind !== SyntaxKind.PropertyAccessExpression) return false;
  const access = call.expression as unknown as { expression: Node; name: { text: string } };
  const args = call.arguments;
  const isReflect = access.name.text === 'apply' && access.expression.kind === SyntaxKind.Identifier && (access.expression as unknown as { text: string }).text === 'Reflect';
  const list = isReflect ? args[2] : access.name.text === 'apply' && args.length === 2 ? args[1] : undefined;
  return list !== undefined && !isFixedLength(list, checker);
}
