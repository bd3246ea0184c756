import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createRandom } from '../core/random.js';
import { lineCachedTokenizer } from './line-cached-tokenizer.js';
import { createTokenizer, type TokenizerEncoding } from './tokenizer.js';

/** Lines of the kinds a context holds (table rows, headers, titles) and of the kinds that must not be cut at. */
const pieces = [
  '123|Kestermouth Weir|The weir was rebuilt in 1952.',
  '-----Reports-----',
  'id|title|content',
  '7|Ida Halvard|engineer|',
  'end of a sentence.',
  '  indented line',
  '',
  '/path/like',
  '"quoted" start',
  'Ünïcödé wörds and 東京 text',
  '42',
  'x',
  '...',
  'line with trailing space ',
  '\tTabbed',
  '\r',
  `${'-'.repeat(300)}`,
  `${'a'.repeat(200)} long run`,
  "it's a test",
  '9|1994|1580',
];

for (const encoding of ['o200k_base', 'cl100k_base'] as TokenizerEncoding[]) {
  test(`${encoding}: counts through remembered lines equal the tokenizer's counts`, async () => {
    const tokenizer = await createTokenizer(encoding);
    const cached = lineCachedTokenizer(tokenizer, 64);
    const random = createRandom(17);
    for (let trial = 0; trial < 400; trial++) {
      const lines: string[] = [];
      const count = 1 + Math.floor(random() * 12);
      for (let line = 0; line < count; line++) lines.push(pieces[Math.floor(random() * pieces.length)] as string);
      const separator = random() < 0.8 ? '\n' : '\n\n';
      const text = lines.join(separator);
      // Twice: the second time from remembered counts.
      assert.equal(cached.count(text), tokenizer.count(text), JSON.stringify(text));
      assert.equal(cached.count(text), tokenizer.count(text), JSON.stringify(text));
    }
  });
}
