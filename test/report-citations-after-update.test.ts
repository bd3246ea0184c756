// A community report kept by an update cites its records by the numbers the index shows them under now: deleting a
// document renumbers the entities after it, and a kept report's `[Data: Entities (n)]` must follow (issue 18).
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { createKgrag, type Kgrag } from '../src/api/create-kgrag.js';
import type { ChatRequest } from '../src/providers/llm/language-model.js';
import { createScriptedLanguageModel } from '../src/testing/index.js';
import { sampleLlmReply, type ResponderRequest } from './helpers/sample-llm-responder.js';

const corpus = new URL('../examples/sample-corpus/', import.meta.url).pathname;
const files = readdirSync(corpus)
  .sort()
  .map((file) => join(corpus, file));

/** A report that names its first three entities and cites each by the number its context shows. */
function citingReport(prompt: string): string {
  const start = prompt.lastIndexOf('-----Entities-----');
  const end = prompt.indexOf('-----', start + '-----Entities-----'.length);
  const entities = prompt.slice(start, end < 0 ? undefined : end);
  const rows = [...entities.matchAll(/^(\d+),("?)([^,"]+)\2,/gm)].slice(0, 3).map((match) => ({ hid: match[1] as string, title: match[3] as string }));
  const title = rows.map((row) => row.title).join(', ') || 'Kestermouth community';
  return JSON.stringify({
    title,
    summary: `This community centres on ${title}.`,
    rating: 5,
    rating_explanation: 'Importance follows the number of central entities.',
    findings: rows.map((row) => ({ summary: `${row.title} is central`, explanation: `${row.title} matters [Data: Entities (${row.hid})].` })),
  });
}

/** Every finding's citation, checked against the entity the index numbers so. */
async function wrongCitations(kgrag: Kgrag): Promise<{ checked: number; wrong: string[] }> {
  const titleOf = new Map((await kgrag.store.table('entities').pick(['title'])).map((entity) => [entity.hid, entity.title]));
  const wrong: string[] = [];
  let checked = 0;
  for (const report of await kgrag.store.table('reports').all()) {
    if (report.generatedBy !== 'llm') continue;
    for (const finding of report.findings) {
      const match = /^(.*) matters \[Data: Entities \((\d+)\)\]\.$/.exec(finding.explanation);
      if (!match) continue;
      checked++;
      const cited = titleOf.get(Number(match[2]));
      if (cited?.toUpperCase() !== (match[1] as string).toUpperCase()) wrong.push(`${finding.explanation} cites "${cited}"`);
    }
  }
  return { checked, wrong };
}

describe('kept reports cite the records by their new numbers', { timeout: 300_000 }, () => {
  const folders: string[] = [];
  after(() => {
    for (const folder of folders) rmSync(folder, { recursive: true, force: true });
  });

  it('after a deletion renumbers the entities', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'kgrag-report-citations-'));
    folders.push(folder);
    const llm = createScriptedLanguageModel({
      responses: [
        {
          reply: (request: ChatRequest) => {
            const prompt = request.messages.map((message) => message.content).join('\n');
            return prompt.includes('-----Entities-----') ? citingReport(prompt) : sampleLlmReply(request as ResponderRequest);
          },
        },
      ],
    });
    const kgrag = await createKgrag({ workspace: folder, env: {}, llm, config: { index: { mode: 'standard' }, pipeline: { methods: ['global'] } } });
    try {
      await kgrag.index(files);
      const built = await wrongCitations(kgrag);
      assert.ok(built.checked > 20);
      assert.deepEqual(built.wrong, [], 'after the build');
      const hidsBefore = new Map((await kgrag.store.table('entities').pick(['id'])).map((entity) => [entity.id, entity.hid]));

      const summary = await kgrag.delete([files[0] as string]);
      const hidsAfter = (await kgrag.store.table('entities').pick(['id'])).filter((entity) => hidsBefore.has(entity.id) && hidsBefore.get(entity.id) !== entity.hid);
      assert.ok(hidsAfter.length > 10, 'the deletion renumbered entities');
      assert.ok((summary.run.counts.reports?.['reused'] ?? 0) > 5, 'reports were kept');
      const updated = await wrongCitations(kgrag);
      assert.ok(updated.checked > 20);
      assert.deepEqual(updated.wrong, [], 'after the deletion');
    } finally {
      await kgrag.close();
    }
  });
});
