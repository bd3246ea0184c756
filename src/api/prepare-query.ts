import { registeredMethods } from './registered-methods.js';

/**
 * Lets the method a query will use (`name` or `name:variant`) start what the question needs before the workspace
 * is opened (`QueryMethod.prepare`); an unknown name does nothing here (the query itself reports it).
 */
export function prepareQuery(question: string, method: string): void {
  const name = method.split(':', 1)[0];
  registeredMethods.find((candidate) => candidate.name === name)?.prepare?.(question);
}
