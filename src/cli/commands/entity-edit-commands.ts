import type { EntityEdit, EntityEditRequest } from '../../extract/entity-edits/entity-edit-rules.js';
import { sanitizeForTerminal } from '../../core/sanitize-for-terminal.js';
import { type CliIo, writeLine } from '../cli-io.js';
import { llmPriceOf } from '../llm-price-of.js';
import { openWorkspace } from '../open-workspace.js';
import { createProgressRenderer } from '../progress-renderer.js';
import { renderTextTable } from '../text-table.js';
import { type GlobalOptions, workspaceOptions } from '../workspace-options.js';

/** One line of an edit: "edit-1  merge  Lovelace, Countess of Lovelace → Ada Lovelace". */
function describeEdit(edit: EntityEdit): string {
  const names = edit.names.map((name) => sanitizeForTerminal(name)).join(', ');
  const title = sanitizeForTerminal(edit.entity.title);
  return edit.kind === 'merge' ? `${names} → ${title}` : `${names} ← ${title}`;
}

/**
 * `kgrag entities merge|split|undo`: records the edit with the index and updates the index (the same run as
 * `Kgrag.editEntities`, which `POST /v1/entities/edits` and the explorer's entity panel start too); prints the edit.
 */
export async function entityEditCommand(request: EntityEditRequest, global: GlobalOptions, io: CliIo): Promise<void> {
  const kgrag = await openWorkspace(workspaceOptions(global, io, {}), io);
  try {
    const renderer = createProgressRenderer(io.stderr, { quiet: global.quiet === true, priced: () => llmPriceOf(kgrag).price !== undefined });
    const { edit } = await kgrag.editEntities(request, { onEvent: (event) => renderer.onEvent(event) });
    renderer.stop();
    const state = 'undo' in request ? 'undone' : 'made';
    writeLine(io.stdout, `${edit.id}  ${edit.kind}  ${describeEdit(edit)}  (${state})`);
    if (!('undo' in request)) writeLine(io.stderr, `kgrag entities undo ${edit.id} takes it back`);
  } finally {
    await kgrag.close();
  }
}

/** `kgrag entities edits`: the recorded merges and splits, oldest first, or `--json`. */
export async function entityEditsCommand(options: { json?: boolean }, global: GlobalOptions, io: CliIo): Promise<void> {
  const kgrag = await openWorkspace(workspaceOptions(global, io, {}), io);
  try {
    const edits = await kgrag.entityEdits();
    if (options.json) {
      writeLine(io.stdout, JSON.stringify({ workspace: kgrag.workspace, edits }, null, 2));
      return;
    }
    if (edits.length === 0) {
      writeLine(io.stderr, `no entity was merged or split in ${sanitizeForTerminal(kgrag.workspace)}; kgrag entities merge <entities…> --into <entity> merges`);
      return;
    }
    const rows = edits.map((edit) => [edit.id, edit.kind, describeEdit(edit), edit.at.slice(0, 16).replace('T', ' '), edit.undoneAt === undefined ? '' : `undone ${edit.undoneAt.slice(0, 16).replace('T', ' ')}`]);
    for (const line of renderTextTable(['edit', 'kind', 'names', 'made (UTC)', ''], rows)) writeLine(io.stdout, line);
  } finally {
    await kgrag.close();
  }
}
