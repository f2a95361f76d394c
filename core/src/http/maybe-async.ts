// The request path's checks answer from in-process caches almost always. Written as "a value, or a promise of it",
// they cost no promise (and, with AsyncLocalStorage on, no async hook) when the answer is at hand; these two
// helpers keep such code as readable as async/await.

export type MaybePromise<T> = T | Promise<T>;

const isPromise = <T>(value: MaybePromise<T>): value is Promise<T> => typeof (value as Promise<T> | undefined)?.then === 'function';

/** `next(value)`, at once when `value` is at hand, else when it resolves. */
export function andThen<T, R>(value: MaybePromise<T>, next: (value: T) => MaybePromise<R>): MaybePromise<R> {
  return isPromise(value) ? value.then(next) : next(value);
}

/**
 * Run `steps` in order and call `done` once: with the first error thrown or rejected, or with nothing after the
 * last step. Steps that return no promise run one after another in the same tick.
 */
export function runSteps<A>(steps: readonly ((arg: A) => MaybePromise<void>)[], arg: A, done: (err?: Error) => void): void {
  let i = 0;
  const next = (): void => {
    while (i < steps.length) {
      let result: MaybePromise<void>;
      try {
        result = steps[i++](arg);
      } catch (err) {
        return done(err as Error);
      }
      if (isPromise(result)) {
        result.then(next, done);
        return;
      }
    }
    done();
  };
  next();
}
