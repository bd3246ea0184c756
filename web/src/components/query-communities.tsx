import { useEffect, useState } from 'preact/hooks';
import type { QueryResult } from '../api-types';
import { useExplorer } from '../explorer-context';
import { highlightMembers } from './inspector';

type UsedCommunity = NonNullable<QueryResult['context']['communities']>[number];

/** How many communities are listed; the rest are counted. */
const listed = 12;

/**
 * The communities a method answered from (global search's reports, DRIFT's primer), by their report titles: each
 * opens its report in the side panel or shows its members on the graph. The picture of a method whose context is
 * communities rather than a walk over the graph.
 */
export function QueryCommunities({ communities }: { communities: readonly UsedCommunity[] }) {
  const explorer = useExplorer();
  const [titles, setTitles] = useState<ReadonlyMap<string, string>>(new Map());
  const shown = communities.slice(0, listed);
  useEffect(() => {
    let current = true;
    // A fast index's community records are numbered; their reports have the titles a reader knows them by.
    void Promise.all(shown.map((community) => explorer.api.community(community.id).then((detail) => [community.id, detail.report?.title ?? detail.title] as const).catch(() => undefined))).then((found) => {
      if (current) setTitles(new Map(found.filter((entry): entry is readonly [string, string] => entry !== undefined)));
    });
    return () => {
      current = false;
    };
  }, [communities, explorer.api]);
  return (
    <div class="query-communities" data-testid="query-communities">
      <ol>
        {shown.map((community) => (
          <li data-community={community.id}>
            <button class="link" onClick={() => explorer.inspect({ kind: 'community', id: community.id })}>
              {titles.get(community.id) ?? community.title}
            </button>
            <span class="muted">
              {' '}
              level {community.level} · {community.size} entities{' '}
            </span>
            <button class="link small" onClick={() => void highlightMembers(explorer, community.id)}>
              on graph
            </button>
          </li>
        ))}
      </ol>
      {communities.length > listed && <p class="muted">and {communities.length - listed} more</p>}
    </div>
  );
}
