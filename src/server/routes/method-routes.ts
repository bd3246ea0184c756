import { z } from 'zod';
import type { AnyQueryMethod } from '../../methods/query-method.js';
import { builtMethods } from '../../pipeline/built-methods.js';
import { defineRoute } from '../api-route.js';
import { methodDescriptionSchema } from '../response-schemas.js';

/** A method's description with its parameters as JSON Schema (its zod schema, input side), for forms and clients. */
const describeMethod = (method: AnyQueryMethod) => {
  const { $schema: _ignored, ...parameters } = z.toJSONSchema(method.config, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  return {
    name: method.name,
    description: method.description,
    variants: [...method.variants],
    topKParam: method.topKParam ?? null,
    ranking: method.ranking,
    needsLlm: method.needsLlm === true,
    parameters,
  };
};

/** `GET /methods`: every method with its variants, parameter schema, and whether this index is built for it. */
export const methodRoutes = [
  defineRoute({
    method: 'get',
    path: '/methods',
    tag: 'query',
    summary: "The query methods: description, variants, parameters (JSON Schema of the method's settings), and whether the index is built for each",
    responses: { 200: { description: 'Methods', schema: z.object({ default: z.string().describe('The method a query without one uses'), methods: z.array(methodDescriptionSchema) }) } },
    handler: async (c, { workspace }) => {
      // An index from before methods were chosen holds every method's steps; an empty workspace none (it has no
      // published index to read yet: the explorer opens on it, to add the first documents).
      const published = (await workspace.kgrag.status()).generation != null;
      const built = published ? await builtMethods(workspace.kgrag.store) : [];
      const documents = built === undefined ? (await workspace.kgrag.stats()).documents : 0;
      return c.json({
        default: workspace.kgrag.config.query.method,
        methods: workspace.kgrag.engine.methods.map(describeMethod).map((method) => ({ ...method, built: built === undefined ? documents > 0 : built.includes(method.name) })),
      });
    },
  }),
];
