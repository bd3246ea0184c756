import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { KgragError } from './errors.js';
import type { PromptLibrary, PromptTemplate } from './prompt-library.js';

/** Header line of a prompt file written by `kgrag init`; stripped when the file is read back. */
const headerPrefix = '# kgrag prompt:';

/** The file text of a template: a one-line header, then the prompt exactly. */
export function promptFileText(template: PromptTemplate): string {
  return `${headerPrefix} ${template.name} — ${template.description}\n${template.text}`;
}

/** The `{placeholder}`s a prompt text uses (the syntax `fillPrompt` replaces). */
export function promptPlaceholders(text: string): string[] {
  return [...new Set([...text.matchAll(/\{([a-z_]+)\}/g)].map((match) => match[1] as string))].sort();
}

/**
 * Prompts of a workspace: `<directory>/<name>.txt` replaces the built-in template of that name. Files are
 * read once, when the workspace opens; a missing directory means no overrides. With `known` templates,
 * an edited file is checked against its built-in one, and every problem is reported at once: a file name
 * that matches no prompt (a typo would otherwise be ignored silently), or a placeholder the built-in text
 * has and the edit lost (the chunk text or entity list would never reach the model).
 */
export function loadWorkspacePrompts(directory: string, known?: readonly PromptTemplate[]): PromptLibrary & { overridden: string[] } {
  const overrides = new Map<string, string>();
  let names: string[] = [];
  try {
    names = readdirSync(directory).filter((name) => name.endsWith('.txt')).sort();
  } catch {
    names = [];
  }
  for (const name of names) {
    const text = readFileSync(join(directory, name), 'utf8');
    overrides.set(name.slice(0, -'.txt'.length), text.startsWith(headerPrefix) ? text.slice(text.indexOf('\n') + 1) : text);
  }
  if (known !== undefined) checkOverrides(directory, overrides, known);
  return {
    overridden: [...overrides.keys()],
    text: (template) => overrides.get(template.name) ?? template.text,
  };
}

function checkOverrides(directory: string, overrides: ReadonlyMap<string, string>, known: readonly PromptTemplate[]): void {
  const byName = new Map(known.map((template) => [template.name, template]));
  const problems: string[] = [];
  for (const [name, text] of overrides) {
    const template = byName.get(name);
    if (template === undefined) {
      problems.push(`${name}.txt matches no prompt (known: ${[...byName.keys()].join(', ')}); rename it, or delete it`);
      continue;
    }
    const missing = promptPlaceholders(template.text).filter((placeholder) => !text.includes(`{${placeholder}}`));
    if (missing.length > 0) {
      problems.push(`${name}.txt lacks ${missing.map((placeholder) => `{${placeholder}}`).join(', ')}, which the built-in prompt fills in; put it back, or delete the file to use the built-in prompt`);
    }
  }
  if (problems.length > 0) {
    throw new KgragError(`${problems.length} problem${problems.length === 1 ? '' : 's'} in the prompt files of ${directory}: ${problems.join('; ')}`, {
      code: 'CONFIG_PROMPT_INVALID',
      category: 'config',
      hint: 'fix the files listed; `kgrag init` in an empty folder writes the built-in prompts for comparison',
      details: { directory, problems },
    });
  }
}
