/**
 * @module Request pipelines as named stages over one context, as Hono's `compose` over its
 * `Context`: each stage does its part and calls `next()` for the rest, or answers without it.
 * Unlike Hono's, a stage may answer synchronously: a pipeline that never waits takes no promise
 * and no microtask hop (the server's cached GET stays as fast as it was).
 */

export type MaybePromise<T> = T | Promise<T>;

/** Runs the rest of the pipeline. */
export type Next = () => MaybePromise<void>;

/** One named step of a pipeline. It sets what it learns on the context, or throws an error. */
export type Stage<C> = (ctx: C, next: Next) => MaybePromise<void>;

/**
 * One function running `stages` in order over a context; a promise only when a stage had to wait.
 * Errors are the caller's: thrown synchronously or as a rejection, to its one error path. A stage
 * calls `next()` at most once: a second call throws `next() called multiple times` (as Hono's
 * does) rather than running the rest of the pipeline twice or silently not at all.
 *
 * @example
 * const run = compose<Ctx>([route, authenticate, handle]);
 * await run(ctx);
 */
export function compose<C>(stages: readonly Stage<C>[]): (ctx: C) => MaybePromise<void> {
  const count = stages.length;
  return function run(ctx: C): MaybePromise<void> {
    // The furthest stage started: each stage's `next` starts the one after it, once.
    let started = -1;
    const dispatch = (at: number): MaybePromise<void> => {
      if (at <= started) throw new Error('next() called multiple times');
      started = at;
      return at < count ? stages[at]!(ctx, unnamed(() => dispatch(at + 1))) : undefined;
    };
    return dispatch(0);
  };
}

/**
 * `fn` itself. A function passed as an argument stays anonymous, so a transpiler that keeps names
 * (tsx, esbuild's `keepNames`) does not name it on every request, which costs more than making it.
 */
function unnamed<F>(fn: F): F {
  return fn;
}

/** Runs `then` after `value`, synchronously when `value` is not a promise. */
export function after<T, R>(value: MaybePromise<T>, then: (value: T) => MaybePromise<R>): MaybePromise<R> {
  return value instanceof Promise ? value.then(then) : then(value);
}
