// Issue 38: extractive report ratings are rescaled by the highest raw rating fitted at the last refresh, so an update
// that raises the highest one does not rewrite every report row; a refresh rescales them as a fresh build does. Likewise
// a report rebuilt between refreshes orders its members by the degrees of the last refresh, so a community that takes in
// a new member keeps the title and findings its report had; a refresh orders by the current degrees.
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createKgrag, type Kgrag } from '../src/api/create-kgrag.js';
import type { ReportRecord } from '../src/core/types.js';
import { extractiveRating } from '../src/extract/reports/extractive-report.js';
import { reportInputsKey, reportOrderingKey } from '../src/pipeline/steps/reports-step.js';
import { openSqliteStore } from '../src/store/sqlite/sqlite-store.js';

const corpus = fileURLToPath(new URL('../examples/sample-corpus', import.meta.url));
const root = mkdtempSync(join(tmpdir(), 'kgrag-report-rating-'));
after(() => rmSync(root, { recursive: true, force: true }));
const methods = ['global'];

/** Each report with the raw rating of its community's members (before any rescaling). */
async function ratedReports(kgrag: Kgrag): Promise<Map<string, { report: ReportRecord; raw: number }>> {
  const degrees = new Map((await kgrag.store.table('entities').pick(['id', 'degree'])).map((entity) => [entity.id, entity]));
  const members = new Map((await kgrag.store.table('communities').pick(['id', 'entityIds'])).map((community) => [community.id, community.entityIds]));
  const rated = new Map<string, { report: ReportRecord; raw: number }>();
  for (const report of await kgrag.store.table('reports').all()) {
    rated.set(report.communityId, { report, raw: extractiveRating(members.get(report.communityId) ?? [], (id) => degrees.get(id)?.degree ?? 0) });
  }
  return rated;
}

/** The hash of the inputs each report was written from, by community (what the reports step keeps a report by). */
async function reportInputsOf(kgrag: Kgrag): Promise<Map<string, string>> {
  return new Map(Object.entries((await kgrag.store.getMeta<{ byCommunity: Record<string, string> }>(reportInputsKey))?.byCommunity ?? {}));
}

type Ordering = Map<string, { degree: number; frequency: number }>;

async function orderingOf(kgrag: Kgrag): Promise<Ordering> {
  return new Map((await kgrag.store.table('entities').pick(['id', 'degree', 'frequency'])).map((entity) => [entity.id, entity]));
}

/** Each report's finding entities (found by their `Title (type)` among its members), in the order the report lists them. */
async function findingEntities(kgrag: Kgrag): Promise<Map<string, string[]>> {
  const entities = new Map((await kgrag.store.table('entities').pick(['id', 'title', 'type'])).map((entity) => [entity.id, entity]));
  const members = new Map((await kgrag.store.table('communities').pick(['id', 'entityIds'])).map((community) => [community.id, community.entityIds]));
  const found = new Map<string, string[]>();
  for (const report of await kgrag.store.table('reports').all()) {
    const bySummary = new Map<string, string>();
    for (const id of members.get(report.communityId) ?? []) {
      const entity = entities.get(id);
      if (entity) bySummary.set(`${entity.title} (${entity.type})`, id);
    }
    found.set(report.communityId, report.findings.map((finding) => bySummary.get(finding.summary) ?? ''));
  }
  return found;
}

/** Whether `ids` are in descending degree, then frequency, by `ordering` (an id missing from it by `own`). */
function inOrder(ids: readonly string[], ordering: Ordering, own: Ordering): boolean {
  const of = (id: string) => ordering.get(id) ?? own.get(id) ?? { degree: 0, frequency: 0 };
  return ids.every((id, index) => {
    if (index === 0) return true;
    const left = of(ids[index - 1] as string);
    const right = of(id);
    return left.degree > right.degree || (left.degree === right.degree && left.frequency >= right.frequency);
  });
}

const highestRaw = (rated: ReadonlyMap<string, { raw: number }>): number => Math.max(...[...rated.values()].map((entry) => entry.raw));

/** Made-up places no document names: each becomes a new phrase tied to the ones it is mentioned with. */
const newPlaces = ['Zarnby Mill', 'Quellon Yard', 'Vostrick Hall', 'Ombery Lock', 'Tessaly Wharf', 'Grindle Barn', 'Huxom Chapel', 'Pellory Court', 'Wendacre Forge', 'Brissel Cross', 'Moxley Stile', 'Dunnock Kiln'];

/** A document that mentions the members of the highest-rated community with new places, raising their degrees. */
async function hubOf(kgrag: Kgrag, rated: ReadonlyMap<string, { report: ReportRecord; raw: number }>): Promise<{ title: string; text: string }> {
  const [top] = [...rated.entries()].sort((left, right) => right[1].raw - left[1].raw);
  assert.ok(top);
  const community = (await kgrag.store.table('communities').get([top[0]]))[0];
  assert.ok(community);
  const members = (await kgrag.store.table('entities').get(community.entityIds)).sort((left, right) => right.degree - left.degree || (left.id < right.id ? -1 : 1));
  const titles = members.slice(0, 8).map((entity) => entity.title);
  const sentences = newPlaces.map((place, index) => `The ${titles[index % titles.length]} and the ${titles[(index + 3) % titles.length]} were recorded at ${place}.`);
  // The third-ranked member meets entities of other communities: it gains edges and overtakes the second.
  const inside = new Set(community.entityIds);
  const others = (await kgrag.store.table('entities').pick(['id', 'title', 'degree'])).filter((entity) => !inside.has(entity.id) && entity.degree > 0).sort((left, right) => right.degree - left.degree || (left.id < right.id ? -1 : 1));
  sentences.push(...others.slice(0, 12).map((other) => `The ${titles[2]} stood by the ${other.title}.`));
  return { title: 'Kestermouth almanac', text: `# Kestermouth almanac\n\n${sentences.join(' ')}\n` };
}

