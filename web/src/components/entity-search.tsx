import { useEffect, useRef, useState } from 'preact/hooks';
import type { EntityMatch } from '../api-types';
import { useExplorer } from '../explorer-context';

/** A search box with entity suggestions as one types (names, aliases, then full text); Enter takes the first. */
export function EntitySearch({ onChoose, placeholder = 'Search entities…', testId = 'entity-search' }: { onChoose: (entityId: string, match: EntityMatch) => void; placeholder?: string; testId?: string }) {
  const { api, generation } = useExplorer();
  const [text, setText] = useState('');
  const [matches, setMatches] = useState<EntityMatch[]>([]);
  const [open, setOpen] = useState(false);
  const [active, setActive] = useState(0);
  // The close that a blur schedules (so a click on a suggestion lands first); focusing or typing again cancels it,
  // or a quick blur and refocus would close the list just after it reopened.
  const closing = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const reopen = (): void => {
    clearTimeout(closing.current);
    setOpen(true);
  };

  useEffect(() => {
    const query = text.trim();
    if (query.length === 0) {
      setMatches([]);
      return;
    }
    let current = true;
    // A short pause, so that typing a name sends one request rather than one per letter.
    const timer = setTimeout(() => {
      api
        .searchEntities(query, { limit: 8 })
        .then((found) => {
          if (!current) return;
          setMatches(found.entities);
          setActive(0);
        })
        .catch(() => current && setMatches([]));
    }, 120);
    return () => {
      current = false;
      clearTimeout(timer);
    };
  }, [text, api, generation]);

  function choose(match: EntityMatch | undefined): void {
    if (!match) return;
    setText(match.title);
    setOpen(false);
    onChoose(match.id, match);
  }

  return (
    <div class="entity-search" role="combobox" aria-expanded={open && matches.length > 0}>
      <input
        type="search"
        placeholder={placeholder}
        aria-label={placeholder.replace(/…$/, '')}
        data-testid={testId}
        value={text}
        onInput={(event) => {
          setText(event.currentTarget.value);
          reopen();
        }}
        onFocus={reopen}
        onBlur={() => {
          closing.current = setTimeout(() => setOpen(false), 150);
        }}
        onKeyDown={(event) => {
          if (event.key === 'ArrowDown') setActive((index) => Math.min(matches.length - 1, index + 1));
          else if (event.key === 'ArrowUp') setActive((index) => Math.max(0, index - 1));
          else if (event.key === 'Enter') choose(matches[active]);
          else if (event.key === 'Escape') setOpen(false);
          else return;
          event.preventDefault();
        }}
      />
      {open && matches.length > 0 && (
        <ul class="suggestions" role="listbox" data-testid="entity-suggestions">
          {matches.map((match, index) => (
            <li key={match.id} role="option" aria-selected={index === active} onMouseDown={(event) => event.preventDefault()} onClick={() => choose(match)}>
              <strong>{match.title}</strong>
              <span class="muted">
                {' '}
                {match.type}
                {match.alias ? ` · alias ${match.alias}` : ''} · degree {match.degree}
              </span>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
