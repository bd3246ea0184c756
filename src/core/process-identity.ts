import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';

/** Who a process is, precisely enough to tell it from a later process that reuses its pid. */
export interface ProcessIdentity {
  pid: number;
  hostname: string;
  /**
   * When the process started, in clock ticks since boot (field 22 of `/proc/<pid>/stat`), or null where
   * `/proc` is not available. A pid reused after a crash has another start time.
   */
  startTicks: number | null;
}

/** The start time of `pid` from `/proc`, or null when it cannot be read (not Linux, no such process). */
export function processStartTicks(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) is in parentheses and may itself hold spaces or parentheses.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[19]);
    return Number.isFinite(ticks) ? ticks : null;
  } catch {
    return null;
  }
}

/** This process. */
export function currentProcessIdentity(): ProcessIdentity {
  return { pid: process.pid, hostname: hostname(), startTicks: processStartTicks(process.pid) };
}

/**
 * Whether the process `identity` names is still running. Only a process on this host can be checked; one on
 * another host (a workspace on a network share) counts as running.
 */
export function isProcessRunning(identity: ProcessIdentity): boolean {
  if (identity.hostname !== hostname()) return true;
  try {
    process.kill(identity.pid, 0);
  } catch (error) {
    // EPERM: the process exists but belongs to another user.
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  if (identity.startTicks === null) return true;
  const ticks = processStartTicks(identity.pid);
  return ticks === null || ticks === identity.startTicks;
}
