import type { AnyQueryMethod } from '../methods/query-method.js';

/**
 * Lets the method a query will use (`name` or `name:variant`) start what the question needs before the workspace
 * is opened (`QueryMethod.prepare`); a name not among `methods` does nothing here (the query itself reports it).
 */
export function prepareQuery(question: string, method: string, methods: readonly AnyQueryMethod[]): void {
  const name = method.split(':', 1)[0];
  methods.find((candidate) => candidate.name === name)?.prepare?.(question);
}
