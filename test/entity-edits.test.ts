/*
 * Issue 41: entity merge and split with undo, through the library API the CLI, the server and the explorer use. The
 * edits are kept with the index, apply to later runs, and undoing every one gives back the graph of before.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { createKgrag, type Kgrag } from '../src/api/create-kgrag.js';
import type { EntityRecord } from '../src/core/types.js';
import { startMockOpenAiServer } from '../src/testing/index.js';
import { runCliCaptured } from './helpers/run-cli-captured.js';
import { sampleLlmReply } from './helpers/sample-llm-responder.js';
import { standardTestLlmConfig } from './helpers/standard-test-config.js';
import { readEvents, startTestServer } from './helpers/test-server.js';

const documents = [
  {
    title: 'Difference engines',
    text: 'Charles Babbage designed the Difference Engine in London. Babbage never finished the Difference Engine, and the Science Museum built one in 1991 from the plans of Babbage.',
  },
  {
    title: 'The Analytical Engine',
    text: 'Ada Lovelace wrote the first program for the Analytical Engine of Charles Babbage. Lovelace saw that the Analytical Engine could compose music; Lovelace published her notes in 1843.',
  },
  {
    title: 'Lovelace in London',
    text: 'Ada Lovelace lived in London and met Charles Babbage at a party in 1833. The Countess of Lovelace, as Ada Lovelace became, corresponded with Charles Babbage about the Analytical Engine.',
  },
];

let scratch: string;
let kgrag: Kgrag;
before(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'kgrag-entity-edits-'));
  kgrag = await createKgrag({ workspace: join(scratch, 'ws'), env: {}, config: { index: { mode: 'fast' }, pipeline: { methods: ['local'] } } });
  await kgrag.index(documents);
});
after(async () => {
  await kgrag?.close();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

const entities = async (): Promise<EntityRecord[]> => kgrag.store.table('entities').all();
const named = async (title: string): Promise<EntityRecord | undefined> => (await entities()).find((entity) => entity.title === title);

test('merge, split and undo: each is recorded, changes the graph, and undoing them all gives back the graph of before', async () => {
  const original = (await entities()).map((entity) => `${entity.id} ${entity.title}`).sort();
  const lovelace = await named('Ada Lovelace');
  const surname = await named('Lovelace');
  const countess = await named('Countess of Lovelace');
  assert.ok(lovelace && surname && countess, `one person, three entities: ${original.join(', ')}`);

  const merged = await kgrag.editEntities({ merge: ['Lovelace', 'countess of lovelace'], into: lovelace.id });
  assert.deepEqual([merged.edit.id, merged.edit.kind, merged.edit.entity.title, merged.edit.names], ['edit-1', 'merge', 'Ada Lovelace', ['Lovelace', 'Countess of Lovelace']]);
  assert.equal(await named('Lovelace'), undefined, 'no entity of its own any more');
  assert.equal(await named('Countess of Lovelace'), undefined);
  const into = await named('Ada Lovelace');
  assert.equal(into?.id, lovelace.id, 'the entity merged into keeps its id');
  assert.deepEqual(into?.aliases.slice().sort(), ['Countess of Lovelace', 'Lovelace']);
  assert.deepEqual(into?.chunkIds.slice().sort(), [...new Set([...lovelace.chunkIds, ...surname.chunkIds, ...countess.chunkIds])].sort(), 'its chunks are those of the three');

  const split = await kgrag.editEntities({ split: 'Lovelace', from: 'Ada Lovelace' });
  assert.deepEqual([split.edit.id, split.edit.kind, split.edit.entity.name, split.edit.names], ['edit-2', 'split', 'Ada Lovelace', ['Lovelace']]);
  assert.ok(await named('Lovelace'), 'the surname is an entity of its own again');
  assert.deepEqual((await named('Ada Lovelace'))?.aliases, ['Countess of Lovelace']);

  await assert.rejects(kgrag.editEntities({ split: 'Ada Lovelace', from: 'Ada Lovelace' }), /"Ada Lovelace" is the name "Ada Lovelace" is known by/);
  await assert.rejects(kgrag.editEntities({ merge: ['Grace Hopper'], into: 'London' }), (error: Error & { code?: string }) => error.code === 'ENTITY_EDIT_UNKNOWN_ENTITY');

  await kgrag.editEntities({ undo: 'edit-1' });
  await kgrag.editEntities({ undo: 'edit-2' });
  const log = await kgrag.entityEdits();
  assert.deepEqual(
    log.map((edit) => [edit.id, edit.kind, edit.undoneAt !== undefined]),
    [
      ['edit-1', 'merge', true],
      ['edit-2', 'split', true],
    ],
  );
  assert.deepEqual((await entities()).map((entity) => `${entity.id} ${entity.title}`).sort(), original);
});

test('over HTTP: an edit is a job, listed once it succeeds, undone by another; a bad edit is refused or fails naming the entity', async () => {
  const directory = join(scratch, 'served');
  const writer = await createKgrag({ workspace: directory, env: {}, config: { index: { mode: 'fast' } } });
  await writer.index(documents);
  await writer.close();
  // Jobs in this process: the child-process runner is tested elsewhere, and its start-up is most of this test's time.
  const server = await startTestServer({ directory, kgrag: {} });
  const post = async (body: unknown): Promise<Response> =>
    fetch(`${server.url}/v1/entities/edits`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const ended = async (response: Response): Promise<{ kind: string; status: string; input: { entityEdit: unknown }; error: { message: string } | null }> => {
    assert.equal(response.status, 202);
    const { job } = (await response.json()) as { job: { id: string; kind: string } };
    assert.equal(job.kind, 'entity-edit');
    const events = await readEvents(await fetch(`${server.url}/v1/jobs/${job.id}/events`));
    return JSON.parse(events.at(-1)?.data ?? '{}');
  };
  try {
    const merged = await ended(await post({ merge: ['Lovelace'], into: 'Ada Lovelace' }));
    assert.equal(merged.status, 'succeeded', JSON.stringify(merged.error));
    assert.deepEqual(merged.input.entityEdit, { merge: ['Lovelace'], into: 'Ada Lovelace' });
    const { edits } = (await (await fetch(`${server.url}/v1/entities/edits`)).json()) as { edits: Array<{ id: string; names: string[]; undoneAt?: string }> };
    assert.deepEqual(edits.map((edit) => [edit.id, edit.names, edit.undoneAt]), [['edit-1', ['Lovelace'], undefined]]);
    const { entities } = (await (await fetch(`${server.url}/v1/entities?q=Lovelace`)).json()) as { entities: Array<{ title: string }> };
    assert.ok(!entities.some((entity) => entity.title === 'Lovelace'), 'served from the edited index');

    assert.equal((await ended(await post({ undo: 'edit-1' }))).status, 'succeeded');
    const after = (await (await fetch(`${server.url}/v1/entities/edits`)).json()) as { edits: Array<{ undoneAt?: string }> };
    assert.ok(after.edits[0]?.undoneAt);

    const invalid = await post({ merge: [], into: 'x' });
    assert.equal(invalid.status, 400);
    const unknown = await ended(await post({ merge: ['Grace Hopper'], into: 'Ada Lovelace' }));
    assert.equal(unknown.status, 'failed');
    assert.match(unknown.error?.message ?? '', /no entity is named "Grace Hopper"/);
  } finally {
    await server.close();
  }
});

test('on the command line: merge, edits, undo; an unknown entity is an error that names it', async () => {
  const cwd = join(scratch, 'cli');
  const writer = await createKgrag({ workspace: cwd, env: {}, config: { index: { mode: 'fast' }, pipeline: { methods: ['local'] } } });
  await writer.index(documents);
  await writer.close();
  const merged = await runCliCaptured(['entities', 'merge', 'Countess of Lovelace', '--into', 'Ada Lovelace', '-q'], { cwd });
  assert.equal(merged.code, 0, merged.stderr);
  assert.equal(merged.stdout, 'edit-1  merge  Countess of Lovelace → Ada Lovelace  (made)\n');
  assert.match(merged.stderr, /kgrag entities undo edit-1 takes it back/);
  const listed = await runCliCaptured(['entities', 'edits', '--json'], { cwd });
  assert.deepEqual((JSON.parse(listed.stdout) as { edits: Array<{ id: string }> }).edits.map((edit) => edit.id), ['edit-1']);
  const undone = await runCliCaptured(['entities', 'undo', 'edit-1', '-q'], { cwd });
  assert.equal(undone.code, 0, undone.stderr);
  assert.match(undone.stdout, /^edit-1 {2}merge .*\(undone\)$/m);
  const unknown = await runCliCaptured(['entities', 'merge', 'Grace Hopper', '--into', 'Ada Lovelace', '-q'], { cwd });
  assert.equal(unknown.code, 1);
  assert.match(unknown.stderr, /no entity is named "Grace Hopper" \(merge\)/);
  assert.equal(unknown.stdout, '');
});

test('standard mode: a merge joins resolution\'s merges, splitting the name off undoes it, and the LLM is asked nothing new', async () => {
  const corpus = new URL('../examples/sample-corpus/', import.meta.url).pathname;
  let resolutionCalls = 0;
  const llm = await startMockOpenAiServer({
    reply: (request) => {
      if (request.messages.some((message) => message.content.includes('{"clusters"'))) resolutionCalls++;
      return sampleLlmReply(request);
    },
  });
  const standard = await createKgrag({
    workspace: join(scratch, 'standard'),
    env: {},
    config: { index: { mode: 'standard' }, llm: standardTestLlmConfig(llm.url), pipeline: { methods: ['local'] } } as never,
  });
  try {
    await standard.index(['04-ivesley-and-thorne.md', '05-clara-ivesley.md'].map((name) => join(corpus, name)));
    const before = await standard.store.table('entities').all();
    const byDegree = [...before].sort((left, right) => right.degree - left.degree || left.title.localeCompare(right.title));
    const [into, merged] = byDegree;
    assert.ok(into && merged, 'two entities to merge');
    const calls = resolutionCalls;
    const { edit, run } = await standard.editEntities({ merge: [merged.title], into: into.title });
    assert.equal(edit.kind, 'merge');
    assert.ok(run.ran.includes('resolve-entities'), `resolution runs again: ${run.ran.join(', ')}`);
    const after = await standard.store.table('entities').all();
    assert.equal(after.length, before.length - 1);
    const kept = after.find((entity) => entity.id === into.id);
    assert.ok(kept?.aliases.includes(merged.title), `"${merged.title}" is now a name of "${into.title}": ${kept?.aliases.join(', ')}`);
    assert.equal(resolutionCalls, calls, 'resolution read its earlier replies from the cache');

    await standard.editEntities({ split: merged.title, from: into.title });
    const split = await standard.store.table('entities').all();
    assert.ok(split.some((entity) => entity.id === merged.id), 'the name is its own entity again');
  } finally {
    await standard.close();
    await llm.close();
  }
});
