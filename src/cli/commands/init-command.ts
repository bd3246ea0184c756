import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { builtInMethods } from '../../api/built-in-methods.js';
import { createMethodRegistry } from '../../api/method-registry.js';
import { renderConfigTemplate } from '../../core/config/config-template.js';
import { workspaceConfigSchema } from '../../core/config/load-config.js';
import { configFileName } from '../../core/config/load-config.js';
import { promptFileBody, promptFileText } from '../../core/workspace-prompts.js';
import { promptTemplates } from '../../api/prompt-templates.js';
import { KgragError } from '../../core/errors.js';
import { writeOutputFile } from '../../core/write-output-file.js';
import { type CliIo, writeLine } from '../cli-io.js';

/**
 * `kgrag init [dir]`: writes a commented kgrag.yaml listing every key with its default, and each built-in
 * prompt to `prompts/<name>.txt` for editing. `--force` overwrites kgrag.yaml only: a prompt file already
 * there is the user's (edited or not) and is kept, so the command writes just the missing prompts and says
 * which edited ones it kept and how to get their built-in text back.
 */
export async function initCommand(directory: string | undefined, options: { force?: boolean }, io: CliIo): Promise<void> {
  const workspace = resolve(io.cwd, directory ?? '.');
  const file = join(workspace, configFileName);
  if ((await readIfPresent(file)) !== undefined && !options.force) {
    throw new KgragError(`${file} already exists`, {
      code: 'INIT_EXISTS',
      category: 'input',
      hint: 'edit it, or pass --force to overwrite it with the defaults (prompt files already there are kept)',
    });
  }
  // The built-in methods' sections and prompts: a plugin's come from the plugin (`plugins:` in kgrag.yaml), with its defaults.
  const registry = createMethodRegistry(builtInMethods);
  await writeOutputFile(file, renderConfigTemplate(workspaceConfigSchema(registry.configSchemas)), 'the configuration template');
  writeLine(io.stdout, file);
  const promptsDirectory = join(workspace, 'prompts');
  let written = 0;
  const kept: string[] = [];
  const edited: string[] = [];
  for (const template of promptTemplates(registry)) {
    const name = `${template.name}.txt`;
    const present = await readIfPresent(join(promptsDirectory, name));
    if (present === undefined) {
      await writeOutputFile(join(promptsDirectory, name), promptFileText(template), 'a prompt file');
      written++;
      continue;
    }
    kept.push(name);
    if (promptFileBody(present) !== template.text) edited.push(name);
  }
  writeLine(io.stdout, promptsDirectory);
  const keptNote =
    kept.length === 0
      ? ''
      : edited.length === 0
        ? `; kept the ${kept.length} prompt files already there, none of them edited`
        : `; kept the ${kept.length} prompt files already there, ${edited.length} of them edited (${edited.join(', ')}): delete one and run \`kgrag init${options.force ? ' --force' : ''}\` again to get its built-in text back`;
  writeLine(
    io.stderr,
    `wrote ${file} and ${written} prompts in ${promptsDirectory}${keptNote} (edit a prompt to change it; delete it to use the built-in text); next: kgrag index <paths> --workspace ${directory ?? '.'}`,
  );
}

/** A file's text, or undefined when it does not exist. */
async function readIfPresent(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}
