import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The checkout itself (its package.json, dist/ and node_modules): under scripts/run-tests.mjs this module runs from a
 * compiled mirror whose top-level entries are symbolic links, which `npm pack` does not follow.
 */
export const checkoutRoot = dirname(realpathSync(fileURLToPath(new URL('../../package.json', import.meta.url))));
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

/** kgrag packed and installed into an empty folder as a user would install it from the registry. */
export interface PackedInstall {
  /** The consumer folder: its package.json depends on kgrag alone. */
  app: string;
  /** The installed package, `app/node_modules/kgrag`. */
  installed: string;
  /** The tarball. */
  tarball: string;
  /** Paths inside the package, as `npm pack` listed them. */
  files: string[];
}

/** Runs a command to completion; throws with its output when it fails. */
export function runCommand(command: string, args: readonly string[], cwd: string, timeoutMs = 180_000): string {
  const result = spawnSync(command, args, { cwd, encoding: 'utf8', timeout: timeoutMs, env: { ...process.env, npm_config_update_notifier: 'false' } });
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} in ${cwd} exited with ${result.status ?? result.signal}:\n${result.stderr}\n${result.stdout}`);
  return result.stdout;
}

/**
 * Packs the checkout and installs the tarball into `folder/app` with `--omit=dev`.
 *
 * The tarball is packed from dist/ as `npm ci` built it (its `prepare`), with --ignore-scripts so that packing does not
 * build again. The install runs from the npm cache (--prefer-offline) with --ignore-scripts: the one install script of
 * a runtime dependency is better-sqlite3's native build (2–3 minutes of node-gyp on a machine that cannot download its
 * prebuilt binary); the addon the checkout's `npm ci` compiled for the same version and Node takes its place, as the
 * prebuilt binary does for a user, and only that file (not node-gyp's object files) is copied.
 */
export function packAndInstall(folder: string): PackedInstall {
  if (!existsSync(join(checkoutRoot, 'dist', 'index.js'))) throw new Error('dist/ is missing: `npm ci` builds it (prepare); in a checkout run `npm run build`');
  const [packed] = JSON.parse(runCommand(npm, ['pack', '--ignore-scripts', '--json', '--pack-destination', folder], checkoutRoot)) as Array<{ filename: string; files: Array<{ path: string }> }>;
  if (!packed) throw new Error('npm pack reported no package');
  const app = join(folder, 'app');
  mkdirSync(app, { recursive: true });
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'kgrag-consumer', private: true, type: 'module' }));
  const tarball = join(folder, packed.filename);
  runCommand(npm, ['install', '--omit=dev', '--prefer-offline', '--ignore-scripts', '--no-audit', '--no-fund', tarball], app, 300_000);
  const addon = join('node_modules', 'better-sqlite3', 'build', 'Release', 'better_sqlite3.node');
  const version = (dir: string): string => (JSON.parse(readFileSync(join(dir, 'node_modules', 'better-sqlite3', 'package.json'), 'utf8')) as { version: string }).version;
  if (version(app) === version(checkoutRoot)) {
    mkdirSync(join(app, 'node_modules', 'better-sqlite3', 'build', 'Release'), { recursive: true });
    copyFileSync(join(checkoutRoot, addon), join(app, addon));
  } else {
    runCommand(npm, ['rebuild', 'better-sqlite3'], app, 600_000);
  }
  return { app, installed: join(app, 'node_modules', 'kgrag'), tarball, files: packed.files.map((file) => file.path) };
}
