/** Where the CLI reads and writes; `process` in production, buffers in tests. */
export interface CliIo {
  stdout: NodeJS.WritableStream;
  /** Progress, warnings and errors — never results. */
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
  env: Record<string, string | undefined>;
  cwd: string;
}

/** Writes one line. */
export function writeLine(stream: NodeJS.WritableStream, line = ''): void {
  stream.write(`${line}\n`);
}

/**
 * The process's own streams. A reader that stops early (`kgrag query … --json | head`) closes stdout; the
 * next write then fails with EPIPE, which would surface as an unhandled stream error with a stack trace.
 * Nothing more can reach that reader, so the process ends quietly instead.
 */
export function processIo(): CliIo {
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
    process.exit(typeof process.exitCode === 'number' ? process.exitCode : 0);
  });
  return { stdout: process.stdout, stderr: process.stderr, env: process.env, cwd: process.cwd() };
}
