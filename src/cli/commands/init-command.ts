import { access } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { methodConfigSchemas } from '../../api/registered-methods.js';
import { renderConfigTemplate } from '../../core/config/config-template.js';
import { workspaceConfigSchema } from '../../core/config/load-config.js';
import { configFileName } from '../../core/config/load-config.js';
import { promptFileText } from '../../core/workspace-prompts.js';
import { promptTemplates } from '../../api/prompt-templates.js';
import { KgragError } from '../../core/errors.js';
import { writeOutputFile } from '../../core/write-output-file.js';
import { type CliIo, writeLine } from '../cli-io.js';

/** `kgrag init [dir]`: writes a commented kgrag.yaml listing every key with its default. */
export async function initCommand(directory: string | undefined, options: { force?: boolean }, io: CliIo): Promise<void> {
  const workspace = resolve(io.cwd, directory ?? '.');
  const file = join(workspace, configFileName);
  const exists = await access(file).then(
    () => true,
    () => false,
  );
  if (exists && !options.force) {
    throw new KgragError(`${file} already exists`, {
      code: 'INIT_EXISTS',
      category: 'input',
      hint: 'edit it, or pass --force to overwrite it with the defaults',
    });
  }
  await writeOutputFile(file, renderConfigTemplate(workspaceConfigSchema(methodConfigSchemas)), 'the configuration template');
  writeLine(io.stdout, file);
  const promptsDirectory = join(workspace, 'prompts');
  let written = 0;
  for (const template of promptTemplates) {
    const path = join(promptsDirectory, `${template.name}.txt`);
    const present = await access(path).then(
      () => true,
      () => false,
    );
    if (present && !options.force) continue;
    await writeOutputFile(path, promptFileText(template), 'a prompt file');
    written++;
  }
  writeLine(io.stdout, promptsDirectory);
  writeLine(
    io.stderr,
    `wrote ${file} and ${written} prompts in ${promptsDirectory} (edit one to change it; delete it to use the built-in text); next: kgrag index <paths> --workspace ${directory ?? '.'}`,
  );
}
