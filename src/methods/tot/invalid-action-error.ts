/**
 * An action that cannot be applied: its reply did not parse, it added nothing to the graph, or the graph
 * failed (the reference's `ValueError`s in `treeoftraversals.py`). The search records it in the trajectory
 * as `ERROR: …` instead of adding the child, and goes on.
 */
export class InvalidActionError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'InvalidActionError';
  }
}
