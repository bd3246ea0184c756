/**
 * Meta keys of the generation protocol, written into an index when it is published: which generation it is and
 * when it was published. Readers that keep something derived from an index (an in-memory name table) key it by
 * them, since every publish writes both anew.
 */
export const generationMetaKeys = {
  generation: 'index:generation',
  publishedAt: 'index:publishedAt',
} as const;
