import { z } from 'zod';

const upperCased = (value: unknown): unknown => (typeof value === 'string' ? value.trim().toUpperCase() : value);
/** GraphRAG's source text is "a list of all quotes"; models send a list as often as a string. */
const joinedList = (value: unknown): unknown => (Array.isArray(value) ? value.filter((item) => typeof item === 'string').join(' ') : value);

/**
 * The JSON reply requested for claims in `json` format (GraphRAG covariates,
 * microsoft/graphrag `prompts/index/extract_claims.py`, with its field names in snake case). Lenient where models drift: status in any casing, a list
 * of quotes as the source text, missing optional fields. `"NONE"` objects and dates are mapped to `null`
 * by the caller, not here, so the schema sent to the server stays plain.
 */
export const extractedClaimsSchema = z.object({
  claims: z.array(
    z.object({
      subject: z.string().min(1),
      object: z.string().nullable().default(null),
      type: z.string().default('unknown'),
      status: z.preprocess(upperCased, z.enum(['TRUE', 'FALSE', 'SUSPECTED'])).default('SUSPECTED'),
      start_date: z.string().nullable().default(null),
      end_date: z.string().nullable().default(null),
      description: z.string().default(''),
      source_text: z.preprocess(joinedList, z.string()).default(''),
    }),
  ),
});
