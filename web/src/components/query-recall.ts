import type { ApiClient } from '../api-client';
import type { ContextChunk, DocumentDetail } from '../api-types';
import type { GoldKeyRule } from './query-eval-file';

/** The recall cut-offs `kgrag eval` reports (src/eval/run-evaluation.ts `defaultRecallCutoffs`). */
export const recallCutoffs = [1, 2, 5, 10] as const;

/** Recall of one method's ranked passages against a question's gold passages. */
export interface RecallResult {
  /** Recall@k for each cut-off; null when the question has no gold passage. */
  recall: Array<{ k: number; value: number | null }>;
  /** Distinct passage keys in rank order, with whether each is gold. */
  ranked: Array<{ key: string; title: string; gold: boolean }>;
  /**
   * `eval-key`: documents indexed by `kgrag eval` carry the key in `metadata.evalKey`, used exactly as eval does
   * (documents without one are skipped); `derived`: the workspace was indexed otherwise, so the key is rebuilt from
   * the document by the dataset's rule.
   */
  keys: 'eval-key' | 'derived';
  gold: number;
  /** The retrieved chunks whose passage is gold. */
  goldChunkIds: Set<string>;
}

/** Documents read for their passage keys, per workspace API, shared by every column and question. */
const documents = new Map<string, Promise<DocumentDetail>>();

function loadDocument(api: ApiClient, id: string): Promise<DocumentDetail> {
  const key = `${api.base}\u0000${id}`;
  let pending = documents.get(key);
  if (!pending) {
    pending = api.document(id);
    pending.catch(() => documents.delete(key));
    documents.set(key, pending);
  }
  return pending;
}

/**
 * A document's passage key by the dataset's rule, for a workspace not indexed by `kgrag eval`: the title; the URL
 * (metadata.url, else the source); or `title + "\n" + text` — where a markdown document's `# Title` heading and
 * blank line stand for the title line, as the sample dataset's loader reads its files.
 */
function derivedKey(document: DocumentDetail, rule: GoldKeyRule): string {
  if (rule === 'title') return document.title;
  if (rule === 'url') return typeof document.metadata['url'] === 'string' ? document.metadata['url'] : document.source;
  const text = document.text.replace(/\r\n/g, '\n');
  const heading = `# ${document.title}\n\n`;
  if (text.startsWith(heading)) return `${document.title}\n${text.slice(heading.length).replace(/\n$/, '')}`;
  if (text.startsWith(`${document.title}\n`)) return text;
  return `${document.title}\n${text}`;
}

/**
 * Recall@k of the gold passages among a method's ranked chunks, as `kgrag eval` computes it: chunks map to their
 * document's key, keys are de-duplicated in rank order (a passage counts once, at its best rank), and Recall@k =
 * |gold ∩ first k distinct keys| / |gold|.
 */
export async function recallOf(api: ApiClient, chunks: readonly ContextChunk[], goldKeys: readonly string[], rule: GoldKeyRule): Promise<RecallResult> {
  const documentIds = [...new Set(chunks.map((chunk) => chunk.documentId))];
  const loaded = new Map((await Promise.all(documentIds.map((id) => loadDocument(api, id)))).map((document) => [document.id, document]));
  const evalKeys = [...loaded.values()].some((document) => typeof document.metadata['evalKey'] === 'string');
  const keyOf = (document: DocumentDetail): string | undefined =>
    evalKeys ? (typeof document.metadata['evalKey'] === 'string' ? document.metadata['evalKey'] : undefined) : derivedKey(document, rule);
  const gold = new Set(goldKeys);
  const seen = new Set<string>();
  const ranked: RecallResult['ranked'] = [];
  const goldChunkIds = new Set<string>();
  for (const chunk of chunks) {
    const document = loaded.get(chunk.documentId);
    const key = document && keyOf(document);
    if (key !== undefined && gold.has(key)) goldChunkIds.add(chunk.id);
    if (key === undefined || seen.has(key)) continue;
    seen.add(key);
    ranked.push({ key, title: chunk.documentTitle, gold: gold.has(key) });
  }
  const recall = recallCutoffs.map((k) => {
    if (gold.size === 0) return { k, value: null };
    const top = new Set(ranked.slice(0, k).map((item) => item.key));
    let hits = 0;
    for (const key of gold) if (top.has(key)) hits += 1;
    return { k, value: hits / gold.size };
  });
  return { recall, ranked, keys: evalKeys ? 'eval-key' : 'derived', gold: gold.size, goldChunkIds };
}
