import type { ComponentChildren } from 'preact';
import type { Citation } from '../api-types';
import type { Inspected } from '../explorer-context';
import { Markdown } from './markdown';

interface Props {
  text: string;
  citations: readonly Citation[];
  onInspect(target: Inspected): void;
}

const reference = /\[Data:\s*([^\]]*)\]/g;
const group = /([A-Za-z]+)\s*\(([^)]*)\)/g;

/**
 * What a `[Data: …]` number opens: Sources → the passage of the citation with that dataset and hid, Entities →
 * the entity, Reports → the community. Relationships and Claims have no panel.
 */
function targetOf(dataset: string, hid: number, citations: readonly Citation[]): Inspected | undefined {
  const citation = citations.find((entry) => entry.dataset === dataset && entry.hid === hid);
  if (!citation) return undefined;
  if (dataset === 'Sources') return { kind: 'chunk', id: citation.id };
  if (dataset === 'Entities') return { kind: 'entity', id: citation.id };
  if (dataset === 'Reports') return { kind: 'community', id: citation.id };
  return undefined;
}

function referenceLinks(body: string, citations: readonly Citation[], onInspect: Props['onInspect']): ComponentChildren[] {
  const parts: ComponentChildren[] = [];
  let first = true;
  for (const match of body.matchAll(group)) {
    const dataset = match[1] ?? '';
    if (!first) parts.push('; ');
    first = false;
    parts.push(`${dataset} (`);
    (match[2] ?? '').split(',').forEach((raw, index) => {
      const item = raw.trim();
      if (index > 0) parts.push(', ');
      const hid = /^\d+$/.test(item) ? Number(item) : undefined;
      const target = hid === undefined ? undefined : targetOf(dataset, hid, citations);
      const title = hid === undefined ? undefined : citations.find((entry) => entry.dataset === dataset && entry.hid === hid)?.title;
      parts.push(
        target ? (
          <button class="link ref" data-testid="answer-ref" data-ref={`${dataset}:${item}`} title={title} onClick={() => onInspect(target)}>
            {item}
          </button>
        ) : (
          item
        ),
      );
    });
    parts.push(')');
  }
  return parts;
}

/**
 * An answer's text: its markdown rendered as elements (never HTML), with the `[Data: Sources (3, 7); Entities (12)]`
 * references made links to the side panel.
 */
export function AnswerText({ text, citations, onInspect }: Props) {
  const withReferences = (plain: string): ComponentChildren => {
    const parts: ComponentChildren[] = [];
    let last = 0;
    for (const match of plain.matchAll(reference)) {
      parts.push(plain.slice(last, match.index));
      parts.push(
        <span class="refs">
          [Data: {referenceLinks(match[1] ?? '', citations, onInspect)}]
        </span>,
      );
      last = match.index + match[0].length;
    }
    parts.push(plain.slice(last));
    return parts;
  };
  return (
    <div class="answer-text" data-testid="answer-text">
      <Markdown text={text} renderText={withReferences} />
    </div>
  );
}
