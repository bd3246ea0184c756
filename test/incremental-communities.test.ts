import assert from 'node:assert/strict';
import { copyFileSync, cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createKgrag, type Kgrag } from '../src/api/create-kgrag.js';
import { configSchema, type KgragConfigInput } from '../src/core/config/config-schema.js';
import { contentId } from '../src/core/ids.js';
import { builtInPrompts } from '../src/core/prompt-library.js';
import type { CommunityRecord, ReportRecord } from '../src/core/types.js';
import type { ChatRequest } from '../src/providers/llm/language-model.js';
import type { StepContext, StepOutput } from '../src/pipeline/pipeline-step.js';
import { createCommunitiesStep } from '../src/pipeline/steps/communities-step.js';
import { decodeCommunityMembers, encodeCommunityMembers } from '../src/pipeline/steps/community-members-codec.js';
import { createReportsStep } from '../src/pipeline/steps/reports-step.js';
import { extractiveEntityDigest } from '../src/extract/reports/extractive-report-inputs.js';
import { createExtractiveReporter } from '../src/extract/reports/extractive-report.js';
import { openSqliteStore } from '../src/store/sqlite/sqlite-store.js';
import type { Store } from '../src/store/store.js';
import { createScriptedLanguageModel } from '../src/testing/index.js';
import { createTokenizer } from '../src/text/tokenizer.js';
import { sampleLlmReply } from './helpers/sample-llm-responder.js';

/*
 * Communities without churn (issue 18): after documents are added, the communities step updates the previous
 * hierarchy and keeps ids, and the reports step regenerates only the reports whose inputs changed.
 */

const corpus = fileURLToPath(new URL('../examples/sample-corpus', import.meta.url));
const root = mkdtempSync(join(tmpdir(), 'kgrag-incremental-communities-'));
after(() => rmSync(root, { recursive: true, force: true }));
let workspaces = 0;
const methods = ['local', 'global'];

let indexed: Promise<string> | undefined;
/**
 * A new workspace holding the fast index of the sample corpus for `methods` (default settings): built once, by the first
 * test that asks, and copied for each (a build is deterministic, and six tests start from it).
 */
async function indexedCopy(): Promise<string> {
  indexed ??= (async () => {
    const template = join(root, 'template');
    const kgrag = await createKgrag({ workspace: template, env: {} });
    await kgrag.index([corpus], { methods });
    await kgrag.close();
    return template;
  })();
  const workspace = join(root, `ws-${workspaces++}`);
  cpSync(await indexed, workspace, { recursive: true });
  return workspace;
}

interface Tables {
  communities: CommunityRecord[];
  reports: ReportRecord[];
}

async function tables(kgrag: Kgrag): Promise<Tables> {
  return { communities: await kgrag.store.table('communities').all(), reports: await kgrag.store.table('reports').all() };
}

const hollinsBakery = { title: 'Hollins Bakery', text: '# Hollins Bakery\n\nHollins Bakery opened on the Quay in 1999. The bakery sells rye bread to the Ferry Inn and to Cotterills on the Square.\n' };
const quayFerry = { title: 'Quay ferry', text: '# Quay ferry\n\nThe Quay ferry carries bread from Hollins Bakery across the River Kester to the Ferry Inn.\n' };

/** Names two entities the index has already, which share a community and a relation: no new entity, a relation gains a chunk. */
const weirBridgeNote = { title: 'Kester Weir Bridge', text: '# Kester Weir Bridge\n\nThe Kester Weir Bridge crosses Ferry Street.\n' };

/** Updates that tests apply to copies of one index, in turn; each gives the communities step's counts. */
const communityUpdates: Array<(kgrag: Kgrag) => Promise<Record<string, number> | undefined>> = [
  async (kgrag) => (await kgrag.index([hollinsBakery], { methods })).counts.communities,
  async (kgrag) => (await kgrag.index([quayFerry], { methods })).counts.communities,
  async (kgrag) => (await kgrag.delete(['Hollins Bakery'])).run.counts.communities,
  // Rows that change with their members kept: an inner relation gains a chunk.
  async (kgrag) => (await kgrag.index([weirBridgeNote], { methods })).counts.communities,
];

/** Applies `update` to each workspace in turn; the communities step's counts of each. */
async function updateEach(workspaces: readonly string[], update: (kgrag: Kgrag) => Promise<Record<string, number> | undefined>): Promise<Array<Record<string, number> | undefined>> {
  const counts: Array<Record<string, number> | undefined> = [];
  for (const workspace of workspaces) {
    const kgrag = await createKgrag({ workspace, env: {} });
    counts.push(await update(kgrag));
    await kgrag.close();
  }
  return counts;
}

/** The communities, reports and records of the communities step in a workspace, read as a reader would. */
async function storedCommunities(workspace: string) {
  const store = openSqliteStore(join(workspace, 'kgrag.db'), { readonly: true });
  try {
    return { communities: await store.table('communities').all(), reports: await store.table('reports').all(), graph: await store.getMeta('communities:graph'), rows: await store.getMeta('communities:rows') };
  } finally {
    await store.close();
  }
}

/**
 * The extractive reports step run alone on a copy of `workspace`'s index after `change`, its writes committed: its output,
 * and the copy's store, open, for the caller to read and close.
 */
