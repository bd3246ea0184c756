import { getHeapStatistics } from 'node:v8';
import type { ChunkingConfig } from '../core/config/config-schema.js';
import type { StepName } from './pipeline-step.js';

/**
 * What an index of a given size needs in memory, at least, and what this process may use. Most steps load every
 * chunk's text, vector, graph edges and extraction at once, so memory grows with the chunks. Measured peaks
 * (docs/BENCHMARKS.md, issue 35): with every method, 44 KB of RSS per chunk for 49 MB of random text (32,111 chunks)
 * and 43–50 KB for 16× 2Wiki (97,950); a text-only index (`basic`) far less. The estimate takes less than half of
 * each, so that it refuses only what cannot fit, never an index that would have been built.
 */
export interface IndexCapacity {
  /** Bytes the process may use: Node's heap limit (`--max-old-space-size`). */
  readonly limitBytes: number;
  /** The fewest bytes an index of `chunks` chunks needs. */
  neededBytes(chunks: number): number;
  /** Chunks a document of `characters` characters becomes, at the fewest (English has about four characters a token). */
  chunksOf(characters: number): number;
}

/** The heap a process holds before it indexes anything: code, configuration, tokenizer tables. */
const baseBytes = 128 * 1024 * 1024;
/** Per chunk when the run only chunks and embeds (a text-only index). */
const textBytesPerChunk = 4 * 1024;
/** Per chunk when the run also builds graphs (entities, kNN, passages, keywords). */
const graphBytesPerChunk = 20 * 1024;
const textSteps: ReadonlySet<StepName> = new Set(['load', 'chunk', 'embed-chunks']);
/** Characters of a token in English text (o200k: 4.2; random text, code and CJK have fewer), for the fewest chunks. */
const charactersPerToken = 4;

/** The capacity of this process for a run of `steps` (all of kgrag's when unknown), chunked with `chunking`. */
export function indexCapacity(chunking: ChunkingConfig, steps: readonly StepName[] | undefined, limitBytes = getHeapStatistics().heap_size_limit): IndexCapacity {
  const tokensPerChunk = chunking.strategy === 'separators' ? chunking.size : chunking.size - chunking.overlap;
  const perChunk = steps !== undefined && steps.every((step) => textSteps.has(step)) ? textBytesPerChunk : graphBytesPerChunk;
  return {
    limitBytes,
    neededBytes: (chunks) => baseBytes + chunks * perChunk,
    chunksOf: (characters) => Math.max(1, Math.ceil(characters / (charactersPerToken * tokensPerChunk))),
  };
}

/** A memory size for messages: megabytes below a gigabyte, else gigabytes with one decimal. */
export function memorySize(bytes: number): string {
  return bytes < 1024 ** 3 ? `${Math.round(bytes / 1024 ** 2)} MB` : `${(bytes / 1024 ** 3).toFixed(1)} GB`;
}
