import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseDocument } from 'yaml';
import { configFileName } from '../../core/config/load-config.js';
import { KgragError } from '../../core/errors.js';
import { sanitizeForTerminal } from '../../core/sanitize-for-terminal.js';
import { type CliIo, writeLine } from '../cli-io.js';
import { llmPriceOf } from '../llm-price-of.js';
import { integerFormat as integer } from '../number-format.js';
import { openWorkspace } from '../open-workspace.js';
import { createProgressRenderer } from '../progress-renderer.js';
import { renderTextTable } from '../text-table.js';
import { type GlobalOptions, workspaceOptions } from '../workspace-options.js';

/** Options of `kgrag entities merges`. */
export interface MergesCommandOptions {
  undo?: string[];
  json?: boolean;
  limit?: string;
}

/**
 * `kgrag entities merges`: the names fast mode merged into another entity — short names into a longer name of their
 * chunk ("Babbage" into "Charles Babbage"), document titles into the name their text opens with ("Sam Davis" into
 * "Samuel George Davis MM"). `--undo <name…>` keeps those names apart: it adds them to `extract.nlp.keepApart` in the
 * workspace's kgrag.yaml (comments and the other keys kept) and brings the index up to date, so each is its own
 * entity again; removing a name from that list merges it again at the next `kgrag index`.
 */
export async function mergesCommand(options: MergesCommandOptions, global: GlobalOptions, io: CliIo): Promise<void> {
  const limit = options.limit === undefined ? undefined : Number(options.limit);
  if (limit !== undefined && !(Number.isInteger(limit) && limit > 0)) {
    throw new KgragError(`--limit ${options.limit} is not a positive whole number`, { code: 'CLI_BAD_LIMIT', category: 'input', hint: 'write e.g. --limit 50' });
  }
  if (options.undo && options.undo.length > 0) {
    await keepApart(options.undo, global, io);
    return;
  }
  const kgrag = await openWorkspace(workspaceOptions(global, io, {}), io);
  try {
    const merges = await kgrag.graph.aliasMerges(limit === undefined ? {} : { limit });
    if (options.json) {
      writeLine(io.stdout, JSON.stringify({ workspace: kgrag.workspace, merges }, null, 2));
      return;
    }
    if (merges.length === 0) {
      writeLine(io.stderr, `no name is merged into another in ${sanitizeForTerminal(kgrag.workspace)} (fast mode merges "Babbage" into "Charles Babbage" within a chunk with extract.nlp.mergeShortNames, and a document's title into the name its text opens with)`);
      return;
    }
    const rows = merges.map((merge) => [sanitizeForTerminal(merge.name), merge.kind, sanitizeForTerminal(merge.title), integer.format(merge.frequency), merge.entityId.slice(0, 12)]);
    for (const line of renderTextTable(['name', 'kind', 'merged into', 'chunks', 'entity id'], rows)) writeLine(io.stdout, line);
    writeLine(io.stderr, 'kgrag entities merges --undo <name> keeps a name apart (extract.nlp.keepApart in kgrag.yaml)');
  } finally {
    await kgrag.close();
  }
}

/** Adds the names to `extract.nlp.keepApart` in the workspace's kgrag.yaml, then updates the index. */
async function keepApart(names: readonly string[], global: GlobalOptions, io: CliIo): Promise<void> {
  const options = workspaceOptions(global, io, {});
  const file = options.configFile ?? join(options.workspace ?? io.cwd, configFileName);
  const document = parseDocument(existsSync(file) ? await readFile(file, 'utf8') : '');
  if (document.errors.length > 0) {
    throw new KgragError(`${file} is not valid YAML: ${document.errors[0]?.message ?? ''}`, { code: 'CONFIG_INVALID', category: 'input', hint: 'fix the file, then run the command again' });
  }
  const path = ['extract', 'nlp', 'keepApart'];
  const listed = (document.getIn(path) as { toJSON?: () => unknown } | undefined)?.toJSON?.();
  const kept = new Set(Array.isArray(listed) ? listed.map(String) : []);
  const added = names.filter((name) => !kept.has(name));
  for (const name of added) kept.add(name);
  document.setIn(path, [...kept]);
  await writeFile(file, document.toString());
  writeLine(io.stderr, added.length > 0 ? `kept apart in ${file}: ${added.join(', ')}; updating the index` : `already kept apart in ${file}; updating the index`);
  const kgrag = await openWorkspace(options, io);
  try {
    const renderer = createProgressRenderer(io.stderr, { quiet: global.quiet === true, priced: () => llmPriceOf(kgrag).price !== undefined });
    await kgrag.index([], { onEvent: (event) => renderer.onEvent(event) });
    renderer.stop();
    for (const name of names) {
      const [hit] = await kgrag.graph.searchEntities(name, { limit: 1 });
      const own = hit?.match === 'exact' && hit.title.toLowerCase() === name.toLowerCase();
      writeLine(
        io.stdout,
        own
          ? `${name}: its own entity (${hit.id.slice(0, 12)})`
          : hit?.match === 'exact'
            ? `${name}: still a name of ${hit.title} (${hit.id.slice(0, 12)}), merged there by an entity edit or another rule`
            : `${name}: merged into no entity, and no entity of its own (no chunk names it apart from a longer form, or its text never writes it)`,
      );
    }
  } finally {
    await kgrag.close();
  }
}
