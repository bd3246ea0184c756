import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseLenientJson } from './parse-lenient-json.js';

describe('parseLenientJson', () => {
  it('reads bare NaN, Infinity and -Infinity as null', () => {
    const text = '{"avg": NaN, "max": Infinity, "min": -Infinity, "list": [1,NaN,-2]}';
    const { value, replaced } = parseLenientJson(text);
    assert.deepEqual(value, { avg: null, max: null, min: null, list: [1, null, -2] });
    assert.deepEqual(replaced, [text.indexOf('NaN'), text.indexOf('Infinity'), text.indexOf('-Infinity'), text.lastIndexOf('NaN')]);
  });

  it('leaves the same words inside strings untouched, also next to escaped quotes', () => {
    const text = '{"NaN": "NaN and -Infinity", "quote": "say \\"NaN\\" \\\\", "x": NaN, "k": "Infinity\\\\"}';
    assert.deepEqual(parseLenientJson(text).value, { NaN: 'NaN and -Infinity', quote: 'say "NaN" \\', x: null, k: 'Infinity\\' });
  });

  it('parses standard JSON unchanged', () => {
    assert.deepEqual(parseLenientJson('[1, "a", null, {"b": -3.5e2}]'), { value: [1, 'a', null, { b: -350 }], replaced: [] });
  });

  it('still rejects other invalid JSON', () => {
    assert.throws(() => parseLenientJson('{"a": NaNx}'), SyntaxError);
    assert.throws(() => parseLenientJson('{"a": nan}'), SyntaxError);
    assert.throws(() => parseLenientJson('{"a": "unterminated'), SyntaxError);
  });
});
