import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { boundMetadataDepth } from './bound-metadata-depth.js';

/** `levels` objects nested in `{ a: … }`, the innermost holding `leaf`. */
function nested(levels: number, leaf: unknown = 'leaf'): Record<string, unknown> {
  let value: Record<string, unknown> = { a: leaf };
  for (let level = 1; level < levels; level += 1) value = { a: value };
  return value;
}

describe('boundMetadataDepth', () => {
  it('returns metadata within the limit as it is', () => {
    const metadata = { tags: ['x', { y: [1, 2] }], when: new Date(0), deep: nested(30) };
    const bounded = boundMetadataDepth(metadata, 32);
    assert.equal(bounded.metadata, metadata);
    assert.equal(bounded.cut, 0);
  });

  it('cuts containers below the limit to null and keeps the rest', () => {
    const bounded = boundMetadataDepth({ ok: 1, list: [[[['four']]], 'two'] }, 3);
    assert.deepEqual(bounded.metadata, { ok: 1, list: [[null], 'two'] });
    assert.equal(bounded.cut, 1);
  });

  it('copes with any depth without recursing', () => {
    const bounded = boundMetadataDepth({ deep: nested(100_000) }, 32);
    assert.equal(bounded.cut, 1);
    assert.ok(JSON.stringify(bounded.metadata).length < 300);
  });

  it('cuts a value that holds itself, and walks a shared value once per level', () => {
    const loop: Record<string, unknown> = { name: 'loop' };
    loop['self'] = loop;
    assert.deepEqual(boundMetadataDepth(loop, 32).metadata, { name: 'loop', self: null });
    // 2^40 paths through 40 shared levels: only a walk that remembers what it saw ends.
    let shared: unknown[] = [];
    for (let level = 0; level < 40; level += 1) shared = [shared, shared];
    assert.equal(boundMetadataDepth({ shared }, 64).cut, 0);
  });

  it('keeps a __proto__ field a field', () => {
    const metadata = JSON.parse(`{"__proto__":{"polluted":true},"deep":${JSON.stringify(nested(5))}}`) as Record<string, unknown>;
    const bounded = boundMetadataDepth(metadata, 3);
    assert.equal(Object.getPrototypeOf(bounded.metadata), Object.prototype);
    assert.deepEqual(Object.keys(bounded.metadata), ['__proto__', 'deep']);
    assert.equal(({} as Record<string, unknown>)['polluted'], undefined);
  });
});
