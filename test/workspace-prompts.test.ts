import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { after, describe, it } from 'node:test';
import { createKgrag } from '../src/api/create-kgrag.js';
import { builtInMethods } from '../src/api/built-in-methods.js';
import { createMethodRegistry } from '../src/api/method-registry.js';
import { promptTemplates as promptTemplatesOf } from '../src/api/prompt-templates.js';
import { runCli } from '../src/cli/main.js';
import { KgragError } from '../src/core/errors.js';
import { createScriptedLanguageModel } from '../src/testing/index.js';
import { runCliCaptured } from './helpers/run-cli-captured.js';

import { sampleLlmReply } from './helpers/sample-llm-responder.js';

const promptTemplates = promptTemplatesOf(createMethodRegistry(builtInMethods));

const corpus = new URL('../examples/sample-corpus/', import.meta.url).pathname;
const root = mkdtempSync(join(tmpdir(), 'kgrag-prompts-'));
after(() => rmSync(root, { recursive: true, force: true }));

async function init(workspace: string): Promise<number> {
  const sink = new PassThrough();
  sink.resume();
  return runCli(['init', workspace], { stdout: sink, stderr: sink, env: {}, cwd: root });
}

function scriptedModel() {
  return createScriptedLanguageModel({ responses: [{ match: () => true, reply: (request) => sampleLlmReply(request) }] });
}

describe('workspace prompts', () => {
  it('kgrag init writes every prompt, and the copies leave the prompts unchanged', async () => {
    const workspace = join(root, 'fresh');
    assert.equal(await init(workspace), 0);
    const files = readdirSync(join(workspace, 'prompts')).sort();
    assert.deepEqual(files, promptTemplates.map((template) => `${template.name}.txt`).sort());
    const kgrag = await createKgrag({ workspace, env: {} });
    for (const template of promptTemplates) assert.equal(kgrag.prompts.text(template), template.text, template.name);
    await kgrag.close();
  });

  it('an edited copy wins, reaches the model, and re-runs the extraction it changes', async () => {
    const workspace = join(root, 'edited');
    assert.equal(await init(workspace), 0);
    const first = scriptedModel();
    let kgrag = await createKgrag({ workspace, env: {}, llm: first });
    await kgrag.index([corpus], { mode: 'standard' });
    await kgrag.close();

    const file = join(workspace, 'prompts', 'extract-graph.txt');
    writeFileSync(file, readFileSync(file, 'utf8').replace('---Goal---', '---Goal---\nKestermouth local-history edition.'));
    const second = scriptedModel();
    kgrag = await createKgrag({ workspace, env: {}, llm: second });
    const summary = await kgrag.index([corpus], { mode: 'standard' });
    await kgrag.close();
    assert.ok(summary.ran.includes('llm-extract'), 'the edited prompt re-extracts');
    const extraction = second.calls.find((call) => call.purpose === 'extract-graph');
    assert.match(extraction?.messages.map((message) => message.content).join('\n') ?? '', /Kestermouth local-history edition/);
  });

  it('init --force rewrites kgrag.yaml but keeps the prompt files there, naming the edited ones, and writes the missing ones', async () => {
    const workspace = join(root, 'forced');
    assert.equal(await init(workspace), 0);
    const edited = join(workspace, 'prompts', 'extract-graph.txt');
    const editedText = readFileSync(edited, 'utf8').replace('---Goal---', '---Goal---\nMy edit.');
    writeFileSync(edited, editedText);
    rmSync(join(workspace, 'prompts', 'summarize-descriptions.txt'));
    writeFileSync(join(workspace, 'kgrag.yaml'), 'llm:\n  model: my-model\n');
    const forced = await runCliCaptured(['init', workspace, '--force'], { cwd: root });
    assert.equal(forced.code, 0, forced.stderr);
    assert.equal(readFileSync(edited, 'utf8'), editedText, 'the edit survives');
    assert.match(readFileSync(join(workspace, 'kgrag.yaml'), 'utf8'), /size: 1200/, 'kgrag.yaml is rewritten');
    const restored = promptTemplates.find((template) => template.name === 'summarize-descriptions');
    assert.equal(readFileSync(join(workspace, 'prompts', 'summarize-descriptions.txt'), 'utf8').split('\n').slice(1).join('\n'), restored?.text);
    assert.match(forced.stderr, /and 1 prompts in .*; kept the \d+ prompt files already there, 1 of them edited \(extract-graph\.txt\): delete one and run `kgrag init --force` again to get its built-in text back/);
  });

  it('ignores entries that match no prompt with one warning, and refuses an edit that lost a placeholder', async () => {
    const workspace = join(root, 'stray');
    assert.equal(await init(workspace), 0);
    const folder = join(workspace, 'prompts');
    writeFileSync(join(folder, 'extract-graphs.txt'), 'a typo in the file name');
    writeFileSync(join(folder, 'notes.md'), 'my notes on the prompts');
    writeFileSync(join(folder, '.DS_Store'), 'hidden');
    mkdirSync(join(folder, 'old'));
    const kgrag = await createKgrag({ workspace, env: {} });
    for (const template of promptTemplates) assert.equal(kgrag.prompts.text(template), template.text, template.name);
    assert.equal(kgrag.warnings.length, 1);
    assert.match(kgrag.warnings[0] ?? '', /holds 3 entries that match no prompt, so they were ignored: extract-graphs\.txt \(did you mean extract-graph\.txt\?\), notes\.md, old\/; /);
    assert.doesNotMatch(kgrag.warnings[0] ?? '', /DS_Store/);
    await kgrag.close();

    const cli = await runCliCaptured(['index', corpus, '-w', workspace, '--dry-run', '-q'], { cwd: root });
    assert.equal(cli.code, 0, cli.stderr);
    assert.equal(cli.stderr.split('\n').filter((line) => line.startsWith('kgrag: warning:')).length, 1, cli.stderr);
    assert.match(cli.stderr, /kgrag: warning: .*extract-graphs\.txt/);

    const file = join(folder, 'summarize-descriptions.txt');
    writeFileSync(file, readFileSync(file, 'utf8').replaceAll('{description_list}', 'the descriptions'));
    await assert.rejects(createKgrag({ workspace, env: {} }), (error: unknown) => {
      assert.ok(error instanceof KgragError);
      assert.equal(error.code, 'CONFIG_PROMPT_INVALID');
      assert.match(error.message, /summarize-descriptions\.txt lacks \{description_list\}/);
      assert.doesNotMatch(error.message, /extract-graphs/);
      return true;
    });
  });
});
