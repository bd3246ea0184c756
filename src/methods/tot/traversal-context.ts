import type { PromptLibrary } from '../../core/prompt-library.js';
import type { KnowledgeGraph } from './kg/knowledge-graph.js';
import type { LanguageModel } from '../../providers/llm/language-model.js';

/** What initialization, the actions, the value function and the search share for one question. */
export interface TraversalContext {
  question: string;
  kg: KnowledgeGraph;
  /** The chat model, tagged with what each call is for (`tot-action`, `tot-evaluate-answer`, …). */
  model(purpose: string): LanguageModel;
  prompts: PromptLibrary;
  /** k (`sample_breadth`). */
  sampleBreadth: number;
  maxDepth: number;
  maxExpansions: number;
  answerThreshold: number;
  /** Temperature of sampled actions and forced answers. */
  temperature: number;
  /** Base seed: sample i of one call group uses seed + i. */
  seed: number;
  /** Candidates looked up per question entity. */
  candidates: number;
  signal?: AbortSignal;
  /** Called after each expansion with the search so far (for progress lines). */
  onExpansion?: (progress: SearchProgress) => void;
}

/** The search after an expansion. */
export interface SearchProgress {
  expansions: number;
  /** Nodes in the tree, the root included. */
  nodes: number;
  /** The best answer so far, if any. */
  best?: { answer: string; value: number };
}
