// The part of autocannon's API the serve benchmark uses (the package ships no types).
declare module 'autocannon' {
  interface Request {
    method?: string;
    path?: string;
    headers?: Record<string, string>;
    body?: string;
  }
  interface Options {
    url: string;
    connections?: number;
    duration?: number;
    timeout?: number;
    requests?: Request[];
  }
  interface Histogram {
    p50: number;
    p99: number;
    average: number;
  }
  interface Result {
    errors: number;
    timeouts: number;
    non2xx: number;
    latency: Histogram;
    requests: Histogram & { total: number };
  }
  interface Instance extends Promise<Result> {
    on(event: 'response', listener: (client: unknown, statusCode: number, bytes: number, ms: number) => void): this;
    on(event: 'reqError', listener: (error: Error) => void): this;
    /** Ends the run early; the promise then resolves with what was measured. */
    stop(): void;
  }
  function autocannon(options: Options): Instance;
  export default autocannon;
}
