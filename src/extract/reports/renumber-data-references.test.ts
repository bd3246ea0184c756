import assert from 'node:assert/strict';
import { test } from 'node:test';
import { citedDataReferences, renumberDataReferences } from './renumber-data-references.js';

test('renumbers each cited record by its table, keeping +more, spacing and unknown numbers', () => {
  const text = 'The mill [Data: Entities (3, 8); Relationships (12, 9, +more)] and the weir [Data: Entities (8)]. Not a reference (3).';
  const next = renumberDataReferences(text, (table, label) => (table === 'entities' ? { '3': '30', '8': '80' }[label] : table === 'relationships' && label === '12' ? '120' : undefined));
  assert.equal(next, 'The mill [Data: Entities (30, 80); Relationships (120, 9, +more)] and the weir [Data: Entities (80)]. Not a reference (3).');
});

test('lists what a text cites', () => {
  assert.deepEqual(citedDataReferences('x [Data: Reports (2); Claims (4, +more)]'), [
    ['reports', '2'],
    ['claims', '4'],
  ]);
});
