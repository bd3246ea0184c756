import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { KgragError } from './errors.js';
import type { PromptLibrary, PromptTemplate } from './prompt-library.js';

/** Header line of a prompt file written by `kgrag init`; stripped when the file is read back. */
const headerPrefix = '# kgrag prompt:';

/** The file text of a template: a one-line header, then the prompt exactly. */
export function promptFileText(template: PromptTemplate): string {
  return `${headerPrefix} ${template.name} — ${template.description}\n${template.text}`;
}

/** The prompt a prompt file holds: its text without the header line `kgrag init` wrote. */
export function promptFileBody(text: string): string {
  return text.startsWith(headerPrefix) ? text.slice(text.indexOf('\n') + 1) : text;
}

/** The `{placeholder}`s a prompt text uses (the syntax `fillPrompt` replaces). */
export function promptPlaceholders(text: string): string[] {
  return [...new Set([...text.matchAll(/\{([a-z_]+)\}/g)].map((match) => match[1] as string))].sort();
}

/** The prompts of a workspace folder, and what in it was not a prompt. */
export interface WorkspacePrompts extends PromptLibrary {
  /** Names of the prompts the folder replaces. */
  overridden: string[];
  /** Entries of the folder that match no prompt, ignored (a name ends in `/` for a folder). */
  ignored: string[];
  /** One line about the ignored entries, for the user; undefined when there are none. */
  warning: string | undefined;
}

/**
 * Prompts of a workspace: `<directory>/<name>.txt` replaces the built-in template of that name. Files are
 * read once, when the workspace opens; a missing directory means no overrides. With `known` templates, any
 * other entry of the folder (a typo, notes, a backup copy) is ignored and named in one `warning` — a stray
 * file must not stop every command — and hidden entries (`.DS_Store`, editor swap files) are ignored
 * silently. An edited prompt that lost a placeholder its built-in text has (the chunk text or entity list
 * would never reach the model) is an error naming every such file.
 */
export function loadWorkspacePrompts(directory: string, known?: readonly PromptTemplate[]): WorkspacePrompts {
  const byName = known === undefined ? undefined : new Map(known.map((template) => [template.name, template]));
  const overrides = new Map<string, string>();
  const ignored: string[] = [];
  for (const entry of folderEntries(directory)) {
    if (entry.name.startsWith('.')) continue;
    const name = entry.name.endsWith('.txt') ? entry.name.slice(0, -'.txt'.length) : undefined;
    if (!entry.isFile || name === undefined || (byName !== undefined && !byName.has(name))) {
      ignored.push(entry.isFile ? entry.name : `${entry.name}/`);
      continue;
    }
    const text = readFileSync(join(directory, entry.name), 'utf8');
    overrides.set(name, promptFileBody(text));
  }
  if (byName !== undefined) checkPlaceholders(directory, overrides, byName);
  return {
    overridden: [...overrides.keys()],
    ignored,
    warning: byName === undefined || ignored.length === 0 ? undefined : ignoredWarning(directory, ignored, [...byName.keys()]),
    text: (template) => overrides.get(template.name) ?? template.text,
  };
}

function folderEntries(directory: string): Array<{ name: string; isFile: boolean }> {
  try {
    return readdirSync(directory, { withFileTypes: true })
      .map((entry) => ({ name: entry.name, isFile: entry.isFile() || (entry.isSymbolicLink() && isFile(join(directory, entry.name))) }))
      .sort((left, right) => (left.name < right.name ? -1 : left.name > right.name ? 1 : 0));
  } catch {
    return [];
  }
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** `prompts/ holds 2 entries that match no prompt, so they were ignored: a.txt (did you mean …?), notes.md; …` */
function ignoredWarning(directory: string, ignored: readonly string[], names: readonly string[]): string {
  const listed = ignored.map((entry) => {
    const guess = entry.endsWith('.txt') ? nearestName(entry.slice(0, -'.txt'.length), names) : undefined;
    return guess === undefined ? entry : `${entry} (did you mean ${guess}.txt?)`;
  });
  const count = ignored.length === 1 ? '1 entry that matches' : `${ignored.length} entries that match`;
  return `${directory} holds ${count} no prompt, so ${ignored.length === 1 ? 'it was' : 'they were'} ignored: ${listed.join(', ')}; a prompt file is named <prompt>.txt (\`kgrag init\` in an empty folder writes every one), so rename ${ignored.length === 1 ? 'it' : 'them'} to use ${ignored.length === 1 ? 'it' : 'them'}, or move ${ignored.length === 1 ? 'it' : 'them'} out of the folder`;
}

/** The known name a mistyped one most likely meant: at most 2 edits away, or one that contains it or is contained in it. */
function nearestName(name: string, names: readonly string[]): string | undefined {
  let best: { name: string; distance: number } | undefined;
  for (const candidate of names) {
    const distance = editDistance(name.toLowerCase(), candidate);
    if (distance <= 2 && (best === undefined || distance < best.distance)) best = { name: candidate, distance };
  }
  return best?.name ?? names.find((candidate) => name.length >= 4 && (candidate.includes(name) || name.includes(candidate)));
}

function editDistance(left: string, right: string): number {
  let previous = Array.from({ length: right.length + 1 }, (_, index) => index);
  for (let i = 1; i <= left.length; i++) {
    const current = [i];
    for (let j = 1; j <= right.length; j++) {
      current.push(Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + (left[i - 1] === right[j - 1] ? 0 : 1)));
    }
    previous = current;
  }
  return previous[right.length] ?? 0;
}

function checkPlaceholders(directory: string, overrides: ReadonlyMap<string, string>, byName: ReadonlyMap<string, PromptTemplate>): void {
  const problems: string[] = [];
  for (const [name, text] of overrides) {
    const template = byName.get(name);
    if (template === undefined) continue;
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
