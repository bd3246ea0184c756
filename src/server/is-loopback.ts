/**
 * Whether `host` (an address to bind, or the host name of a request's Host header) names this machine only:
 * `localhost`, `127.x.x.x`, `::1` or `[::1]`.
 */
export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || host === '[::1]' || /^127(\.\d{1,3}){3}$/.test(host);
}
