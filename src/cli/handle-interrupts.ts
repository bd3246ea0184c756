import type { PipelineEvent } from '../pipeline/pipeline-step.js';
import { type CliIo, writeLine } from './cli-io.js';
import { interruptedError } from './interrupted-error.js';

/** Ctrl-C handling of a command that runs the index pipeline (see {@link handleInterrupts}). */
export interface InterruptHandling {
  /** For the run's options: stop after the current step, or now. */
  readonly signals: { signal: AbortSignal; stopAfterStep: AbortSignal };
  /** Follows the run's events, to name the step an interrupt stopped in. */
  onEvent(event: PipelineEvent): void;
  /** The error the command ends with: an interrupt as `INTERRUPTED` (exit 130), any other error as it is. */
  translate(error: unknown, finished: readonly string[]): unknown;
  /** Stops listening for Ctrl-C. */
  dispose(): void;
}

/**
 * Ctrl-C during an index run is the user stopping it, not a failure: the first lets the step in progress finish and
 * keeps it, the second cancels that step now, a third (for a step that does not check) exits at once. Every way
 * leaves a draft the next run resumes, and the command exits 130 like any interrupted program.
 */
export function handleInterrupts(io: CliIo): InterruptHandling {
  const stopAfterStep = new AbortController();
  const stopNow = new AbortController();
  let interrupts = 0;
  let runningStep: string | undefined;
  const onInterrupt = (): void => {
    interrupts++;
    if (interrupts === 1) {
      stopAfterStep.abort();
      const step = runningStep === undefined ? 'the current step' : `step "${runningStep}"`;
      writeLine(io.stderr, `\ninterrupted: finishing ${step} and keeping its work, then stopping (Ctrl-C again to stop now; run the same command again to resume)`);
    } else if (interrupts === 2) {
      stopNow.abort();
      writeLine(io.stderr, '\ninterrupted again: stopping now (Ctrl-C once more to exit without waiting for the step to notice)');
    } else {
      process.exit(130);
    }
  };
  process.on('SIGINT', onInterrupt);
  return {
    signals: { signal: stopNow.signal, stopAfterStep: stopAfterStep.signal },
    onEvent(event) {
      if (event.type === 'step-start') runningStep = event.step;
      if (event.type === 'step-end') runningStep = undefined;
    },
    // Whatever the interrupted work threw (a cancelled request, a lock wait given up) is the interrupt.
    translate: (error, finished) => (interrupts > 0 ? interruptedError(error, finished, runningStep) : error),
    dispose: () => process.off('SIGINT', onInterrupt),
  };
}
