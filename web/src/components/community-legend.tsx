import { neutralColour } from '../graph-colors';

/** How many communities the legend names; the rest are counted. */
const shownCommunities = 12;

interface Props {
  /** Entities shown per community at the chosen level. */
  sizes: ReadonlyMap<string, number>;
  colours: ReadonlyMap<string, string>;
  titles: ReadonlyMap<string, string>;
  level: number;
  /** The community shown alone, if any. */
  chosen: string | undefined;
  onChoose: (community: string | undefined) => void;
}

/**
 * The graph's colour key: the largest communities at the chosen level with their colour, name and the entities shown,
 * the others counted. Choosing one shows it alone; choosing it again shows all.
 */
export function CommunityLegend({ sizes, colours, titles, level, chosen, onChoose }: Props) {
  if (sizes.size === 0) return null;
  const ordered = [...sizes].sort((left, right) => right[1] - left[1] || (left[0] < right[0] ? -1 : 1));
  const rest = ordered.slice(shownCommunities);
  return (
    <aside class="community-legend" data-testid="community-legend" aria-label={`Communities at level ${level}`}>
      <strong>Communities · level {level}</strong>
      <ul>
        {ordered.slice(0, shownCommunities).map(([id, size]) => (
          <li>
            <button class={`link${chosen === id ? ' chosen' : ''}`} data-testid="legend-entry" data-community={id} onClick={() => onChoose(chosen === id ? undefined : id)} title={chosen === id ? 'Show all communities' : 'Show this community alone'}>
              <span class="swatch" style={{ background: colours.get(id) ?? neutralColour }} />
              <span class="name">{titles.get(id) ?? id}</span>
              <span class="muted"> {size}</span>
            </button>
          </li>
        ))}
      </ul>
      {rest.length > 0 && (
        <p class="muted">
          and {rest.length} smaller ({rest.reduce((sum, [, size]) => sum + size, 0)} entities); colours repeat on them
        </p>
      )}
    </aside>
  );
}
