import { useEffect, useState } from 'preact/hooks';
import type { EntityDetail, EntityEdit, EntityEditRequest } from '../api-types';
import { useExplorer } from '../explorer-context';
import { EntitySearch } from './entity-search';
import './entity-edit-controls.css';

/** What an edit did, in a line: "Lovelace, Countess of Lovelace merged in" or "Babbage split off". */
function describeEdit(edit: EntityEdit): string {
  return `${edit.names.join(', ')} ${edit.kind === 'merge' ? 'merged in' : 'split off'}`;
}

/**
 * Merge and split from the entity panel, through the same API as `kgrag entities merge|split|undo`: another entity
 * merged into this one, one of its names split off into an entity of its own, and the edits made to this entity
 * with their undo. Each is an index job; the panel waits for it and the views reload when it publishes.
 */
export function EntityEditControls({ entity }: { entity: EntityDetail }) {
  const explorer = useExplorer();
  const [edits, setEdits] = useState<readonly EntityEdit[]>([]);
  useEffect(() => {
    let current = true;
    explorer.api
      .entityEdits()
      .then((listed) => current && setEdits(listed.edits))
      .catch(() => current && setEdits([]));
    return () => {
      current = false;
    };
  }, [explorer.api, explorer.generation]);
  const [running, setRunning] = useState<string | undefined>();
  const [failure, setFailure] = useState<string | undefined>();
  const [chosen, setChosen] = useState<{ id: string; title: string } | undefined>();
  const own = edits.filter((edit) => edit.entity.id === entity.id && edit.undoneAt === undefined);

  async function run(edit: EntityEditRequest, what: string): Promise<void> {
    setRunning(what);
    setFailure(undefined);
    try {
      const { job } = await explorer.api.editEntities(edit);
      const ended = await explorer.api.followJob(job.id, () => undefined);
      if (ended?.status !== 'succeeded') setFailure(ended?.error?.message ?? `the job ended ${ended?.status ?? 'without a result'}`);
      else setChosen(undefined);
      await explorer.refreshStats();
    } catch (error) {
      setFailure(error instanceof Error ? error.message : String(error));
    } finally {
      setRunning(undefined);
    }
  }

  return (
    <details class="entity-edits" data-testid="entity-edits" open={own.length > 0 || running !== undefined || failure !== undefined}>
      <summary>Merge or split{own.length > 0 ? ` · ${own.length} edit${own.length === 1 ? '' : 's'}` : ''}</summary>
      {entity.aliases.length > 0 && (
        <ul class="entity-names">
          {entity.aliases.map((alias) => (
            <li>
              {alias}{' '}
              <button class="link" disabled={running !== undefined} data-testid="split-alias" data-alias={alias} onClick={() => void run({ split: alias, from: entity.id }, `Splitting ${alias} off…`)} title={`Make "${alias}" an entity of its own`}>
                split off
              </button>
            </li>
          ))}
        </ul>
      )}
      <div class="merge-into">
        <span class="muted">Merge another entity into this one:</span>
        <EntitySearch placeholder="Entity to merge in…" testId="merge-search" onChoose={(id, match) => setChosen({ id, title: match.title })} />
        {chosen && chosen.id !== entity.id && (
          <button disabled={running !== undefined} data-testid="merge-entity" onClick={() => void run({ merge: [chosen.id], into: entity.id }, `Merging ${chosen.title} into ${entity.title}…`)}>
            Merge “{chosen.title}” into “{entity.title}”
          </button>
        )}
      </div>
      {own.length > 0 && (
        <ul class="entity-edit-log">
          {own.map((edit) => (
            <li data-testid="entity-edit" data-edit-id={edit.id}>
              {describeEdit(edit)}{' '}
              <button class="link" disabled={running !== undefined} data-testid="undo-edit" onClick={() => void run({ undo: edit.id }, `Undoing ${edit.id}…`)}>
                undo
              </button>
            </li>
          ))}
        </ul>
      )}
      {running && (
        <p class="muted" role="status" data-testid="entity-edit-running">
          {running}
        </p>
      )}
      {failure && (
        <p class="error" data-testid="entity-edit-error">
          {failure}
        </p>
      )}
    </details>
  );
}
