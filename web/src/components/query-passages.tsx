import type { ContextChunk, RankingInfo } from '../api-types';
import { useExplorer } from '../explorer-context';

/** The ranking of a result, else the one the method declares. */
export function rankingOf(resultRanking: RankingInfo | undefined, methodRanking: RankingInfo | undefined): RankingInfo {
  return resultRanking ?? methodRanking ?? { kind: 'native' };
}

/** A badge saying whose ranking the passages are: a fallback is not the method's result, and says so. */
export function RankingBadge({ ranking }: { ranking: RankingInfo }) {
  const text = ranking.kind === 'native' ? "native: the method's own ranking" : ranking.kind === 'fallback' ? 'fallback: NOT the method’s result' : `${ranking.kind}: stands in for the method’s ranking`;
  return (
    <span class={`ranking ranking-${ranking.kind}`} data-testid="ranking" data-ranking={ranking.kind} title={ranking.note}>
      {text}
      {ranking.note && <span class="ranking-note"> — {ranking.note}</span>}
    </span>
  );
}

/** The retrieved passages in rank order with their scores; a click opens the passage. */
export function QueryPassages({ chunks, gold }: { chunks: readonly ContextChunk[]; gold?: ReadonlySet<string> | undefined }) {
  const explorer = useExplorer();
  if (chunks.length === 0) return <p class="muted">No passages.</p>;
  return (
    <ol class="query-passages" data-testid="passages">
      {chunks.map((chunk) => (
        <li class={gold?.has(chunk.id) ? 'gold' : undefined}>
          <button class="passage" data-testid="passage" onClick={() => explorer.inspect({ kind: 'chunk', id: chunk.id })}>
            <strong>
              {chunk.documentTitle || chunk.documentId} <span class="score">{chunk.score.toFixed(4)}</span>
              {gold?.has(chunk.id) && <span class="gold-tag"> gold</span>}
            </strong>
            <span>{chunk.text.length > 220 ? `${chunk.text.slice(0, 219)}…` : chunk.text}</span>
          </button>
        </li>
      ))}
    </ol>
  );
}
