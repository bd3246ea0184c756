import { createKgrag, type Kgrag, type KgragOptions } from '../api/create-kgrag.js';
import { sanitizeForTerminal } from '../core/sanitize-for-terminal.js';
import { type CliIo, writeLine } from './cli-io.js';

/** Opens a workspace for a command and prints on stderr what it found worth a warning (even with `--quiet`). */
export async function openWorkspace(options: KgragOptions, io: CliIo): Promise<Kgrag> {
  const kgrag = await createKgrag(options);
  for (const warning of kgrag.warnings) writeLine(io.stderr, `kgrag: warning: ${sanitizeForTerminal(warning)}`);
  return kgrag;
}
