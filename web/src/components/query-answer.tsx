import type { QueryResult } from '../api-types';
import { useExplorer } from '../explorer-context';
import { AnswerText } from './answer-text';

/**
 * A query's answer: its kind (an extractive answer says that no LLM wrote it), the text with linked references,
 * the citations and the warnings. While streaming, `result` is undefined and `streamed` holds the text so far.
 */
export function QueryAnswer({ result, streamed }: { result: QueryResult | undefined; streamed: string }) {
  const explorer = useExplorer();
  const text = result?.answer.text ?? streamed;
  const kind = result?.answer.kind;
  const label = kind === 'extractive' ? (result?.answer.label ?? 'extractive answer — no LLM configured') : kind === 'none' ? 'no answer (context only)' : kind;
  return (
    <div class="query-answer" data-testid="answer">
      {kind && (
        <p class={`answer-kind answer-${kind}`} data-testid="answer-kind">
          {label}
        </p>
      )}
      {text ? <AnswerText text={text} citations={result?.citations ?? []} onInspect={explorer.inspect} /> : !result && <p class="muted">Waiting for the answer…</p>}
      {result && result.citations.length > 0 && (
        <details class="citations" data-testid="citations" open>
          <summary>Citations ({result.citations.length})</summary>
          <ol>
            {result.citations.map((citation) => {
              const target =
                citation.dataset === 'Sources' ? ({ kind: 'chunk', id: citation.id } as const)
                : citation.dataset === 'Entities' ? ({ kind: 'entity', id: citation.id } as const)
                : citation.dataset === 'Reports' ? ({ kind: 'community', id: citation.id } as const)
                : undefined;
              return (
                <li>
                  <span class="citation-tag">
                    {citation.dataset} {citation.hid}
                  </span>{' '}
                  {target ? (
                    <button class="link" onClick={() => explorer.inspect(target)}>
                      {citation.title || citation.id}
                    </button>
                  ) : (
                    citation.title || citation.id
                  )}
                  {citation.quote && <q class="quote">{citation.quote}</q>}
                </li>
              );
            })}
          </ol>
        </details>
      )}
      {result && result.warnings.length > 0 && (
        <ul class="warnings" data-testid="warnings" role="status">
          {result.warnings.map((warning) => (
            <li>{warning}</li>
          ))}
        </ul>
      )}
    </div>
  );
}
