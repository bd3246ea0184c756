import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { test } from 'node:test';
import { createQueryProgressLine } from './query-progress-line.js';

function capture(isTTY: boolean, columns?: number): { stream: PassThrough & { isTTY?: boolean; columns?: number }; text: () => string } {
  const stream = Object.assign(new PassThrough(), { isTTY, ...(columns === undefined ? {} : { columns }) });
  let text = '';
  stream.on('data', (chunk: Buffer) => (text += chunk.toString()));
  return { stream, text: () => text };
}

test('not a terminal: one line per event, nothing to clear', () => {
  const { stream, text } = capture(false);
  const line = createQueryProgressLine(stream);
  line.onProgress({ step: 'tot-search', done: 1, total: 20, message: 'expansion 1/20' });
  line.onProgress({ step: 'tot-search', done: 2, total: 20, message: 'expansion 2/20' });
  line.stop();
  assert.equal(text(), 'tot-search: expansion 1/20\ntot-search: expansion 2/20\n');
});

test('a terminal: one line rewritten in place, cut to the width, cleared at the end', () => {
  const { stream, text } = capture(true, 20);
  const line = createQueryProgressLine(stream);
  line.onProgress({ step: 'tot-search', done: 1, message: 'short' });
  line.onProgress({ step: 'tot-search', done: 2, message: 'a message much longer than the terminal' });
  line.stop();
  line.stop();
  assert.equal(text(), '\r\x1b[Ktot-search: short\r\x1b[Ktot-search: a mess…\r\x1b[K');
});
