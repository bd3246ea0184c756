import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sanitizeFileName } from './sanitize-file-name.js';

test('an upload name cannot leave the uploads folder, hide, or smuggle control characters', () => {
  assert.equal(sanitizeFileName('../../etc/passwd'), 'passwd');
  assert.equal(sanitizeFileName('..\\..\\windows\\win.ini'), 'win.ini');
  assert.equal(sanitizeFileName('.env'), 'env');
  assert.equal(sanitizeFileName('...'), 'upload.txt');
  assert.equal(sanitizeFileName(''), 'upload.txt');
  assert.equal(sanitizeFileName('notes\u0000.md\u001b[31m'), 'notes.md[31m'.replace('[', '_').replace(']', '_'));
  assert.equal(sanitizeFileName('a<b>c:d|e?.txt'), 'a_b_c_d_e_.txt');
  assert.equal(sanitizeFileName('CON.txt'), '_CON.txt');
  assert.equal(sanitizeFileName('Kester Weir Bridge.md'), 'Kester Weir Bridge.md');
  const long = sanitizeFileName(`${'x'.repeat(300)}.pdf`);
  assert.equal(long.length, 120);
  assert.ok(long.endsWith('.pdf'));
});
