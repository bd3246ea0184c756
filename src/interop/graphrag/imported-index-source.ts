/** The system name of GraphRAG's rows in `external_ids` and of an index imported from it. */
export const graphragSystem = 'graphrag';

/** Meta key of what an imported index was imported from ({@link ImportedIndexSource}). */
export const importedIndexKey = 'import:source';

/** Where an imported index came from, kept in its meta. */
export interface ImportedIndexSource {
  system: typeof graphragSystem;
  directory: string;
  generation: '1.x' | '2.x';
  /** SHA-256 of each table file read. */
  files: Record<string, string>;
}
