import { createRequire } from 'node:module';
import type { NlpExtractConfig } from '../../core/config/config-schema.js';
import type { EntityRecord } from '../../core/types.js';

/** Untyped proper nouns typed by compromise in `auto` mode, most frequent first (cost per name: docs/BENCHMARKS.md). */
export const autoTypingLimit = 2000;

/** Where `auto` typing stopped: the last name it typed, in its order (most frequent first, then id). */
export interface TypingCutoff {
  frequency: number;
  id: string;
}

const typingOrder = (left: Pick<EntityRecord, 'frequency' | 'id'>, right: Pick<EntityRecord, 'frequency' | 'id'>): number =>
  right.frequency - left.frequency || (left.id < right.id ? -1 : left.id > right.id ? 1 : 0);

/**
 * The cutoff of `auto` typing over these entities, or null when it types every untyped proper noun (fewer than the
 * limit). An update between refreshes types a new or changed name when it ranks before the cutoff of the last refresh.
 */
export function autoTypingCutoff(entities: readonly EntityRecord[]): TypingCutoff | null {
  const untyped = entities.filter((entity) => entity.type === 'proper noun').sort(typingOrder);
  const last = untyped.length > autoTypingLimit ? untyped[autoTypingLimit - 1] : undefined;
  return last ? { frequency: last.frequency, id: last.id } : null;
}

/** Whether `auto` typing with this cutoff types the entity (given it is an untyped proper noun). */
export function withinTypingCutoff(entity: Pick<EntityRecord, 'frequency' | 'id'>, cutoff: TypingCutoff | null): boolean {
  return cutoff === null || typingOrder(entity, cutoff) <= 0;
}

/**
 * Assigns person / geo / organization to proper nouns that no cue word typed, using compromise's
 * lexicon-based tagger on the name itself. It is slow (an order of magnitude slower than wink-nlp), so `auto` types only the
 * most frequent names; `compromise` types all of them. Entities are updated in place. With `memo`, the type found for
 * each name it tagged is recorded there ('' for none), and names already in it are not tagged again.
 */
export async function typeEntities(entities: EntityRecord[], typing: NlpExtractConfig['typing'], memo?: Map<string, string>): Promise<number> {
  if (typing === 'none' || typing === 'heuristic') return 0;
  const untyped = entities.filter((entity) => entity.type === 'proper noun').sort(typingOrder);
  const chosen = typing === 'auto' ? untyped.slice(0, autoTypingLimit) : untyped;
  let typed = 0;
  const selected: EntityRecord[] = [];
  for (const entity of chosen) {
    const known = memo?.get(entity.title);
    if (known === undefined) selected.push(entity);
    else if (known !== '') {
      entity.type = known;
      typed++;
    }
  }
  if (selected.length === 0) return typed;
  const nlp = compromise();
  interface Tagged {
    people(): { found: boolean };
    organizations(): { found: boolean };
    places(): { found: boolean };
  }
  const typeOf = (document: Tagged): string | undefined =>
    document.people().found ? 'person' : document.organizations().found ? 'organization' : document.places().found ? 'geo' : undefined;
  // One document of many names, a name per sentence, is ~2.5× faster than one document per name and
  // tags the same; a group whose sentence count does not match (a name with its own full stop) falls
  // back to one name at a time.
  for (let start = 0; start < selected.length; start += batchSize) {
    const group = selected.slice(start, start + batchSize);
    // compromise's `map` returns a View instead of an array when the first result is undefined, and its
    // types give the callback the base view without the NER methods; `forEach` with a narrow type avoids both.
    const sentences = nlp(group.map((entity) => entity.title).join('.\n')).sentences() as unknown as {
      length: number;
      forEach(fn: (sentence: Tagged, index: number) => void): void;
    };
    const types: Array<string | undefined> = [];
    if (sentences.length === group.length) sentences.forEach((sentence, index) => (types[index] = typeOf(sentence)));
    else for (const entity of group) types.push(typeOf(nlp(entity.title)));
    group.forEach((entity, index) => {
      const type = types[index];
      memo?.set(entity.title, type ?? '');
      if (type) {
        entity.type = type;
        typed++;
      }
    });
  }
  return typed;
}

const batchSize = 200;

const require = createRequire(import.meta.url);

/**
 * compromise's one-file build (its `require` export) rather than its ESM entry, which is the package's source tree of
 * ~450 modules: loading that took about a third more CPU (0.65 s against 0.45 s), and an update that types a few new
 * names paid it every run. The same version and code, bundled: it tags 20,000 2Wiki names identically.
 */
function compromise(): typeof import('compromise').default {
  return require('compromise') as typeof import('compromise').default;
}
