/** pino's numeric levels, by name, for what a terminal shows. */
const levelNames: Record<number, string> = { 10: 'trace', 20: 'debug', 30: 'info', 40: 'warn', 50: 'error', 60: 'fatal' };

/**
 * One of the server's JSON log lines as a person reads it on a terminal: a request as `GET /v1/query 200 12 ms
 * (key-1)`, anything else as `warn: <message> key=value …`. A line that is not JSON is shown as it is.
 */
export function readableLogLine(json: string): string {
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(json) as Record<string, unknown>;
  } catch {
    return json.trimEnd();
  }
  const { level, time, msg, method, path, status, ms, caller, requestId, err, ...rest } = entry;
  const clock = typeof time === 'number' ? new Date(time).toISOString().slice(11, 23) : '';
  const name = typeof level === 'number' ? (levelNames[level] ?? String(level)) : String(level ?? '');
  if (typeof method === 'string' && typeof path === 'string' && typeof status === 'number') {
    const by = typeof caller === 'string' ? ` (${caller})` : '';
    return `${clock} ${method} ${path} ${status} ${typeof ms === 'number' ? ms : '?'} ms${by}`;
  }
  const error = err !== null && typeof err === 'object' && typeof (err as { message?: unknown }).message === 'string' ? ` — ${(err as { message: string }).message}` : '';
  const fields = Object.entries({ ...rest, ...(typeof requestId === 'string' ? { requestId } : {}) })
    .map(([key, value]) => ` ${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`)
    .join('');
  return `${clock} ${name}: ${String(msg ?? '')}${error}${fields}`;
}