async function rerunReportsStep(workspace: string, change: (tx: Store) => Promise<void>, changedKeys?: StepContext['changedKeys']): Promise<{ output: StepOutput; store: Store }> {
  const copy = join(root, `rerun-${workspaces++}.db`);
  copyFileSync(join(workspace, 'kgrag.db'), copy);
  const store = openSqliteStore(copy);
  await store.transaction(change);
  const config = configSchema.parse({});
  const context: StepContext = { store, config, tokenizer: await createTokenizer(config.tokenizer.encoding), embedder: undefined as never, llm: undefined, prompts: builtInPrompts, inputs: { paths: [], documents: [] }, signal: undefined, progress: () => undefined, warn: () => undefined, ...(changedKeys ? { changedKeys } : {}) };
  const output = await createReportsStep({ graphStep: 'nlp-extract', llm: false, claims: false }).run(context);
  await store.transaction(async (tx) => output.write?.(tx));
  return { output, store };
}

const byId = <T extends { id: string }>(rows: readonly T[]): Map<string, T> => new Map(rows.map((row) => [row.id, row]));
const byCommunity = (rows: readonly ReportRecord[]): Map<string, ReportRecord> => new Map(rows.map((row) => [row.communityId, row]));

describe('fast mode: communities and reports after a change', () => {
  test('a rerun of the communities step over an unchanged graph keeps every community, id, title and row, and every report', async () => {
    const workspace = await indexedCopy();
    const first = await createKgrag({ workspace, env: {} });
    const before = await tables(first);
    await first.close();
    // Another id threshold changes the step's settings, so it runs again over the same graph.
    const second = await createKgrag({ workspace, env: {}, config: { communities: { keepIdJaccard: 0.8 } } });
    const summary = await second.index([corpus], { methods });
    assert.ok(summary.ran.includes('communities'));
    assert.deepEqual(summary.counts.communities, { communities: before.communities.length, levels: summary.counts.communities?.['levels'], kept: before.communities.length, added: 0, removed: 0, warmStart: 1, built: 0, written: 0, graphPatched: 0, membersStored: 1, changedEntities: 0, placedOnly: 1, level0Checked: 0, level0Fresh: 0 });
    assert.ok(summary.skipped.includes('reports'), 'the communities came out the same, so the reports step had nothing to do');
    assert.deepEqual(await tables(second), before);
    await second.close();
  });

  test('after a document is added, kept reports are unchanged rows and only the others are rebuilt', async () => {
    const workspace = await indexedCopy();
    const kgrag = await createKgrag({ workspace, env: {} });
    const before = await tables(kgrag);
    const summary = await kgrag.index([hollinsBakery], { methods });
    const counts = summary.counts.reports ?? {};
    const after = await tables(kgrag);
    assert.equal((counts['reused'] ?? 0) + (counts['regenerated'] ?? 0), after.reports.length);
    assert.ok((counts['reused'] ?? 0) > after.reports.length / 2, `reused ${counts['reused']} of ${after.reports.length}`);
    const earlier = byCommunity(before.reports);
    const communitiesBefore = byId(before.communities);
    let unchangedRows = 0;
    for (const report of after.reports) {
      const old = earlier.get(report.communityId);
      if (old?.fullContent !== report.fullContent) continue;
      unchangedRows++;
      assert.equal(report.hid, old.hid, 'a kept report keeps its row');
      assert.equal(communitiesBefore.get(report.communityId)?.title, after.communities.find((community) => community.id === report.communityId)?.title, 'and its community its title');
    }
    assert.ok(unchangedRows >= (counts['reused'] ?? 0));
    await kgrag.close();
  });

  test('after an update every report reads as the reporter writes it from the whole index, ordered as at the last refresh', async () => {
    const workspace = await indexedCopy();
    const kgrag = await createKgrag({ workspace, env: {} });
    const summary = await kgrag.index([hollinsBakery, quayFerry], { methods });
    assert.ok((summary.counts.reports?.['regenerated'] ?? 0) > 0);
    const { store } = kgrag;
    // The update read only the chunks and relations its rebuilt reports use; the reporter here is given every one.
    const stored = await store.getMeta<{ version: 2; ids: string[]; degrees: number[]; frequencies: number[] }>('reports:ordering');
    assert.equal(stored?.version, 2);
    const ordering = new Map(stored.ids.map((id, position) => [id, { degree: stored.degrees[position] as number, frequency: stored.frequencies[position] as number }]));
    const sources = {
      entities: new Map((await store.table('entities').all()).map((entity) => [entity.id, entity])),
      relations: new Map((await store.table('relations').all()).map((relation) => [relation.id, relation])),
      chunks: new Map((await store.table('chunks').all()).map((chunk) => [chunk.id, chunk])),
    };
    const report = createExtractiveReporter(sources, { ordering });
    const communities = byId(await store.table('communities').all());
    const reports = await store.table('reports').all();
    for (const stored of reports) {
      const community = communities.get(stored.communityId);
      assert.ok(community);
      const fresh = report(community);
      assert.deepEqual([stored.title, stored.summary, stored.findings, stored.fullContent], [fresh.title, fresh.summary, fresh.findings, fresh.fullContent], stored.communityId);
    }
    await kgrag.close();
  });

  test('between refreshes an update places the new entities and moves no other; a refresh clusters again and checks its level 0', async () => {
    const workspace = await indexedCopy();
    const kgrag = await createKgrag({ workspace, env: {} });
    const before = await kgrag.store.table('communities').pick(['level', 'entityIds']);
    const update = await kgrag.index([hollinsBakery], { methods });
    assert.equal(update.counts.communities?.['warmStart'], 1);
    assert.ok((update.counts.communities?.['changedEntities'] ?? 0) > 0);
    assert.equal(update.counts.communities?.['placedOnly'], 1);
    assert.equal(update.counts.communities?.['level0Checked'], 0);
    // Every earlier entity shares a level-0 community with exactly the earlier entities it shared one with.
    const after = await kgrag.store.table('communities').pick(['level', 'entityIds']);
    const levelZero = (rows: typeof before): Map<string, number> => new Map(rows.filter((row) => row.level === 0).flatMap((row, index) => row.entityIds.map((id) => [id, index] as const)));
    const [earlier, now] = [levelZero(before), levelZero(after)];
    const ids = [...earlier.keys()];
    assert.ok(ids.length > 10 && now.size > ids.length, `${ids.length} earlier entities, ${now.size} now`);
    // Each earlier entity named by the first earlier entity of its community: equal lists, equal partitions of them.
    const firstOfCommunity = (partition: Map<string, number>): string[] => {
      const first = new Map<number | undefined, string>();
      return ids.map((id) => {
        const community = partition.get(id);
        if (!first.has(community)) first.set(community, id);
        return first.get(community) as string;
      });
    };
    assert.deepEqual(firstOfCommunity(now), firstOfCommunity(earlier));
    const refresh = await kgrag.index([quayFerry], { methods, refresh: true });
    assert.equal(refresh.counts.communities?.['placedOnly'], 0);
    assert.equal(refresh.counts.communities?.['level0Checked'], 1);
    await kgrag.close();
  });

  test('an update reads the entity graph from its snapshot and the rows it wrote, and ends where a read of every row ends', async () => {
    // Two copies of one index take the same updates: one patches the stored snapshot, the other finds it unreadable.
    const [patching, reading] = [await indexedCopy(), await indexedCopy()];
    for (const [round, update] of communityUpdates.entries()) {
      const unreadable = openSqliteStore(join(reading, 'kgrag.db'));
      await unreadable.setBlob('communities:entity-graph', new Uint8Array(0));
      await unreadable.close();
      const counts = await updateEach([patching, reading], update);
      assert.equal(counts[0]?.['graphPatched'], 1, `round ${round}: the snapshot was patched`);
      assert.equal(counts[1]?.['graphPatched'], 0, `round ${round}: every row was read`);
      assert.ok((counts[0]?.['written'] ?? 0) > 0, `round ${round}: the update changed communities`);
      assert.deepEqual(await storedCommunities(patching), await storedCommunities(reading), `round ${round}`);
    }
  });

  test('an update reads the previous members as numbers from communities:members, and ends where a read of every row entity list ends', async () => {
    // Two copies of one index take the same updates: one reads the stored member numbers, the other finds them unreadable.
    const [numbering, reading] = [await indexedCopy(), await indexedCopy()];
    for (const [round, update] of communityUpdates.entries()) {
      const unreadable = openSqliteStore(join(reading, 'kgrag.db'));
      await unreadable.setBlob('communities:members', new Uint8Array([1, 2, 3]));
      await unreadable.close();
      const counts = await updateEach([numbering, reading], update);
      assert.equal(counts[0]?.['membersStored'], 1, `round ${round}: the stored numbers were read`);
      assert.equal(counts[1]?.['membersStored'], 0, `round ${round}: every row's entity list was read`);
      assert.ok((counts[0]?.['written'] ?? 0) > 0, `round ${round}: the update changed communities`);
      const [numbered, read] = [await storedCommunities(numbering), await storedCommunities(reading)];
      assert.deepEqual(numbered, read, `round ${round}`);
      // What the next update reads: each community's members, as positions in the entity list the state names.
      const store = openSqliteStore(join(numbering, 'kgrag.db'), { readonly: true });
      const members = decodeCommunityMembers((await store.getBlob('communities:members')) as Uint8Array);
      await store.close();
      const clustered = (numbered.graph as { ids: string[] }).ids;
      assert.ok(members && members.entities === clustered.length, `round ${round}: the blob reads`);
      const listed = new Map(members.communityIds.map((id, index) => [id, Array.from(members.members.subarray(members.starts[index], members.starts[index + 1]), (position) => clustered[position])]));
      assert.deepEqual(listed, new Map(numbered.communities.map((community) => [community.id, community.entityIds])), `round ${round}: the members as the rows list them`);
    }
  });

  test('a kept row none of whose members an update touched carries its inner digest; walking every row gives the same rows and digests', async () => {
    // Two copies of one index take the same updates; before each, one loses its stored inner digests (an index written
    // before them has none), so that its update walks every community's relations and builds every row.
    const [carrying, walking] = [await indexedCopy(), await indexedCopy()];
    for (const [round, update] of communityUpdates.entries()) {
      const withoutDigests = openSqliteStore(join(walking, 'kgrag.db'));
      const stored = await withoutDigests.getMeta<{ rows: Record<string, string>; level0Quality?: number }>('communities:rows');
      assert.ok(stored?.rows);
      await withoutDigests.setMeta('communities:rows', { version: 2, rows: stored.rows });
      await withoutDigests.close();
      const counts = await updateEach([carrying, walking], update);
      assert.ok((counts[0]?.['built'] ?? 0) < (counts[0]?.['communities'] ?? 0), `round ${round}: the carrying copy built only some rows`);
      assert.equal(counts[1]?.['built'], counts[1]?.['communities'], `round ${round}: the walking copy built every row`);
      const [carried, walked] = [await storedCommunities(carrying), await storedCommunities(walking)];
      assert.deepEqual(carried.communities, walked.communities, `round ${round}: the rows`);
      // The version-2 record the walking copy started from carries no level-0 quality; the digests and hashes must agree.
      const { level0Quality: _quality, ...carriedRows } = carried.rows as Record<string, unknown>;
      const { level0Quality: _walkedQuality, ...walkedRows } = walked.rows as Record<string, unknown>;
      assert.deepEqual(carriedRows, walkedRows, `round ${round}: the inner digests and row hashes`);
    }
  });

  test("with communities.betweenRefreshes 'recluster' an update between refreshes clusters again", async () => {
    const workspace = join(root, `ws-${workspaces++}`);
    const kgrag = await createKgrag({ workspace, env: {}, config: { communities: { betweenRefreshes: 'recluster' } } });
    await kgrag.index([corpus], { methods });
    const update = await kgrag.index([hollinsBakery], { methods });
    assert.equal(update.counts.communities?.['warmStart'], 1);
    assert.equal(update.counts.communities?.['placedOnly'], 0);
    await kgrag.close();
  });

  test('an update builds only the rows whose members or their relations and chunks changed; the others are the rows it would build', async () => {
    const workspace = await indexedCopy();
    const kgrag = await createKgrag({ workspace, env: {} });
    const summary = await kgrag.index([hollinsBakery], { methods });
    const counts = summary.counts.communities ?? {};
    assert.ok((counts['written'] ?? 0) > 0, 'the document changed some rows');
    assert.ok((counts['built'] ?? 0) < (counts['communities'] ?? 0), `built ${counts['built']} of ${counts['communities']} rows`);
    await kgrag.close();
    // On a copy, the step runs again over the same graph without the stored entity digests (as an index written before
    // them has none): it builds every row, and every row it builds is the row the update kept.
    const copy = join(root, `copy-${workspaces}.db`);
    copyFileSync(join(workspace, 'kgrag.db'), copy);
    const store = openSqliteStore(copy);
    const stored = await store.getMeta<{ rows: Record<string, string> }>('communities:rows');
    assert.ok(stored?.rows);
    await store.transaction(async (tx) => tx.setMeta('communities:rows', stored.rows));
    const config = configSchema.parse({});
    const context: StepContext = { store, config, tokenizer: await createTokenizer(config.tokenizer.encoding), embedder: undefined as never, llm: undefined, prompts: builtInPrompts, inputs: { paths: [], documents: [] }, signal: undefined, progress: () => undefined, warn: () => undefined };
    const output = await createCommunitiesStep('nlp-extract').run(context);
    assert.equal(output.counts?.['built'], counts['communities']);
    assert.equal(output.counts?.['written'], 0, 'every row built anew equals the stored one');
    await store.close();
  });

  test('edge digests stored by an earlier version (one object of them) warm-start the step as the stored lists do', async () => {
    const workspace = await indexedCopy();
    const copy = join(root, `digests-${workspaces++}.db`);
    copyFileSync(join(workspace, 'kgrag.db'), copy);
    const store = openSqliteStore(copy);
    const config = configSchema.parse({});
    const context: StepContext = { store, config, tokenizer: await createTokenizer(config.tokenizer.encoding), embedder: undefined as never, llm: undefined, prompts: builtInPrompts, inputs: { paths: [], documents: [] }, signal: undefined, progress: () => undefined, warn: () => undefined };
    const step = createCommunitiesStep('nlp-extract');
    const lists = await step.run(context);
    assert.equal(lists.counts?.['warmStart'], 1);
    assert.equal(lists.counts?.['changedEntities'], 0, 'the graph is unchanged: every stored digest matches');
    const state = await store.getMeta<{ version: number; clustering: unknown; ids: string[]; digests: string[] }>('communities:graph');
    assert.equal(state?.version, 2);
    assert.ok((state?.ids.length ?? 0) > 10);
    const digests = Object.fromEntries(state?.ids.map((id, index) => [id, state.digests[index]]) ?? []);
    await store.transaction((tx) => tx.setMeta('communities:graph', { version: 1, clustering: state?.clustering, digests }));
    const record = await step.run(context);
    assert.deepEqual(record.counts, lists.counts);
    assert.equal(record.outputVersion, lists.outputVersion);
    await store.close();
  });

  test('an update hashes the report inputs only of communities whose row or members changed; the others carry theirs, as hashing gives them', async () => {
    const workspace = await indexedCopy();
    const kgrag = await createKgrag({ workspace, env: {} });
    const summary = await kgrag.index([hollinsBakery], { methods });
    const counts = summary.counts.reports ?? {};
    assert.ok((counts['inputsHashed'] ?? 0) < (counts['reports'] ?? 0), `hashed ${counts['inputsHashed']} of ${counts['reports']}`);
    assert.ok((counts['inputsHashed'] ?? 0) >= (counts['regenerated'] ?? 0));
    const entityCount = (await kgrag.store.table('entities').pick(['id'])).length;
    assert.ok((counts['entitiesRead'] ?? entityCount) < entityCount, `read ${counts['entitiesRead']} of ${entityCount} entities whole`);
    await kgrag.close();
    // The digests the update stored, most of them carried for entities it did not write, are every entity's own.
    await (async () => {
      const store = openSqliteStore(join(workspace, 'kgrag.db'));
      const basis = (await store.getMeta<{ extractiveBasis: { entityIds: string[]; entityDigests: string[] } }>('reports:inputs'))?.extractiveBasis;
      const entities = await store.table('entities').all();
      await store.close();
      assert.deepEqual(basis?.entityIds, entities.map((entity) => entity.id));
      assert.deepEqual(basis?.entityDigests, entities.map((entity) => extractiveEntityDigest(entity)));
    })();
    const rerun = async (change: (tx: Store) => Promise<void>, changedKeys?: StepContext['changedKeys']) => {
      const { output, store } = await rerunReportsStep(workspace, change, changedKeys);
      const inputs = await store.getMeta<{ byCommunity: Record<string, string> }>('reports:inputs');
      const result = { counts: output.counts ?? {}, byCommunity: inputs?.byCommunity, reports: await store.table('reports').all(), communities: await store.table('communities').pick(['id', 'entityIds']) };
      await store.close();
      return result;
    };
    // Without the stored basis every community is hashed again, and to the inputs the update carried.
    const stored = await (async () => {
      const store = openSqliteStore(join(workspace, 'kgrag.db'));
      const record = await store.getMeta<{ byCommunity: Record<string, string> }>('reports:inputs');
      await store.close();
      return record;
    })();
    const hashedAll = await rerun(async (tx) => {
      const record = await tx.getMeta<Record<string, unknown>>('reports:inputs');
      const { extractiveBasis: _extractiveBasis, ...rest } = record ?? {};
      await tx.setMeta('reports:inputs', rest);
    });
    assert.equal(hashedAll.counts['inputsHashed'], hashedAll.counts['reports']);
    assert.equal(hashedAll.counts['regenerated'], 0);
    assert.deepEqual(hashedAll.byCommunity, stored?.byCommunity);
    // A basis stored by an earlier version (the entities' digests as one object) is carried forward as the lists are.
    const carriedAll = await rerun(async () => undefined);
    const fromObject = await rerun(async (tx) => {
      const record = await tx.getMeta<Record<string, unknown> & { extractiveBasis: { settings: string; rows: Record<string, string>; entityIds: string[]; entityDigests: string[] } }>('reports:inputs');
      assert.ok(record?.extractiveBasis && record.extractiveBasis.entityIds.length > 10);
      const { extractiveBasis, ...rest } = record;
      const { entityIds, entityDigests, ...basis } = extractiveBasis;
      await tx.setMeta('reports:inputs', { ...rest, extractive: { ...basis, entities: Object.fromEntries(entityIds.map((id, index) => [id, entityDigests[index]])) } });
    });
    assert.equal(carriedAll.counts['inputsHashed'], 0, 'nothing changed: every community carries its inputs');
    assert.deepEqual(fromObject.counts, carriedAll.counts);
    assert.deepEqual(fromObject.byCommunity, stored?.byCommunity);
    // A member whose description changed: the communities holding it are hashed and rebuilt, no other.
    const entity = (await (async () => {
      const store = openSqliteStore(join(workspace, 'kgrag.db'));
      const rows = await store.table('entities').all();
      await store.close();
      return rows;
    })()).find((row) => row.description.length > 0);
    assert.ok(entity);
    const described = await rerun(async (tx) => tx.table('entities').upsert([{ ...entity, description: `${entity.description} Rebuilt in 1911.` }]));
    const holding = described.communities.filter((community) => community.entityIds.includes(entity.id)).length;
    assert.ok(holding > 0);
    assert.equal(described.counts['inputsHashed'], holding);
    assert.equal(described.counts['regenerated'], holding);
    // Told which entities the run wrote, the step digests only those: told the entity was written, it finds the same
    // communities; told nothing was, it carries the stored digest, and every community its inputs.
    const toldWritten = await rerun(async (tx) => tx.table('entities').upsert([{ ...entity, description: `${entity.description} Rebuilt in 1911.` }]), (table) => (table === 'entities' ? new Set([entity.id]) : new Set()));
    // It reads whole only that entity and the members of the communities it hashes, and writes the reports reading every
    // entity writes.
    const { entitiesRead: readWhole, ...toldCounts } = toldWritten.counts;
    const { entitiesRead: readAll, ...describedCounts } = described.counts;
    assert.deepEqual(toldCounts, describedCounts);
    assert.ok((readWhole ?? Infinity) < (readAll ?? 0), `read ${readWhole} entities whole, against ${readAll}`);
    assert.deepEqual(toldWritten.byCommunity, described.byCommunity);
    assert.deepEqual(toldWritten.reports, described.reports);
    const toldNothing = await rerun(async (tx) => tx.table('entities').upsert([{ ...entity, description: `${entity.description} Rebuilt in 1911.` }]), () => new Set());
    assert.equal(toldNothing.counts['inputsHashed'], 0);
    // Its communities' inputs are what hashing every entity afresh gives: its stored own hash is not carried.
    const describedFresh = await rerun(async (tx) => {
      await tx.table('entities').upsert([{ ...entity, description: `${entity.description} Rebuilt in 1911.` }]);
      const { extractiveBasis: _extractiveBasis, ...rest } = (await tx.getMeta<Record<string, unknown>>('reports:inputs')) ?? {};
      await tx.setMeta('reports:inputs', rest);
    });
    assert.deepEqual(described.byCommunity, describedFresh.byCommunity);
    // A member gone from the entities (the communities still list it): the communities holding it are hashed again, no other.
    const gone = await rerun(async (tx) => void (await tx.table('entities').deleteWhere('id', [entity.id])));
    assert.equal(gone.counts['inputsHashed'], holding);
  });

  test('a kept report is rated from the members communities:members numbers, and from the rows when it cannot be read, to the same rating', async () => {
    const workspace = await indexedCopy();
    const kgrag = await createKgrag({ workspace, env: {} });
    await kgrag.index([hollinsBakery], { methods });
    await kgrag.close();
    /** The reports step run on a copy of the updated index, after `change`: what it counted, and the reports it left. */
    const rerun = async (change: (tx: Store) => Promise<void>, changedKeys?: StepContext['changedKeys']) => {
      const { output, store } = await rerunReportsStep(workspace, change, changedKeys);
      const result = { counts: output.counts ?? {}, reports: byCommunity(await store.table('reports').all()) };
      await store.close();
      return result;
    };
    const asStored = await rerun(async () => undefined);
    assert.equal(asStored.counts['regenerated'], 0, 'nothing changed since the update');
    assert.equal(asStored.counts['written'], 0);
    const fromRows = await rerun(async (tx) => tx.setBlob('communities:members', new Uint8Array([1, 2, 3])));
    assert.deepEqual(fromRows, asStored, 'the rows give the ratings the numbers give');
    // A community whose inputs are carried but whose report row is gone is built again from its row and its members,
    // read whole though no entity changed (told so, the step digests none).
    const [lost, lostReport] = [...asStored.reports].find(([, report]) => report.findings.length > 1) as [string, ReportRecord];
    const rebuilt = await rerun(async (tx) => void (await tx.table('reports').deleteWhere('communityId', [lost])), () => new Set());
    assert.equal(rebuilt.counts['regenerated'], 1);
    assert.equal(rebuilt.counts['inputsHashed'], 0);
    assert.ok((rebuilt.counts['entitiesRead'] ?? 0) > 0, 'its members were read whole');
    const { hid: _hid, ...rebuiltRow } = rebuilt.reports.get(lost) as ReportRecord & { hid?: number };
    const { hid: _lostHid, ...lostRow } = lostReport as ReportRecord & { hid?: number };
    assert.deepEqual(rebuiltRow, lostRow);
    // Numbers planted for one community (every member the best-connected entity) rate its kept report, and only it.
    const store = openSqliteStore(join(workspace, 'kgrag.db'), { readonly: true });
    const members = decodeCommunityMembers((await store.getBlob('communities:members')) as Uint8Array);
    const entities = await store.table('entities').all();
    await store.close();
    assert.ok(members);
    const best = entities.reduce((top, entity, position) => (entity.degree > (entities[top] as typeof entity).degree ? position : top), 0);
    const planted = members.communityIds.findIndex((id, index) => {
      const list = members.members.subarray(members.starts[index], members.starts[index + 1]);
      return list.length > 1 && list.some((position) => position !== best) && asStored.reports.get(id)?.rating !== 10;
    });
    assert.ok(planted >= 0);
    const plantedMembers = Int32Array.from(members.members);
    plantedMembers.fill(best, members.starts[planted], members.starts[planted + 1]);
    const rated = await rerun(async (tx) => tx.setBlob('communities:members', encodeCommunityMembers({ ...members, members: plantedMembers })));
    const community = members.communityIds[planted] as string;
    assert.equal(rated.counts['written'], 1, 'only the planted community\'s report is written again');
    assert.ok((rated.reports.get(community)?.rating ?? 0) > (asStored.reports.get(community)?.rating ?? 0), 'rated from the planted members');
  });

  test("an update takes a kept report's part of the output version from reports:inputs, not from its text; what it stores is what the texts give", async () => {
    const workspace = await indexedCopy();
    const kgrag = await createKgrag({ workspace, env: {} });
    await kgrag.index([hollinsBakery], { methods });
    await kgrag.close();
    const textHashes = (reports: readonly ReportRecord[]): Record<string, string> => Object.fromEntries(reports.map((report) => [report.communityId, contentId('report', report.communityId, report.fullContent)]));
    const versionOf = (communities: ReadonlyArray<{ id: string }>, hashes: Record<string, string>): string => contentId('reports', communities.map((community) => hashes[community.id] as string));
    /** The reports step run on a copy of the updated index, after `change`: its output version, and what it stored. */
    const rerun = async (change: (tx: Store) => Promise<void>) => {
      const { output, store } = await rerunReportsStep(workspace, change);
      const result = {
        counts: output.counts ?? {},
        outputVersion: output.outputVersion,
        stored: (await store.getMeta<{ reportHashes?: Record<string, string> }>('reports:inputs'))?.reportHashes,
        reports: await store.table('reports').all(),
        communities: await store.table('communities').pick(['id']),
      };
      await store.close();
      return result;
    };
    // The update stored every report's hash, as its text gives it, and recorded the output version those give.
    const store = openSqliteStore(join(workspace, 'kgrag.db'));
    const reports = await store.table('reports').all();
    const communities = await store.table('communities').pick(['id']);
    const stored = (await store.getMeta<{ reportHashes?: Record<string, string> }>('reports:inputs'))?.reportHashes;
    const record = (await store.table('runs').all()).find((run) => run.step === 'reports');
    const entities = await store.table('entities').all();
    await store.close();
    assert.deepEqual(stored, textHashes(reports));
    assert.equal(record?.outputVersion, versionOf(communities, textHashes(reports)));
    // Run again over the same index: every report is kept in place, and its stored hash is what the output version reads.
    const planted = { ...stored, [reports[0]?.communityId as string]: 'planted' };
    const again = await rerun(async (tx) => tx.setMeta('reports:inputs', { ...(await tx.getMeta<Record<string, unknown>>('reports:inputs')), reportHashes: planted }));
    assert.equal(again.counts['regenerated'], 0);
    assert.equal(again.outputVersion, versionOf(again.communities, planted), 'a kept report in place is not read and hashed again');
    // An index stored before the hashes were: the kept reports' texts are read, to the same version, and the hashes stored.
    const without = await rerun(async (tx) => {
      const { reportHashes: _reportHashes, ...rest } = (await tx.getMeta<Record<string, unknown>>('reports:inputs')) ?? {};
      await tx.setMeta('reports:inputs', rest);
    });
    assert.equal(without.outputVersion, record?.outputVersion);
    assert.deepEqual(without.stored, stored);
    // A member whose description changed: its communities' reports are rebuilt and hashed from their new texts.
    const entity = entities.find((row) => row.description.length > 0);
    assert.ok(entity);
    const described = await rerun(async (tx) => tx.table('entities').upsert([{ ...entity, description: `${entity.description} Rebuilt in 1911.` }]));
    assert.ok((described.counts['regenerated'] ?? 0) > 0);
    assert.deepEqual(described.stored, textHashes(described.reports));
    assert.equal(described.outputVersion, versionOf(described.communities, textHashes(described.reports)));
  });

  test('with the relations table out of id order, every community still lists exactly its inner relations, sorted by id', async () => {
    const workspace = await indexedCopy();
    // The graph steps write the table in id order, and a community then takes the table order for id order; rows
    // written in another order (reversed here, on a copy of the index) must not change what a community lists.
    const copy = join(root, `copy-${workspaces}.db`);
    copyFileSync(join(workspace, 'kgrag.db'), copy);
    const store = openSqliteStore(copy);
    await store.transaction(async (tx) => {
      const rows = await tx.table('relations').all();
      await tx.table('relations').clear();
      await tx.table('relations').upsert(rows.map(({ hid: _hid, ...row }) => row).reverse());
    });
    const relations = await store.table('relations').pick(['id', 'source', 'target']);
    const ids = relations.map((relation) => relation.id);
    assert.ok(ids.some((id, index) => index > 0 && (ids[index - 1] as string) > id), 'the table is out of id order');
    const config = configSchema.parse({ communities: { incremental: false } });
    const context: StepContext = { store, config, tokenizer: await createTokenizer(config.tokenizer.encoding), embedder: undefined as never, llm: undefined, prompts: builtInPrompts, inputs: { paths: [], documents: [] }, signal: undefined, progress: () => undefined, warn: () => undefined };
    const output = await createCommunitiesStep('nlp-extract').run(context);
    await store.transaction(async (tx) => output.write?.(tx));
    const communities = await store.table('communities').all();
    assert.ok(communities.some((community) => community.relationIds.length > 1));
    for (const community of communities) {
      const members = new Set(community.entityIds);
      const inner = relations.filter((relation) => members.has(relation.source) && members.has(relation.target)).map((relation) => relation.id);
      assert.deepEqual(community.relationIds, [...inner].sort(), `relations of ${community.title}`);
    }
    await store.close();
  });

  test('with incremental off the communities are clustered afresh, as a first build would', async () => {
    const workspace = join(root, `ws-${workspaces++}`);
    const config: KgragConfigInput = { communities: { incremental: false } };
    const kgrag = await createKgrag({ workspace, env: {}, config });
    await kgrag.index([corpus], { methods });
    const summary = await kgrag.index([{ title: 'Hollins Bakery', text: 'Hollins Bakery opened on the Quay in 1999 and sells rye bread to the Ferry Inn.' }], { methods });
    assert.deepEqual(Object.keys(summary.counts.communities ?? {}).sort(), ['communities', 'levels']);
    const titles = (await kgrag.store.table('communities').all()).map((community) => community.title);
    assert.deepEqual(titles, titles.map((_, index) => `Community ${index + 1}`));
    await kgrag.close();
  });
});

