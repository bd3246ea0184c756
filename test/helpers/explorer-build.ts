import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { repositoryRoot } from './node-script.js';

function newestChange(path: string): number {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return readdirSync(path).reduce((newest, name) => Math.max(newest, newestChange(join(path, name))), stat.mtimeMs);
}

/**
 * The explorer as the sources are now: dist/web when it was built after the last change to web/ (as `npm ci` leaves
 * it), else a build of web/ into `<scratch>/web` for the calling test.
 */
export async function currentExplorerBuild(scratch: string): Promise<string> {
  const built = join(repositoryRoot, 'dist', 'web');
  const page = join(built, 'index.html');
  if (existsSync(page) && statSync(page).mtimeMs > newestChange(join(repositoryRoot, 'web'))) return built;
  const { build } = await import('vite');
  const webDirectory = join(scratch, 'web');
  await build({ configFile: join(repositoryRoot, 'web', 'vite.config.ts'), logLevel: 'error', build: { outDir: webDirectory, emptyOutDir: true } });
  return webDirectory;
}
