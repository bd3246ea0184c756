import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createKgrag } from '../../src/api/create-kgrag.js';
import type { ClaimRecord } from '../../src/core/types.js';
import type { Store } from '../../src/store/store.js';

const corpus = fileURLToPath(new URL('../../examples/sample-corpus/', import.meta.url));

/**
 * Text an export must carry through unharmed: quotes, commas, every kind of line break, markup, and characters
 * XML 1.0 forbids (C0 controls, a lone surrogate, U+FFFE/U+FFFF) beside an astral character that is allowed.
 */
export const hostileText = 'He said "stop, now";\nthen\r\nleft & <came> back\u0001\u000B\u001F \uD800 \uFFFE\uFFFF end 𝄞\ttab';

let built: Promise<Store> | undefined;

/**
 * A small fast-mode index with three community levels (seven documents of the sample corpus, communities split at
 * four entities), built once per process and shared by the export tests, which only read it. The first entity
 * and relation are given {@link hostileText}, aliases and keywords that hold the array delimiter, and the index
 * gets claims, which a fast index has none of (they come from the LLM in standard mode): one about an entity of
 * the index with another as its object, one about a name no entity has.
 */
export function exportTestIndex(): Promise<Store> {
  built ??= (async () => {
    const kgrag = await createKgrag({
      workspace: mkdtempSync(join(tmpdir(), 'kgrag-export-')),
      env: {},
      config: { store: { path: ':memory:' }, index: { mode: 'fast' }, pipeline: { methods: ['local'] }, communities: { maxClusterSize: 4 } },
    });
    const files = ['02-river-kester.md', '03-kester-weir-bridge.md', '05-clara-ivesley.md', '06-marle-boatworks.md', '07-obituary-tobias-marle.md', '16-harold-marle.md', '20-the-ferry-inn.md'];
    await kgrag.index(files.map((file) => join(corpus, file)));
    const store = kgrag.store;
    const [first, second] = await store.table('entities').all();
    const [relation] = await store.table('relations').all();
    const [chunk] = await store.table('chunks').all();
    if (first === undefined || second === undefined || relation === undefined || chunk === undefined) throw new Error('the export test index has no graph');
    await store.table('entities').upsert([{ ...first, description: hostileText, aliases: ['Old; name', 'A "quoted", alias'] }]);
    await store.table('relations').upsert([{ ...relation, description: hostileText, keywords: ['flood', 'weir; bridge'] }]);
    const claim = (id: string, fields: Partial<ClaimRecord>): ClaimRecord => ({
      id,
      subject: first.id,
      object: null,
      type: 'EMPLOYMENT',
      status: 'TRUE',
      startDate: null,
      endDate: null,
      description: hostileText,
      sourceText: chunk.text,
      chunkId: chunk.id,
      ...fields,
    });
    await store.table('claims').upsert([
      claim('claim-about-entities', { object: second.id, startDate: '1955-01-01', endDate: '1955-12-31' }),
      claim('claim-about-a-name', { subject: 'Nobody In This Index', status: 'SUSPECTED', description: 'a "plain", short claim' }),
    ]);
    // The store stays open for the rest of the process: it is in memory and every export test reads it.
    return store;
  })();
  return built;
}
