import assert from 'node:assert/strict';
import { test } from 'node:test';
import { KgragError } from './errors.js';
import { withSurfaceHint } from './surface-hint.js';

test('a hint naming the command line gives way to the surface fix; a hint that needs none is kept', () => {
  const hints = { QUERY_NO_INDEX: 'add documents first with add_documents' };
  const cli = new KgragError('there is no index yet', { code: 'QUERY_NO_INDEX', category: 'input', hint: 'index documents first (`kgrag index <paths> -w <workspace>`)', details: { location: 'x' } });
  const shown = withSurfaceHint(cli, hints) as KgragError;
  assert.equal(shown.hint, 'add documents first with add_documents');
  assert.deepEqual([shown.code, shown.category, shown.message, shown.details], [cli.code, cli.category, cli.message, cli.details]);
  const waiting = new KgragError('there is no index yet; a run is writing it', { code: 'QUERY_NO_INDEX', category: 'input', hint: 'wait for the run to finish, then ask again' });
  assert.equal(withSurfaceHint(waiting, hints), waiting);
  const flag = new KgragError('x', { code: 'QUERY_NO_INDEX', category: 'input', hint: 'drop --context-only to run it' });
  assert.equal((withSurfaceHint(flag, hints) as KgragError).hint, hints.QUERY_NO_INDEX);
  const other = new KgragError('x', { code: 'OTHER', category: 'input', hint: 'run `kgrag index`' });
  assert.equal(withSurfaceHint(other, hints), other);
  const plain = new Error('boom');
  assert.equal(withSurfaceHint(plain, hints), plain);
});

test('the storage location in a message is a server path or URL: another surface says "this workspace" instead', () => {
  const hints = { STORE_NO_INDEX: 'add documents first with add_documents' };
  const cli = new KgragError('there is no index at /srv/kgrag/ws/kgrag.db yet', { code: 'STORE_NO_INDEX', category: 'input', hint: 'index documents first (`kgrag index <paths>`)', details: { location: '/srv/kgrag/ws/kgrag.db' } });
  const shown = withSurfaceHint(cli, hints) as KgragError;
  assert.equal(shown.message, 'there is no index in this workspace yet');
  const waiting = new KgragError('there is no index at /srv/ws/kgrag.db yet; an index run is in progress', { code: 'QUERY_NO_INDEX', category: 'input', hint: 'wait for the run to finish, then ask again', details: { location: '/srv/ws/kgrag.db' } });
  const shownWaiting = withSurfaceHint(waiting, hints) as KgragError;
  assert.equal(shownWaiting.message, 'there is no index in this workspace yet; an index run is in progress');
  assert.equal(shownWaiting.hint, 'wait for the run to finish, then ask again');
});
