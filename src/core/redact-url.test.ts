import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { redactUrl } from './redact-url.js';

describe('redactUrl', () => {
  it('removes a user and password, query values and the fragment, keeping the API version', () => {
    assert.equal(redactUrl('https://user:pa%40ss@proxy.example.com:8443/v1'), 'https://***@proxy.example.com:8443/v1');
    assert.equal(
      redactUrl('https://gw.example.com/openai/v1?api-version=2024-06-01&api-key=abc&key=def&sig=x#token=y'),
      'https://gw.example.com/openai/v1?api-version=2024-06-01&api-key=***&key=***&sig=***#***',
    );
    assert.equal(redactUrl('http://localhost:11434/v1'), 'http://localhost:11434/v1');
    assert.equal(redactUrl('http://host/v1?bare-token'), 'http://host/v1?***');
  });

  it('finds URLs inside text, parseable or not, and is idempotent', () => {
    const text = 'Request cannot be constructed from a URL that includes credentials: http://admin:hunter2@127.0.0.1:9/v1/chat/completions (retry)';
    const once = redactUrl(text);
    assert.equal(once, 'Request cannot be constructed from a URL that includes credentials: http://***@127.0.0.1:9/v1/chat/completions (retry)');
    assert.equal(redactUrl(once), once);
    assert.equal(redactUrl('failed at wss://h/p?token=1, then at http://h/?k=2.'), 'failed at wss://h/p?token=***, then at http://h/?k=***.');
  });
});