/** A document about a glassworks that shares no entity with the sample corpus, and one that links it to Kestermouth. */
const glassworks = {
  title: 'Quillon Glassworks',
  text: '# Quillon Glassworks\n\nQuillon Glassworks was founded by Ada Quillon on Vetro Lane. Its kiln master is Piet Orlen.\n',
};
const glassworksExtraction = {
  entities: [
    { name: 'Quillon Glassworks', type: 'organization', description: 'Quillon Glassworks is a glassworks on Vetro Lane.' },
    { name: 'Ada Quillon', type: 'person', description: 'Ada Quillon founded Quillon Glassworks.' },
    { name: 'Vetro Lane', type: 'geo', description: 'Vetro Lane is the street of Quillon Glassworks.' },
    { name: 'Piet Orlen', type: 'person', description: 'Piet Orlen is the kiln master of Quillon Glassworks.' },
  ],
  relationships: [
    { source: 'Ada Quillon', target: 'Quillon Glassworks', description: 'Ada Quillon founded Quillon Glassworks.', strength: 9 },
    { source: 'Quillon Glassworks', target: 'Vetro Lane', description: 'Quillon Glassworks stands on Vetro Lane.', strength: 7 },
    { source: 'Piet Orlen', target: 'Quillon Glassworks', description: 'Piet Orlen is its kiln master.', strength: 8 },
  ],
};
const ferry = {
  title: 'Ferry Inn glass',
  text: '# Ferry Inn glass\n\nThe Ferry Inn in Kestermouth ordered its new windows from Quillon Glassworks.\n',
};
const ferryExtraction = {
  entities: [
    { name: 'Ferry Inn', type: 'organization', description: 'The Ferry Inn ordered new windows from Quillon Glassworks.' },
    { name: 'Quillon Glassworks', type: 'organization', description: 'Quillon Glassworks made the new windows of the Ferry Inn.' },
  ],
  relationships: [{ source: 'Ferry Inn', target: 'Quillon Glassworks', description: 'The Ferry Inn bought its windows from Quillon Glassworks.', strength: 6 }],
};

