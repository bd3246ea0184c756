/** What {@link observeStream} calls as a stream passes through it. */
export interface StreamObserver<T> {
  /**
   * Sees each part before it is passed on; may return (or resolve to) a part to pass on instead, or throw to fail
   * the stream. The part waits for a returned promise (a reply stored before its `finish` is passed on).
   */
  part?(part: T): T | void | Promise<T | void>;
  /** Called when the source ends normally, before the stream closes; may throw to fail it (a missing finish). */
  close?(): void;
  /** Maps an error of the source, or one thrown by `part` or `close`, before the stream fails with it. */
  error?(error: unknown): unknown;
  /** Called once when the stream is over: closed, failed (with the mapped error) or cancelled by its reader. */
  end?(outcome: { error?: unknown; cancelled?: boolean }): void;
  /** A read still pending when this rejects fails with its reason (a deadline a deaf source ignores). */
  interrupt?: Promise<never>;
}

/**
 * `source` passed through `observer`, read only as its reader asks (so a reader that stops reading stops the
 * source) and cancelled with it. The middleware use it to act when a stream ends however it ends: release a
 * concurrency slot, clear a deadline, store a reply, count usage.
 */
export function observeStream<T>(source: ReadableStream<T>, observer: StreamObserver<T>): ReadableStream<T> {
  const reader = source.getReader();
  let over = false;
  const end = (outcome: { error?: unknown; cancelled?: boolean }): void => {
    if (over) return;
    over = true;
    observer.end?.(outcome);
  };
  return new ReadableStream<T>(
    {
      async pull(controller) {
        try {
          const next = await (observer.interrupt === undefined ? reader.read() : Promise.race([reader.read(), observer.interrupt]));
          if (next.done) {
            observer.close?.();
            end({});
            controller.close();
            return;
          }
          controller.enqueue((await observer.part?.(next.value)) ?? next.value);
        } catch (caught) {
          const error = observer.error === undefined ? caught : observer.error(caught);
          end({ error });
          reader.cancel(error).catch(() => undefined);
          controller.error(error);
        }
      },
      cancel(reason) {
        end({ cancelled: true });
        return reader.cancel(reason);
      },
    },
    { highWaterMark: 0 },
  );
}
