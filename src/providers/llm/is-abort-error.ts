/** True for the errors `fetch` and the AI SDK raise when an abort signal fires. */
export function isAbortError(error: unknown): boolean {
  return (
    (error instanceof Error || error instanceof DOMException) &&
    (error.name === 'AbortError' || error.name === 'TimeoutError' || error.name === 'ResponseAborted')
  );
}