/** The sample responder, with extraction replies for the two documents above (nothing more found when gleaning). */
function reply(request: ChatRequest): string {
  const first = request.messages.find((message) => message.role === 'user')?.content ?? '';
  const extraction = first.includes('# Quillon Glassworks\n') ? glassworksExtraction : first.includes('# Ferry Inn glass\n') ? ferryExtraction : undefined;
  if (extraction && request.purpose?.startsWith('extract-graph')) {
    const turns = request.messages.filter((message) => message.role === 'assistant').length;
    if (turns === 0) return JSON.stringify(extraction);
    return request.purpose === 'extract-graph-glean' ? JSON.stringify({ entities: [], relationships: [] }) : 'N';
  }
  return sampleLlmReply(request);
}

describe('standard mode (scripted LLM): reports are paid for only where the change reached', () => {
  const llm = createScriptedLanguageModel({ responses: [{ match: () => true, reply }] });
  const workspace = join(root, 'standard');
  const open = (): Promise<Kgrag> => createKgrag({ workspace, env: {}, llm });
  const reportCalls = (from: number): number => llm.calls.slice(from).filter((call) => call.purpose === 'community-report').length;

  test('a document with entities of its own: every earlier community keeps its id and members, every earlier report is kept, only the new communities are reported on', async () => {
    const kgrag = await open();
    await kgrag.index([corpus], { mode: 'standard', methods });
    const before = await tables(kgrag);
    const calls = llm.calls.length;
    const summary = await kgrag.index([glassworks], { mode: 'standard', methods });
    const after = await tables(kgrag);
    const now = byId(after.communities);
    for (const community of before.communities) {
      const kept = now.get(community.id);
      assert.ok(kept, `community ${community.title} kept its id`);
      assert.deepEqual(kept, community, 'with the same row');
    }
    const added = after.communities.filter((community) => !before.communities.some((old) => old.id === community.id));
    assert.ok(added.length >= 1);
    assert.ok(added.every((community) => community.entityIds.length <= 4), 'the new communities are the glassworks');
    assert.deepEqual(summary.counts.reports, { reports: after.reports.length, failed: 0, reused: before.reports.length, regenerated: added.length, written: added.length, llmCriticalPath: 1 });
    assert.equal(reportCalls(calls), added.length, 'one LLM call per new community, none for the rest');
    const earlier = byCommunity(before.reports);
    for (const report of after.reports) {
      const old = earlier.get(report.communityId);
      if (old) assert.deepEqual(report, old, 'a kept report is the same row');
    }
    await kgrag.close();
  });

  test('a document that links it to an existing entity: only the reports of communities whose context changed are regenerated, bottom-up', async () => {
    const kgrag = await open();
    const before = await tables(kgrag);
    const entitiesBefore = byId(await kgrag.store.table('entities').all());
    const relationsBefore = byId(await kgrag.store.table('relations').all());
    const calls = llm.calls.length;
    const summary = await kgrag.index([ferry], { mode: 'standard', methods });
    const after = await tables(kgrag);
    const counts = summary.counts.reports ?? {};
    const regenerated = counts['regenerated'] ?? 0;
    assert.equal(reportCalls(calls), regenerated, 'every regenerated report is one LLM call');
    assert.ok(regenerated >= 1 && regenerated < after.reports.length, `regenerated ${regenerated} of ${after.reports.length}`);
    assert.equal(counts['reused'], after.reports.length - regenerated);
    // A community whose members, their texts and inner relations are unchanged, and whose sub-communities kept
    // their reports, keeps its report.
    const entities = byId(await kgrag.store.table('entities').all());
    const relations = byId(await kgrag.store.table('relations').all());
    const communitiesBefore = byId(before.communities);
    const earlier = byCommunity(before.reports);
    const reports = byCommunity(after.reports);
    const sameEntity = (id: string): boolean => {
      const [old, now] = [entitiesBefore.get(id), entities.get(id)];
      return old !== undefined && now !== undefined && old.title === now.title && old.type === now.type && old.description === now.description;
    };
    const sameRelation = (id: string): boolean => relationsBefore.get(id)?.description === relations.get(id)?.description && relations.has(id);
    const untouched = (community: CommunityRecord): boolean => {
      const old = communitiesBefore.get(community.id);
      return (
        old !== undefined &&
        old.entityIds.join() === community.entityIds.join() &&
        old.relationIds.join() === community.relationIds.join() &&
        community.entityIds.every(sameEntity) &&
        community.relationIds.every(sameRelation) &&
        community.children.every((child) => reports.get(child)?.fullContent === earlier.get(child)?.fullContent)
      );
    };
    const deepestFirst = [...after.communities].sort((left, right) => right.level - left.level);
    let expectedKept = 0;
    for (const community of deepestFirst) {
      if (!untouched(community)) continue;
      expectedKept++;
      assert.equal(reports.get(community.id)?.fullContent, earlier.get(community.id)?.fullContent, `${community.title} kept its report`);
    }
    assert.ok(expectedKept > 0);
    await kgrag.close();
  });
});
