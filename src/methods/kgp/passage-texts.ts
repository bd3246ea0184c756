import type { MethodContext } from '../query-method.js';
import type { KgpLookups } from './kgp-lookups.js';

/** Texts of passages, fetched once per query and reused by later paths. */
export class PassageTexts {
  private readonly texts = new Map<number, string>();

  constructor(
    private readonly context: MethodContext,
    private readonly lookups: KgpLookups,
  ) {}

  /** The texts of `passages`, in order (fetching those not yet known in one read). */
  async of(passages: readonly number[]): Promise<string[]> {
    const missing = [...new Set(passages.filter((passage) => !this.texts.has(passage)))];
    if (missing.length > 0) {
      const rows = await this.context.store.table('chunks').get(missing.map((passage) => this.lookups.chunkIds[passage] as string));
      const byId = new Map(rows.map((row) => [row.id, row.text]));
      for (const passage of missing) this.texts.set(passage, byId.get(this.lookups.chunkIds[passage] as string) ?? '');
    }
    return passages.map((passage) => this.texts.get(passage) ?? '');
  }
}
