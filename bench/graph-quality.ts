/*
 * Issue 40: what a newcomer sees first of the fast-mode entity graph. The 2Wiki fast index (built for `local`, whose
 * graph and communities the explorer draws) is read back:
 * - `top300_generic_share`: of the 300 entities of highest degree (the explorer's first screen), the share whose name is
 *   a generic phrase — no capital letter and no digit ("same time", "commercial success"); the list goes to stderr;
 * - `top300_common_word_share`: of the same 300, the share of one-word names that the corpus writes in lower case more
 *   often than capitalised inside a sentence ("Born", "Shortly": capitalised only where they open a sentence);
 * - `title_entity_recall`: the share of 2Wiki's passage titles (each names the person, film or place its passage is
 *   about) found as an entity's name or alias, compared case- and punctuation-insensitively;
 *   `title_entity_recall_written`: the same without the aliases that are document titles its text never writes (those
 *   come from the title itself, `extract.nlp.titleAliases`), so what the text alone yields;
 * - `alias_merges`: how many names were merged into another entity (`kgrag entities merges`: document titles, and short
 *   names with `extract.nlp.mergeShortNames`), with 20 drawn at random (seeded) for a person to check; `aliases`:
 *   every alias the entities hold.
 * Deterministic: one run.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createKgrag } from '../src/api/create-kgrag.js';
import { createRandom } from '../src/core/random.js';
import { type BenchResult, result, runChild, sharedDatasets } from './bench-utils.js';

/** A name compared without case, accent marks, punctuation or a leading article ("The Intercept" is "Intercept"). */
function comparable(name: string): string {
  return name
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim()
    .replace(/^(the|a|an) /, '');
}

/** A generic phrase: no capital letter and no digit anywhere in the name. */
export function isGenericName(name: string): boolean {
  return !/[\p{Lu}\p{N}]/u.test(name);
}

export async function benchGraphQuality(): Promise<Record<string, BenchResult>> {
  const corpusFile = join(sharedDatasets, '2wiki-corpus/corpus.json');
  const corpus = JSON.parse(readFileSync(corpusFile, 'utf8')) as Array<{ title: string; text: string }>;
  const workspace = mkdtempSync(join(tmpdir(), 'kgrag-bench-graph-quality-'));
  try {
    process.stderr.write('  indexing 2Wiki (fast mode, method local)\n');
    runChild('./index-child.ts', ['--methods', 'local', workspace, corpusFile]);
    const kgrag = await createKgrag({ workspace, env: {} });
    try {
      const entities = await kgrag.store.table('entities').all();
      const top = [...entities].sort((a, b) => b.degree - a.degree || a.title.localeCompare(b.title)).slice(0, 300);
      const generic = top.filter((entity) => isGenericName(entity.title));
      process.stderr.write(`  generic names among the top ${top.length} by degree (${generic.length}): ${generic.map((entity) => entity.title).join(', ')}\n`);
      // Words of the corpus written in lower case, and capitalised inside a sentence (after a word, not after a full stop).
      const lowerCase = new Map<string, number>();
      const capitalisedInside = new Map<string, number>();
      for (const passage of corpus) {
        for (const match of passage.text.matchAll(/(^|[.!?]\s+|\s)(\p{L}+)/gu)) {
          const word = match[2] as string;
          const opening = match[1] !== ' ' && match[1] !== '\n' && match[1] !== '\t';
          if (/^\p{Ll}/u.test(word)) lowerCase.set(word, (lowerCase.get(word) ?? 0) + 1);
          else if (!opening) capitalisedInside.set(word.toLowerCase(), (capitalisedInside.get(word.toLowerCase()) ?? 0) + 1);
        }
      }
      const commonWord = top.filter((entity) => /^\p{Lu}\p{Ll}+$/u.test(entity.title) && (lowerCase.get(entity.title.toLowerCase()) ?? 0) > (capitalisedInside.get(entity.title.toLowerCase()) ?? 0));
      process.stderr.write(`  one-word names among the top ${top.length} that the corpus writes in lower case more often than capitalised inside a sentence (${commonWord.length}): ${commonWord.map((entity) => entity.title).join(', ')}\n`);
      const merged = await kgrag.graph.aliasMerges({ limit: 10_000 });
      if (merged.length === 10_000) throw new Error('graph-quality: 10,000 merges or more; the written-only recall needs them all');
      const titleAliases = new Set(merged.filter((merge) => merge.kind === 'document title').map((merge) => `${merge.entityId}\u0000${merge.name}`));
      const names = new Set(entities.flatMap((entity) => [entity.title, ...entity.aliases].map(comparable)));
      const writtenNames = new Set(entities.flatMap((entity) => [entity.title, ...entity.aliases.filter((alias) => !titleAliases.has(`${entity.id}\u0000${alias}`))].map(comparable)));
      const titles = [...new Set(corpus.map((passage) => comparable(passage.title.replace(/\s*\([^()]*\)$/, ''))))];
      const found = titles.filter((title) => names.has(title)).length;
      const foundWritten = titles.filter((title) => writtenNames.has(title)).length;
      const missing = titles.filter((title) => !names.has(title));
      const missingRandom = createRandom(41);
      const missingSample = Array.from({ length: Math.min(40, missing.length) }, () => missing[Math.floor(missingRandom() * missing.length)] as string);
      process.stderr.write(`  ${missing.length} titles not found; 40 drawn at random: ${missingSample.join('; ')}\n`);
      const aliases = entities.flatMap((entity) => entity.aliases.filter((alias) => alias !== entity.title));
      const merges = merged.map((merge) => `${merge.name} → ${merge.title}`);
      const byKind = new Map<string, number>();
      for (const merge of merged) byKind.set(merge.kind, (byKind.get(merge.kind) ?? 0) + 1);
      const random = createRandom(40);
      const sample = Array.from({ length: Math.min(20, merges.length) }, () => merges[Math.floor(random() * merges.length)] as string);
      const kinds = [...byKind].map(([kind, count]) => `${count} ${kind}s`).join(', ') || 'none';
      process.stderr.write(`  ${merges.length} names merged into another entity (${kinds}); 20 drawn at random: ${sample.join('; ') || 'none'}\n`);
      return {
        top300_generic_share: result([generic.length / Math.max(1, top.length)], `share (${generic.length} of ${top.length}; the list is on stderr)`),
        top300_common_word_share: result([commonWord.length / Math.max(1, top.length)], `share (${commonWord.length} of ${top.length}: one-word names the corpus mostly writes in lower case — "Born", "Shortly"; list on stderr)`),
        title_entity_recall: result([found / Math.max(1, titles.length)], `share (${found} of ${titles.length} distinct passage titles)`),
        title_entity_recall_written: result([foundWritten / Math.max(1, titles.length)], `share (${foundWritten} of ${titles.length}: found without the document-title aliases)`),
        alias_merges: result([merges.length], `names merged into another entity (${kinds}; 20 on stderr)`),
        aliases: result([aliases.length], 'aliases held by entities (other spellings and inflections besides the merges)'),
        entities: result([entities.length], 'count'),
      };
    } finally {
      await kgrag.close();
    }
  } finally {
    rmSync(workspace, { recursive: true, force: true });
  }
}