describe('extractive report ratings between refreshes', () => {
  test('an update that raises the highest raw rating rewrites only the reports whose own rating or text changed, rebuilt ones ordered by the last refresh; a refresh rescales as a fresh build and orders by the current degrees from then on', async () => {
    const kgrag = await createKgrag({ workspace: join(root, 'ws'), env: {}, config: { index: { mode: 'fast', refreshShare: 1 } } });
    await kgrag.index([corpus], { methods });
    const before = await ratedReports(kgrag);
    assert.equal(Math.max(...[...before.values()].map((entry) => entry.report.rating)), 10, 'a fresh build rates its highest report 10');
    const fitted = await orderingOf(kgrag);
    const inputsBefore = await reportInputsOf(kgrag);

    await kgrag.index([await hubOf(kgrag, before)], { methods });
    const updated = await ratedReports(kgrag);
    assert.ok(highestRaw(updated) > highestRaw(before), 'the added document raises the highest raw rating (the case under test)');
    let unchanged = 0;
    for (const [communityId, { report, raw }] of updated) {
      assert.ok(report.rating >= 0 && report.rating <= 10, `rating ${report.rating} stays on the 0–10 scale`);
      const earlier = before.get(communityId);
      if (earlier === undefined || earlier.raw !== raw || earlier.report.fullContent !== report.fullContent) continue;
      unchanged++;
      assert.equal(report.rating, earlier.report.rating, `${report.title}: same members' degrees, same rating`);
      assert.equal(report.hid, earlier.report.hid, `${report.title}: its row is not rewritten`);
    }
    assert.ok(unchanged > 0, 'some reports kept their text and raw rating');
    const current = await orderingOf(kgrag);
    const findings = await findingEntities(kgrag);
    // Rebuilt: written from other inputs than before (a report rebuilt may read as it did).
    const inputsAfter = await reportInputsOf(kgrag);
    const rebuilt = [...updated.keys()].flatMap((communityId) => (inputsBefore.get(communityId) === inputsAfter.get(communityId) ? [] : [findings.get(communityId) ?? []]));
    assert.ok([...updated].every(([communityId, { report }]) => before.get(communityId)?.report.fullContent === report.fullContent || inputsBefore.get(communityId) !== inputsAfter.get(communityId)), 'a report whose text changed was rebuilt');
    assert.ok(rebuilt.length > 0, 'the update rebuilds some reports');
    for (const ids of rebuilt) assert.ok(inOrder(ids, fitted, current), `findings ${ids.join(', ')} in the order of the last refresh's degrees`);
    assert.ok(
      rebuilt.some((ids) => !inOrder(ids, current, current)),
      'some rebuilt report lists its findings out of the current degrees order (the case under test)',
    );

    await kgrag.index([], { methods, refresh: true });
    const refreshed = await ratedReports(kgrag);
    const highest = highestRaw(refreshed);
    for (const { report, raw } of refreshed.values()) assert.equal(report.rating, Math.round((raw / highest) * 100) / 10, `${report.title}: rescaled by the refreshed highest`);
    // Reports rebuilt from here on are ordered by the refreshed degrees (kept ones keep their text, as ever).
    const refitted = await orderingOf(kgrag);
    const stored = await kgrag.store.getMeta<StoredOrdering>(reportOrderingKey);
    assert.equal(stored?.version, 2);
    assert.deepEqual(
      new Map(stored?.ids.map((id, position) => [id, { degree: stored.degrees[position], frequency: stored.frequencies[position] }])),
      new Map([...refitted].map(([id, entity]) => [id, { degree: entity.degree, frequency: entity.frequency }])),
    );
    await kgrag.close();
  });

  test('an ordering stored by an earlier version (one object of them) orders the rebuilt reports as the stored lists do', async () => {
    const built = join(root, 'lists');
    const first = await createKgrag({ workspace: built, env: {}, config: { index: { mode: 'fast', refreshShare: 1 } } });
    await first.index([corpus], { methods });
    const hub = await hubOf(first, await ratedReports(first));
    await first.close();
    const earlier = join(root, 'object');
    cpSync(built, earlier, { recursive: true });
    const store = openSqliteStore(join(earlier, 'kgrag.db'));
    const lists = await store.getMeta<StoredOrdering>(reportOrderingKey);
    assert.ok(lists);
    await store.transaction((tx) => tx.setMeta(reportOrderingKey, { version: 1, byEntity: Object.fromEntries(lists.ids.map((id, position) => [id, [lists.degrees[position], lists.frequencies[position]]])) }));
    await store.close();
    const updated = await Promise.all(
      [built, earlier].map(async (workspace) => {
        const kgrag = await createKgrag({ workspace, env: {}, config: { index: { mode: 'fast', refreshShare: 1 } } });
        const summary = await kgrag.index([hub], { methods });
        const reports = await kgrag.store.table('reports').all();
        await kgrag.close();
        return { reports, written: summary.counts.reports?.['written'] };
      }),
    );
    assert.ok((updated[0]?.written ?? 0) > 0, 'the update rebuilds some reports');
    assert.deepEqual(updated[1], updated[0]);
  });
});

/** The meta record of the ordering, as this version writes it. */
interface StoredOrdering {
  version: number;
  ids: string[];
  degrees: number[];
  frequencies: number[];
}
