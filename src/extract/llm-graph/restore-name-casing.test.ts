import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isAllCapitals, restoreNameCasing } from './restore-name-casing.js';

const entity = (name: string) => ({ name, type: 'geo', description: '' });

describe('restoreNameCasing', () => {
  const text = 'The Kester Weir  Bridge was built by Ivesley & Thorne. The BBC filmed it; KESTER WEIR BRIDGE was on the sign.';

  it('takes the spelling of the chunk for names written in capitals', () => {
    const graph = { entities: [entity('KESTER WEIR BRIDGE'), entity('IVESLEY & THORNE')], relations: [] };
    assert.deepEqual(
      restoreNameCasing(graph, text).entities.map((item) => item.name),
      ['Kester Weir Bridge', 'Ivesley & Thorne'],
    );
  });

  it('keeps acronyms, names with a word it cannot restore, and names already in mixed case', () => {
    const graph = { entities: [entity('BBC'), entity('KESTERMOUTH WEIR'), entity('Weir bridge')], relations: [] };
    assert.deepEqual(
      restoreNameCasing(graph, text).entities.map((item) => item.name),
      ['BBC', 'KESTERMOUTH WEIR', 'Weir bridge'],
    );
  });

  it('restores a composed name word by word, function words in lower case', () => {
    const register = 'Judith Ann, daughter of Peter Marle, baptized after the flood of February.';
    const graph = { entities: [entity('JUDITH ANN MARLE'), entity('FLOOD OF FEBRUARY 1990')], relations: [] };
    assert.deepEqual(restoreNameCasing(graph, register).entities.map((item) => item.name), ['Judith Ann Marle', 'Flood of February 1990']);
  });

  it('prefers a capitalized occurrence, and capitalizes a name found only mid-sentence', () => {
    const graph = { entities: [entity('THE QUAY'), entity('FLOOD OF 1947')], relations: [] };
    const restored = restoreNameCasing(graph, 'Boats lined the Quay after the flood of 1947. The Quay was busy.');
    assert.deepEqual(restored.entities.map((item) => item.name), ['The Quay', 'Flood of 1947']);
  });

  it('never borrows casing from a word in capitals', () => {
    const graph = { entities: [entity('KESTER')], relations: [] };
    assert.equal(restoreNameCasing(graph, 'Kestermouth lies on the Kester.').entities[0]?.name, 'Kester');
    assert.equal(restoreNameCasing(graph, 'The KESTERMOUTH gauge.').entities[0]?.name, 'KESTER');
  });

  it('tells capitals from mixed case', () => {
    assert.equal(isAllCapitals("ST KESTER'S"), true);
    assert.equal(isAllCapitals('St Kester'), false);
    assert.equal(isAllCapitals('1968'), false);
  });
});
