import type { ExtractedGraph } from './extracted-graph.js';

/** Whether a name is written in capitals only ("KESTER WEIR BRIDGE"), as GraphRAG's prompts teach models to. */
export function isAllCapitals(name: string): boolean {
  return /\p{Lu}/u.test(name) && !/\p{Ll}/u.test(name);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * Gives capitalized entity names back the casing their chunk writes them in: GraphRAG's tuple prompt shows
 * names in capitals, so models answer "KESTER WEIR BRIDGE" for "Kester Weir Bridge", and titles shown to
 * users and to the report and answer prompts read as shouting. The first case-insensitive occurrence in
 * the chunk (whitespace may differ) that is not itself in capitals and starts with a capital wins, else the
 * first mixed-case one with its first letter capitalized ("the Quay" → "The Quay"); a name the chunk never spells
 * that way ("BBC", or a name the model composed) is left as written. Relationship ends need no change:
 * merging compares names case-insensitively.
 */
export function restoreNameCasing(graph: ExtractedGraph, text: string): ExtractedGraph {
  const restored = new Map<string, string>();
  const restore = (name: string): string => {
    if (!isAllCapitals(name)) return name;
    const known = restored.get(name);
    if (known !== undefined) return known;
    const words = name.trim().split(/\s+/u).map(escapeRegExp);
    const pattern = new RegExp(`(?<![\\p{L}\\p{N}])${words.join('\\s+')}(?![\\p{L}\\p{N}])`, 'giu');
    let found = name;
    for (const match of text.matchAll(pattern)) {
      if (isAllCapitals(match[0])) continue;
      const spelling = match[0].replace(/\s+/gu, ' ');
      if (/^\p{Lu}/u.test(spelling)) {
        found = spelling;
        break;
      }
      // Mid-sentence "the Quay" or "flood of 1947": a name still starts with a capital.
      if (found === name) found = spelling.charAt(0).toUpperCase() + spelling.slice(1);
    }
    restored.set(name, found);
    return found;
  };
  return { entities: graph.entities.map((entity) => ({ ...entity, name: restore(entity.name) })), relations: graph.relations };
}
