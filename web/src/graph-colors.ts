/** Twenty colours that stay apart on a white background (after Kelly's and Tableau's palettes). */
const palette = [
  '#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd', '#8c564b', '#e377c2', '#17becf', '#bcbd22', '#7f7f7f',
  '#393b79', '#e6550d', '#31a354', '#843c39', '#7b4173', '#3182bd', '#fd8d3c', '#74c476', '#e7969c', '#a55194',
];

/** The colour of what belongs to no community (or is filtered out). */
export const neutralColour = '#c8c8c8';

/**
 * Colours for communities: the largest get the palette in order, so that the big groups are always told apart;
 * beyond twenty, colours repeat on small communities only.
 */
export function communityColours(sizes: ReadonlyMap<string, number>): Map<string, string> {
  const ordered = [...sizes].sort((left, right) => right[1] - left[1] || (left[0] < right[0] ? -1 : 1));
  return new Map(ordered.map(([id], index) => [id, palette[index % palette.length] as string]));
}

/** Colours of the node kinds of a query's retrieved subgraph (query, seeds, entities, passages, …). */
export function kindColour(kind: string): string {
  if (kind === 'query') return '#111111';
  if (kind.includes('seed')) return '#d62728';
  if (kind === 'chunk' || kind === 'passage') return '#1f77b4';
  if (kind.includes('keyword')) return '#ff7f0e';
  if (kind.includes('community') || kind.includes('report')) return '#9467bd';
  if (kind.includes('fact') || kind.includes('relation') || kind.includes('triple')) return '#8c564b';
  if (kind.includes('phrase') || kind.includes('entity')) return '#2ca02c';
  return '#7f7f7f';
}
