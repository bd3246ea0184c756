import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sanitizeForTerminal } from './sanitize-for-terminal.js';

describe('sanitizeForTerminal', () => {
  it('escapes ESC sequences, bells, carriage returns, C1 controls and bidi overrides visibly', () => {
    assert.equal(sanitizeForTerminal('a\u001b]0;title\u0007b'), 'a\\e]0;title\\x07b');
    assert.equal(sanitizeForTerminal('ok\rspoof\u009b2J'), 'ok\\rspoof\\x9b2J');
    assert.equal(sanitizeForTerminal('file\u202egnp.exe'), 'file\\u202egnp.exe');
    assert.equal(sanitizeForTerminal('Café — 東京 😀'), 'Café — 東京 😀', 'printable text is untouched');
  });

  it('keeps line feeds and tabs only in multiline text', () => {
    assert.equal(sanitizeForTerminal('two\nlines\tand tab'), 'two\\nlines\\tand tab');
    assert.equal(sanitizeForTerminal('two\nlines\tand\u001b[2J', { multiline: true }), 'two\nlines\tand\\e[2J');
  });
});
