import type { CallbackManagerForRetrieverRun } from '@langchain/core/callbacks/manager';
import { Document } from '@langchain/core/documents';
import { BaseRetriever, type BaseRetrieverInput } from '@langchain/core/retrievers';
import type { Kgrag } from '../api/kgrag.js';

/** Options of {@link KgragRetriever}. */
export interface KgragRetrieverInput extends BaseRetrieverInput {
  kgrag: Kgrag;
  /** `name` or `name:variant` (`ppr`, `kgp`, `basic:bm25`, …). @default the workspace's `query.method` */
  method?: string;
  /** Most Documents returned, best first. @default all the method retrieved */
  k?: number;
  /** The method's own top-k (passages, or matched entities for local), as `-k` on the command line. */
  topK?: number;
  /** Method parameters, as `-p` on the command line. */
  params?: Record<string, unknown>;
}

/**
 * A LangChain.js retriever over a kgrag workspace (`import { KgragRetriever } from 'kgrag/langchain'`): any method's
 * passages as `Document`s, best first, each with what a chain needs to cite it in `metadata` — the document title
 * and source, the passage's id and its `[Data: Sources (n)]` citation, the score and rank, and how the method ranked
 * (a method that falls back, or ranks by a proxy, says so in `ranking`). Needs `@langchain/core` (an optional peer
 * dependency of kgrag).
 */
export class KgragRetriever extends BaseRetriever {
  static override lc_name(): string {
    return 'KgragRetriever';
  }

  lc_namespace = ['kgrag', 'retrievers'];

  private readonly kgrag: Kgrag;
  private readonly method: string | undefined;
  private readonly k: number | undefined;
  private readonly topK: number | undefined;
  private readonly params: Record<string, unknown> | undefined;

  constructor(fields: KgragRetrieverInput) {
    super(fields);
    this.kgrag = fields.kgrag;
    this.method = fields.method;
    this.k = fields.k;
    this.topK = fields.topK;
    this.params = fields.params;
  }

  override async _getRelevantDocuments(query: string, _runManager?: CallbackManagerForRetrieverRun): Promise<Document[]> {
    const result = await this.kgrag.retrieve(query, {
      ...(this.method === undefined ? {} : { method: this.method }),
      ...(this.topK === undefined ? {} : { topK: this.topK }),
      ...(this.params === undefined ? {} : { params: this.params }),
    });
    const method = result.variant ? `${result.method}:${result.variant}` : result.method;
    const chunks = this.k === undefined ? result.retrieval.chunks : result.retrieval.chunks.slice(0, this.k);
    return chunks.map(
      (chunk, rank) =>
        new Document({
          id: chunk.id,
          pageContent: chunk.text,
          metadata: {
            title: chunk.documentTitle,
            source: chunk.source,
            documentId: chunk.documentId,
            chunkId: chunk.id,
            citation: `[Data: Sources (${chunk.hid})]`,
            score: chunk.score,
            rank: rank + 1,
            method,
            ranking: result.ranking.kind,
            warnings: result.warnings,
          },
        }),
    );
  }
}
