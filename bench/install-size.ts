/*
 * What `npm install kgrag` puts on a user's disk: the checkout is packed and installed into an empty folder without
 * devDependencies (test/helpers/packed-install.ts, the same install `test/packed-install.test.ts` runs, with
 * better-sqlite3's compiled addon in place of the prebuilt binary a user downloads).
 * - `install_mb`: the consumer's node_modules, every file (MB = 10⁶ bytes, as npm and du --si count).
 * - `install_kgrag_mb`: kgrag's own folder in it; `install_largest_<package>_mb`: the five largest other packages.
 * - `package_tarball_mb`: the tarball's size.
 * Sizes do not vary between runs; `--runs` repeats the install only to show that.
 */
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { packAndInstall } from '../test/helpers/packed-install.js';
import { folderBytes, result, type BenchResult } from './bench-utils.js';

const megabytes = (bytes: number): number => Math.round(bytes / 1e5) / 10;

/** Top-level packages of a node_modules folder, scoped ones as `@scope/name`. */
function packagesIn(modules: string): string[] {
  return readdirSync(modules)
    .filter((name) => !name.startsWith('.'))
    .flatMap((name) => (name.startsWith('@') ? readdirSync(join(modules, name)).map((inner) => `${name}/${inner}`) : [name]));
}

export async function benchInstallSize(runs: number): Promise<Record<string, BenchResult>> {
  const measured: Array<Record<string, number>> = [];
  for (let run = 0; run < runs; run += 1) {
    const folder = mkdtempSync(join(tmpdir(), 'kgrag-bench-install-'));
    try {
      process.stderr.write(`install-size: packing and installing (run ${run + 1} of ${runs})\n`);
      const packed = packAndInstall(folder);
      const modules = join(packed.app, 'node_modules');
      const sizes: Record<string, number> = {
        install_mb: megabytes(folderBytes(modules)),
        install_kgrag_mb: megabytes(folderBytes(packed.installed)),
        package_tarball_mb: megabytes(statSync(packed.tarball).size),
      };
      const others = packagesIn(modules)
        .filter((name) => name !== 'kgrag')
        .map((name) => ({ name, bytes: folderBytes(join(modules, name)) }))
        .sort((left, right) => right.bytes - left.bytes)
        .slice(0, 5);
      for (const { name, bytes } of others) sizes[`install_largest_${name.replace(/[@/.-]/g, '_').replace(/^_+/, '')}_mb`] = megabytes(bytes);
      measured.push(sizes);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  }
  const keys = [...new Set(measured.flatMap((sizes) => Object.keys(sizes)))];
  return Object.fromEntries(keys.map((key) => [key, result(measured.map((sizes) => sizes[key] ?? 0), 'MB')]));
}
