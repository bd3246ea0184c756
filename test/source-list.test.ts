import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sourcesText } from '../src/server/routes/chat-routes.js';
import type { Citation } from '../src/answer/answer-types.js';
import { sourceList } from '../src/answer/source-list.js';

test('each cited record is listed once, in citation order, the same way for the CLI and the chat reply', () => {
  const citations: Citation[] = [
    { dataset: 'Sources', hid: 3, id: 'c3', title: 'Kester Weir Bridge', source: 'examples/03-bridge.md', quote: 'It opened in 1938.' },
    { dataset: 'Reports', hid: 12, id: 'r12', title: 'Harbour and quay', source: 'community' },
    { dataset: 'Sources', hid: 3, id: 'c3', title: 'Kester Weir Bridge', source: 'examples/03-bridge.md', quote: 'Clara Ivesley designed it.' },
    { dataset: 'Entities', hid: 1, id: 'e1', title: 'Clara Ivesley' },
  ];
  assert.deepEqual(sourceList(citations), ['[3] Kester Weir Bridge (examples/03-bridge.md)', '[Reports 12] Harbour and quay (community)', '[Entities 1] Clara Ivesley']);
  assert.equal(sourcesText(citations), `\n\nSources:\n${sourceList(citations).join('\n')}`);
  assert.equal(sourcesText([]), '');
});
