import type { AnyQueryMethod } from './query-method.js';

/** The keys of a method's configuration schema (a zod object), for messages and top-k mapping. */
export function configShape(method: Pick<AnyQueryMethod, 'config'>): Record<string, unknown> {
  return (method.config as unknown as { shape?: Record<string, unknown> }).shape ?? {};
}
