import { fillPrompt } from '../../core/prompt-library.js';
import type { TraversalContext } from './traversal-context.js';
import { totPrompts } from './tot-prompts.js';
import type { TraversalState } from './traversal-state.js';

/** A traversal prompt: the current step's text inside `FULL_PROMPT` (`construct_full_prompt`). */
export function renderFullPrompt(context: TraversalContext, state: TraversalState, currentPrompt: string): string {
  return fillPrompt(context.prompts.text(totPrompts.full), {
    query: context.question,
    kg_state: state.kgText(),
    trajectory: state.trajectoryText(),
    current_prompt: currentPrompt,
  });
}
