import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

/*
 * The layering of docs/ARCHITECTURE.md, enforced: a file may import only from its own layer or lower
 * ones, and no import cycle may exist between files (drizzle checks the same with madge).
 */

const sourceRoot = fileURLToPath(new URL('../src', import.meta.url));

/** Layers from the bottom up; folders on one line are peers that must not import each other. */
const layers: ReadonlyArray<readonly string[]> = [
  ['core'],
  ['text'],
  ['providers'],
  ['math'],
  ['graph'],
  ['store'],
  ['extract'],
  ['pipeline'],
  ['answer'],
  ['methods'],
  ['interop'],
  ['api'],
  ['eval'],
  ['mcp'],
  ['server'],
  ['cli', 'testing', 'adapters'],
];

function layerOf(file: string): number {
  const folder = relative(sourceRoot, file).split('/')[0] ?? '';
  if (folder === 'index.ts') return layers.length;
  const level = layers.findIndex((peers) => peers.includes(folder));
  if (level === -1) throw new Error(`${file} is in no layer of docs/ARCHITECTURE.md; add its folder to the list`);
  return level;
}

function sourceFiles(directory: string, files: string[] = []): string[] {
  for (const name of readdirSync(directory).sort()) {
    const path = join(directory, name);
    if (statSync(path).isDirectory()) sourceFiles(path, files);
    else if (name.endsWith('.ts') && !name.endsWith('.test.ts')) files.push(path);
  }
  return files;
}

function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const staticSpecifiers = [...text.matchAll(/(?:^|\n)\s*(?:import|export)\b[^'"]*?from\s+['"](\.[^'"]+)['"]/g)].map((match) => match[1] as string);
  // Modules loaded on demand (`await import('./x.js')`) depend on their target as much as static imports do.
  const dynamicSpecifiers = [...text.matchAll(/\bimport\(\s*['"](\.[^'"]+)['"]\s*\)/g)].map((match) => match[1] as string);
  return [...staticSpecifiers, ...dynamicSpecifiers].map((specifier) => resolve(dirname(file), specifier.replace(/\.js$/, '.ts')));
}

const methodsRoot = join(sourceRoot, 'methods');

/** The method whose folder holds `file` (`methods/<name>/…`), or undefined outside method folders (`methods/shared` is none). */
function methodOf(file: string): string | undefined {
  const parts = relative(methodsRoot, file).split('/');
  if (parts[0] === '..' || parts.length < 2 || parts[0] === 'shared') return undefined;
  return parts[0];
}

test("a method folder imports another method only through its index.ts, and the shared method code imports none", () => {
  const violations: string[] = [];
  for (const file of sourceFiles(methodsRoot)) {
    const own = methodOf(file);
    for (const target of importsOf(file)) {
      const other = methodOf(target);
      if (other === undefined || other === own) continue;
      // A method may build on another's public surface (drift runs local search), never on its internals.
      if (own === undefined || target !== join(methodsRoot, other, 'index.ts')) violations.push(`${relative(sourceRoot, file)} imports ${relative(sourceRoot, target)}`);
    }
  }
  assert.deepEqual(violations, []);
});

test("nothing outside methods/ imports a method's internals: only its index.ts", () => {
  const violations: string[] = [];
  for (const file of sourceFiles(sourceRoot)) {
    if (!relative(methodsRoot, file).startsWith('..')) continue;
    for (const target of importsOf(file)) {
      const method = methodOf(target);
      if (method !== undefined && target !== join(methodsRoot, method, 'index.ts')) violations.push(`${relative(sourceRoot, file)} imports ${relative(sourceRoot, target)}`);
    }
  }
  assert.deepEqual(violations, []);
});

test('every import points to the same layer or a lower one', () => {
  const violations: string[] = [];
  for (const file of sourceFiles(sourceRoot)) {
    const level = layerOf(file);
    for (const target of importsOf(file)) {
      const targetLevel = layerOf(target);
      const sameFolder = relative(sourceRoot, file).split('/')[0] === relative(sourceRoot, target).split('/')[0];
      if (targetLevel > level || (targetLevel === level && !sameFolder && level !== layers.length)) {
        violations.push(`${relative(sourceRoot, file)} imports ${relative(sourceRoot, target)}`);
      }
    }
  }
  assert.deepEqual(violations, []);
});

test('there are no import cycles', () => {
  const graph = new Map(sourceFiles(sourceRoot).map((file) => [file, importsOf(file)]));
  const state = new Map<string, 'visiting' | 'done'>();
  const cycles: string[] = [];
  const visit = (file: string, path: string[]): void => {
    if (state.get(file) === 'done') return;
    if (state.get(file) === 'visiting') {
      cycles.push([...path.slice(path.indexOf(file)), file].map((item) => relative(sourceRoot, item)).join(' → '));
      return;
    }
    state.set(file, 'visiting');
    for (const target of graph.get(file) ?? []) visit(target, [...path, file]);
    state.set(file, 'done');
  };
  for (const file of graph.keys()) visit(file, []);
  assert.deepEqual(cycles, []);
});

test('the web explorer imports nothing from src/: it speaks to the server over HTTP only', () => {
  const webRoot = fileURLToPath(new URL('../web/src', import.meta.url));
  const files: string[] = [];
  const walk = (directory: string): void => {
    for (const name of readdirSync(directory).sort()) {
      const path = join(directory, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (/\.tsx?$/.test(name)) files.push(path);
    }
  };
  walk(webRoot);
  assert.ok(files.length > 10, 'the explorer sources were found');
  const outside = files.flatMap((file) => {
    const text = readFileSync(file, 'utf8');
    const specifiers = [...text.matchAll(/\b(?:from|import)\s*\(?\s*['"](\.[^'"]+)['"]/g)].map((match) => match[1] as string);
    return specifiers.filter((specifier) => !resolve(dirname(file), specifier).startsWith(`${webRoot}/`)).map((specifier) => `${relative(webRoot, file)} imports ${specifier}`);
  });
  assert.deepEqual(outside, []);
});
