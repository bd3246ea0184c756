import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';

const read = (file: string): string => readFileSync(new URL(`../${file}`, import.meta.url), 'utf8');

test('the package is MIT-licensed: a LICENSE file with the MIT text, and package.json says so', () => {
  const license = read('LICENSE');
  assert.match(license, /^MIT License\n\nCopyright \(c\) 2026 kgrag contributors\n/);
  assert.match(license, /Permission is hereby granted, free of charge, to any person obtaining a copy/);
  assert.match(license, /THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND/);
  assert.equal((JSON.parse(read('package.json')) as { license?: string }).license, 'MIT');
});
