import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { type CliRun, runCliCaptured } from './helpers/run-cli-captured.js';
import { nodeScriptArgs } from './helpers/node-script.js';
import { sampleWorkspaceAt } from './helpers/test-server.js';

const corpus = fileURLToPath(new URL('../examples/sample-corpus', import.meta.url));
const mainScript = fileURLToPath(new URL('../src/cli/main.ts', import.meta.url));
const root = mkdtempSync(join(tmpdir(), 'kgrag-cli-'));
after(() => rmSync(root, { recursive: true, force: true }));

/** Runs the CLI in-process with captured streams and an empty environment. */
function kgrag(args: string[], env: Record<string, string> = {}): Promise<CliRun> {
  return runCliCaptured(args, { cwd: root, env });
}

describe('kgrag CLI', () => {
  const workspace = join(root, 'ws');

  before(async () => {
    // The sample corpus's fast index, built once for the whole test run (what `kgrag index <corpus>` builds).
    await sampleWorkspaceAt(workspace);
  });

  test('index prints one summary line on stdout and progress on stderr', async () => {
    const result = await kgrag(['index', corpus, '-w', workspace, '--json']);
    assert.equal(result.code, 0);
    const summary = JSON.parse(result.stdout) as { documents: number; ran: string[]; chunks: number };
    assert.equal(summary.documents, 35);
    assert.deepEqual(summary.ran, ['load']);
    assert.match(result.stderr, /chunk: up to date/);
  });

  test('query --json returns the SPEC result shape with citations and nothing else on stdout', async () => {
    const result = await kgrag(['query', 'On what date was the Kester Weir Bridge opened?', '-w', workspace, '--json']);
    assert.equal(result.code, 0, result.stderr);
    const parsed = JSON.parse(result.stdout) as {
      answer: { text: string; kind: string; label: string };
      citations: Array<{ dataset: string; hid: number; title: string; quote: string }>;
      context: { chunks: Array<{ documentTitle: string }> };
      trace: { steps: Array<{ name: string }> };
      usage: { latencyMs: number; llmCalls: number };
    };
    assert.equal(parsed.answer.kind, 'extractive');
    assert.equal(parsed.answer.label, 'extractive answer (no LLM configured)');
    assert.match(parsed.answer.text, /14 May 1938/);
    assert.ok(parsed.citations.some((citation) => citation.title === 'Kester Weir Bridge' && /14 May 1938/.test(citation.quote)));
    assert.equal(parsed.context.chunks[0]?.documentTitle, 'Kester Weir Bridge');
    assert.ok(parsed.trace.steps.some((step) => step.name === 'bm25'));
    assert.equal(parsed.usage.llmCalls, 0);
  });

  test('query prints the answer, its sources and the method; --context-only prints the packed table', async () => {
    const human = await kgrag(['query', 'Who co-founded Quaymark Software with Nell Wren?', '-w', workspace, '-m', 'basic:bm25', '-k', '3']);
    assert.equal(human.code, 0);
    assert.match(human.stdout, /\[extractive answer \(no LLM configured\)\]/);
    assert.match(human.stdout, /Priya Anand/);
    assert.match(human.stdout, /Sources:\n {2}\[\d+\] Quaymark Software/);
    assert.match(human.stdout, /method basic:bm25 · \d+ ms/);
    const context = await kgrag(['query', 'Quaymark', '-w', workspace, '--context-only']);
    assert.match(context.stdout, /^-----Sources-----\nid\|title\|text\n\d+\|/);
    assert.match(context.stdout, /context tokens/);
  });

  test('an offline answer quotes the sentences that support it, and says so when none does instead of quoting', async () => {
    const supported = JSON.parse((await kgrag(['query', 'Which company proposed the marina at Boatworks Yard?', '-w', workspace, '--json'])).stdout) as {
      answer: { text: string };
      citations: Array<{ quote: string }>;
    };
    assert.ok(supported.citations.length > 0);
    assert.match(supported.citations[0]?.quote ?? '', /marina at Boatworks Yard/);
    // Before, every question got about three quoted sentences: here a family register line ("Frances") and a memoir.
    for (const question of ['What is the capital of France?', 'How do I bake sourdough bread?']) {
      const unsupported = await kgrag(['query', question, '-w', workspace, '--json']);
      assert.equal(unsupported.code, 0, unsupported.stderr);
      const parsed = JSON.parse(unsupported.stdout) as { answer: { text: string; kind: string }; citations: unknown[] };
      assert.equal(parsed.answer.kind, 'extractive');
      assert.equal(parsed.answer.text, 'The retrieved passages do not answer this question: no sentence in them shares enough of its words.');
      assert.deepEqual(parsed.citations, [], question);
    }
  });

  test('-k sets each method\'s own top-k: matched entities for local, passages for global', async () => {
    const local = await kgrag(['query', 'Who designed the weir bridge?', '-w', workspace, '-m', 'local', '-k', '2', '--json']);
    assert.equal(local.code, 0, local.stderr);
    assert.equal(JSON.parse(local.stdout).trace.steps.find((step: { name: string }) => step.name === 'entity-search')?.detail?.hits, 4, '2 entities, oversampled ×2');
    const global = await kgrag(['query', 'What are the main themes?', '-w', workspace, '-m', 'global', '-k', '3', '--json']);
    assert.equal(global.code, 0, global.stderr);
    assert.equal(JSON.parse(global.stdout).context.chunks.length, 3);
  });

  test('init writes a commented kgrag.yaml and refuses to overwrite it', async () => {
    const directory = join(root, 'fresh');
    const first = await kgrag(['init', directory]);
    assert.equal(first.code, 0);
    const yaml = readFileSync(join(directory, 'kgrag.yaml'), 'utf8');
    assert.match(yaml, /# .*\[KGRAG_LLM_BASE_URL\]/);
    assert.match(yaml, /size: 1200/);
    const second = await kgrag(['init', directory]);
    assert.equal(second.code, 1);
    assert.equal(second.stderr.trim().split('\n').length, 1);
    assert.match(second.stderr, /already exists — edit it, or pass --force/);
  });

  test('a malformed method parameter names the flag as typed (-p, --param, --param=) and the form to write', async () => {
    for (const [args, flag] of [
      [['-p', 'topK'], '-p'],
      [['--param', 'topK'], '--param'],
      [['--param=topK'], '--param'],
      [['-p', 'k=3', '-ptopK'], '-p'],
    ] as const) {
      const result = await kgrag(['query', 'x', '-w', workspace, ...args]);
      assert.equal(result.code, 1, args.join(' '));
      assert.equal(result.stderr, `kgrag: error: ${flag} "topK" is not of the form key=value — write ${flag} name=value, one parameter of the method per ${flag}\n`);
    }
    const setFlag = await kgrag(['query', 'x', '-w', workspace, '--set', 'llm.model']);
    assert.match(setFlag.stderr, /^kgrag: error: --set "llm\.model" is not of the form key=value — write e\.g\. --set llm\.model=gpt-4\.1-mini/);
  });

  test('user errors are one line naming the input and a fix; a method, variant or parameter the command does not know is a usage error (exit 2)', async () => {
    const unknownMethod = await kgrag(['query', 'x', '-w', workspace, '-m', 'nope']);
    assert.equal(unknownMethod.code, 2);
    assert.match(unknownMethod.stderr, /^kgrag: error: unknown method "nope" — choose one of: basic, local, global, drift, ppr, relations, kgp, autokg, tot\n$/);
    const misspelt = await kgrag(['query', 'x', '-w', workspace, '-m', 'pprr']);
    assert.equal(misspelt.code, 2);
    assert.match(misspelt.stderr, /^kgrag: error: unknown method "pprr" — did you mean ppr\? choose one of: /);
    const lightRag = await kgrag(['query', 'x', '-w', workspace, '-m', 'naive']);
    assert.match(lightRag.stderr, /LightRAG's naive mode is vector search over chunks: basic:dense here/);
    const misspeltKey = await kgrag(['query', 'x', '-w', workspace, '-m', 'ppr', '-p', 'dampng=0.5']);
    assert.equal(misspeltKey.code, 2);
    assert.match(misspeltKey.stderr, /"dampng": did you mean damping\? valid keys: /);

    const badVariant = await kgrag(['query', 'x', '-w', workspace, '-m', 'basic:fuzzy']);
    assert.equal(badVariant.code, 2);
    assert.match(badVariant.stderr, /no variant "fuzzy" — choose one of: basic:hybrid, basic:bm25, basic:dense/);

    const empty = join(root, 'empty-ws');
    const notIndexed = await kgrag(['query', 'anything', '-w', empty]);
    assert.equal(notIndexed.code, 1);
    assert.match(notIndexed.stderr, /there is no index at .*empty-ws.* yet — index documents first/);
    assert.ok(!existsSync(empty), 'querying a folder without an index creates nothing there');

    const nothing = await kgrag(['index', join(root, 'does-not-exist.md'), '-w', join(root, 'nothing-ws')]);
    assert.equal(nothing.code, 1);
    assert.match(nothing.stderr, /warning: .*does-not-exist\.md/);
    assert.match(nothing.stderr, /kgrag: error: nothing to index/);

    const badParam = await kgrag(['query', 'x', '-w', workspace, '-p', 'k=0']);
    assert.equal(badParam.code, 2);
    assert.match(badParam.stderr, /methods\.basic\.k/);
  });

  test('an invalid configuration lists every problem at once', async () => {
    const directory = join(root, 'bad-config');
    mkdirSync(directory, { recursive: true });
    writeFileSync(join(directory, 'kgrag.yaml'), 'llm:\n  concurency: 4\nchunking:\n  size: -5\n');
    const result = await kgrag(['query', 'x', '-w', directory], { KGRAG_QUERY_TOP_K: 'many' });
    assert.equal(result.code, 1);
    assert.match(result.stderr, /llm\.concurency: unknown key — did you mean "concurrency"\?/);
    assert.match(result.stderr, /chunking\.size: .*\(set in .*kgrag\.yaml\)/);
    assert.match(result.stderr, /query\.topK: .*\(set in KGRAG_QUERY_TOP_K\)/);
  });

  test('a usage error exits with 2', async () => {
    const result = await kgrag(['index', '--methods']);
    assert.equal(result.code, 2);
    assert.match(result.stderr, /argument missing/);
  });

  test('index without paths on a workspace that holds no documents says what to pass, and creates nothing', async () => {
    const workspace = join(root, 'never-indexed');
    const result = await kgrag(['index', '-w', workspace]);
    assert.equal(result.code, 1);
    assert.match(result.stderr, /nothing to index: the workspace holds no documents yet/);
    assert.match(result.stderr, /kgrag index docs\//);
    assert.ok(!existsSync(join(workspace, 'kgrag.db')), 'no index was created');
  });

  test('bad inputs each give one warning while the rest of the folder is indexed', async () => {
    const folder = join(root, 'mixed');
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, 'good.md'), '# Good\n\nThe lighthouse keeper of Kestermouth was Agnes Wray.\n');
    writeFileSync(join(folder, 'empty.txt'), '');
    writeFileSync(join(folder, 'image.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]));
    writeFileSync(join(folder, 'binary.txt'), Buffer.concat([Buffer.from('text then '), Buffer.alloc(64, 0), Buffer.from('zeros')]));
    writeFileSync(join(folder, 'latin1.txt'), Buffer.from('Caf\xe9 Wray served cr\xeape on the Quay.', 'latin1'));
    const result = await kgrag(['index', folder, join(root, 'missing-folder'), '-w', join(root, 'mixed-ws'), '--json']);
    assert.equal(result.code, 0, result.stderr);
    const warnings = result.stderr.split('\n').filter((line) => line.startsWith('warning:'));
    for (const name of ['empty.txt', 'binary.txt', 'latin1.txt', 'missing-folder']) {
      assert.equal(warnings.filter((line) => line.includes(name)).length, 1, `one warning for ${name}: ${warnings.join('\n')}`);
    }
    assert.equal(JSON.parse(result.stdout).documents, 2, 'good.md and the re-decoded latin1.txt are indexed');
    const strict = await kgrag(['index', folder, '-w', join(root, 'mixed-ws'), '--strict']);
    assert.equal(strict.code, 1);
    assert.match(strict.stderr, /input problems .* — fix or exclude those files/);
    const answer = await kgrag(['query', 'Who served crêpe on the Quay?', '-w', join(root, 'mixed-ws'), '--json']);
    assert.match(JSON.parse(answer.stdout).answer.text, /Café Wray served crêpe/);
  });

  test('the real process: a reader that closes stdout early (`| head`) ends it quietly, not with an EPIPE stack trace', async () => {
    const child = spawn(process.execPath, [...nodeScriptArgs(mainScript), 'query', 'Who built the Kester Weir Bridge?', '-w', workspace, '--json', '-q'], { env: { PATH: process.env.PATH ?? '' } });
    child.stdout.destroy();
    let stderr = '';
    child.stderr.on('data', (data: Buffer) => {
      stderr += data.toString();
    });
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    assert.equal(code, 0, stderr);
    assert.doesNotMatch(stderr, /EPIPE|Unhandled/);
  });

  test('the real process: `kgrag demo` prints cited answers and exits 0', () => {
    const child = spawnSync(process.execPath, [...nodeScriptArgs(mainScript), 'demo'], { encoding: 'utf8', env: { PATH: process.env.PATH ?? '' } });
    assert.equal(child.status, 0, child.stderr);
    const all = child.stdout.split('━━ ').slice(1);
    // The multi-hop comparison lists ranked documents, not answers: BM25 and two graph methods, then every method's
    // recall over the sample's multi-hop questions.
    const multiHop = all.find((block) => /^q\d+ \(multi-hop, \d documents\)/.test(block));
    assert.ok(multiHop, 'a multi-hop question side by side');
    for (const method of ['basic:bm25', 'ppr', 'kgp']) assert.match(multiHop, new RegExp(`^${method}[^\\n]*, top 5 passages:\\n(?: {2}\\d\\. [✓ ] [^\\n]+\\n){5}`, 'm'));
    assert.match(multiHop, /All \d+ multi-hop and comparison questions[^\n]*basic:bm25 \d+\.\d, ppr \d+\.\d, kgp \d+\.\d/);
    const blocks = all.filter((block) => block !== multiHop);
    const themes = blocks.filter((block) => block.startsWith('themes '));
    assert.ok(blocks.length - themes.length >= 6, 'at least six questions');
    for (const block of blocks) assert.match(block, /\[extractive answer \(no LLM configured\)\]/);
    for (const block of blocks.filter((block) => !themes.includes(block))) {
      // An answer quotes evidence, or says that the passages do not answer the question (a multi-hop one, offline).
      assert.match(block, /Sources:\n {2}\[\d+\]|The retrieved passages do not answer this question/);
      assert.match(block, /method basic:hybrid · \d+ ms/);
    }
    for (const block of blocks.filter((block) => block.includes('(single-hop)'))) assert.match(block, /Sources:\n {2}\[\d+\]/);
    const [global, basic] = themes;
    assert.match(global ?? '', /What are the main themes[^]*\[Data: Reports \(\d+\)\][^]*Sources:\n {2}\[Reports \d+\][^]*method global:static · \d+ ms/);
    assert.match(basic ?? '', /What are the main themes[^]*\[Data: Sources \(\d+\)\][^]*Sources:\n {2}\[\d+\][^]*method basic:hybrid · \d+ ms/);
    assert.ok(!existsSync(join(root, 'kgrag.db')), 'the demo does not write into the current folder');
  });
});
