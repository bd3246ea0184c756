import type { WriterHolder } from './workspace-storage.js';

/** The writer for people: `pid 1234 on host-a, "kgrag index docs/", since 2026-11-25T10:00:00.000Z`. */
export function describeHolder(holder: WriterHolder): string {
  return `pid ${holder.pid} on ${holder.hostname}, "${holder.command}", since ${holder.startedAt}`;
}
