/*
 * Finds Debian's chromium, which the web explorer's browser tests and benchmark drive through playwright-core, and
 * installs it when it is missing on a machine where that is possible: root with apt-get, as a fresh CI machine is.
 *
 * One install per machine at a time: the installer holds a lock directory in the temp folder, and other callers wait
 * for it and then look again rather than run apt themselves. scripts/run-tests.mjs runs this file as a script at the
 * start of the suite (`--status <file>`: the outcome as JSON) so that the ~70 s install overlaps the other tests; the
 * browser tests, which it orders last, read that outcome through KGRAG_CHROMIUM_INSTALL_STATUS instead of installing.
 */
import { spawn, spawnSync } from 'node:child_process';
import { accessSync, constants, existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const debianChromium = '/usr/bin/chromium';
const lockDirectory = join(tmpdir(), 'kgrag-chromium-install.lock');
const failureFile = join(tmpdir(), 'kgrag-chromium-install.failure');
const installYourself = 'install it yourself (as root: apt-get install -y chromium) or set KGRAG_CHROMIUM to a chromium executable';

/** What the background install of scripts/run-tests.mjs reports to the browser tests. */
interface InstallStatus {
  path?: string;
  error?: string;
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Runs a command, collecting its output for the error message; apt's progress is not worth the test log's lines. */
function run(command: string, args: readonly string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('error', reject);
    child.once('exit', (code) => {
      if (code === 0) resolve();
      else reject(new Error(`\`${command} ${args.join(' ')}\` exited with ${code}:\n${output.trim().split('\n').slice(-15).join('\n')}`));
    });
  });
}

function canInstall(): boolean {
  return process.getuid?.() === 0 && spawnSync('apt-get', ['--version'], { stdio: 'ignore' }).status === 0;
}

async function install(): Promise<void> {
  if (!canInstall()) {
    const why = process.getuid?.() === 0 ? 'apt-get is not available' : 'not running as root';
    throw new Error(`chromium is missing (no executable at ${debianChromium}) and cannot be installed here (${why}): the web explorer tests drive Debian's chromium; ${installYourself}`);
  }
  process.stderr.write("installing Debian's chromium for the web explorer tests; to skip this, install it yourself: apt-get install chromium\n");
  const started = performance.now();
  await run('apt-get', ['update']);
  await run('apt-get', ['install', '-y', '--no-install-recommends', 'chromium']);
  if (!isExecutable(debianChromium)) throw new Error(`apt-get installed chromium but ${debianChromium} is not an executable; ${installYourself}`);
  process.stderr.write(`chromium installed in ${Math.round((performance.now() - started) / 1000)} s\n`);
}

/** Whether another process holds the install lock (a lock whose owner died is removed). */
function lockHeld(): boolean {
  let owner: number;
  try {
    owner = Number(readFileSync(join(lockDirectory, 'pid'), 'utf8'));
  } catch {
    if (!existsSync(lockDirectory)) return false;
    // Taken but its pid not written yet — or its owner died in between, which a minute tells apart.
    if (Date.now() - statSync(lockDirectory).mtimeMs < 60_000) return true;
    rmSync(lockDirectory, { recursive: true, force: true });
    return false;
  }
  try {
    process.kill(owner, 0);
    return true;
  } catch {
    rmSync(lockDirectory, { recursive: true, force: true });
    return false;
  }
}

async function installOnce(): Promise<string> {
  for (;;) {
    try {
      mkdirSync(lockDirectory);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      if (!lockHeld()) continue;
      while (lockHeld()) await sleep(500);
      if (isExecutable(debianChromium)) return debianChromium;
      const failure = existsSync(failureFile) ? readFileSync(failureFile, 'utf8') : 'no reason recorded';
      throw new Error(`chromium is missing and another process's install of it failed (${failure}); ${installYourself}`);
    }
    try {
      writeFileSync(join(lockDirectory, 'pid'), String(process.pid));
      rmSync(failureFile, { force: true });
      if (!isExecutable(debianChromium)) await install();
      return debianChromium;
    } catch (error) {
      writeFileSync(failureFile, (error as Error).message);
      throw error;
    } finally {
      rmSync(lockDirectory, { recursive: true, force: true });
    }
  }
}

/** Waits for the outcome of the install scripts/run-tests.mjs started (it writes the file once, by rename). */
async function awaitBackgroundInstall(statusFile: string): Promise<string> {
  while (!existsSync(statusFile)) await sleep(500);
  const status = JSON.parse(readFileSync(statusFile, 'utf8')) as InstallStatus;
  if (status.path !== undefined && isExecutable(status.path)) return status.path;
  throw new Error(`chromium is missing and the install scripts/run-tests.mjs started failed: ${status.error ?? 'no reason recorded'}`);
}

/**
 * The path of a chromium executable: KGRAG_CHROMIUM when set, else Debian's /usr/bin/chromium, installed first when
 * missing and this process may (root with apt-get). Throws, saying how to install it, when it can be neither found nor
 * installed.
 */
export async function ensureChromium(): Promise<string> {
  const chosen = process.env.KGRAG_CHROMIUM;
  if (chosen) {
    if (isExecutable(chosen)) return chosen;
    throw new Error(`KGRAG_CHROMIUM is ${chosen}, which is not an executable file; point it at chromium or unset it to use Debian's ${debianChromium}`);
  }
  if (isExecutable(debianChromium)) return debianChromium;
  const statusFile = process.env.KGRAG_CHROMIUM_INSTALL_STATUS;
  return statusFile ? awaitBackgroundInstall(statusFile) : installOnce();
}

// As a script: `tsx scripts/ensure-chromium.ts --status <file>` writes the outcome to <file> and exits 0 or 1.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const statusIndex = process.argv.indexOf('--status');
  const statusFile = statusIndex >= 0 ? process.argv[statusIndex + 1] : undefined;
  // This process is the install the variable points at: it must not wait for itself.
  delete process.env.KGRAG_CHROMIUM_INSTALL_STATUS;
  let status: InstallStatus;
  try {
    status = { path: await ensureChromium() };
  } catch (error) {
    status = { error: (error as Error).message };
    process.stderr.write(`${status.error}\n`);
  }
  if (statusFile) {
    writeFileSync(`${statusFile}.partial`, JSON.stringify(status));
    renameSync(`${statusFile}.partial`, statusFile);
  } else if (status.path) process.stdout.write(`${status.path}\n`);
  process.exitCode = status.path ? 0 : 1;
}
