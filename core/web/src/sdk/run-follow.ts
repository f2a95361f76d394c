// Run now, followed to its outcome. A start route answers a job run, not the record the run writes when it ends
// (a feed's history row, a crawl's run-log row), so the outcome is found by polling for a record newer than the
// newest before the start (record ids only grow). useRunTracks keeps each key's state while the page is open;
// leaving the page stops the polls (the runs go on; their records stay).
import { useCallback, useEffect, useRef, useState } from 'react';
import { ApiError } from './api.js';

export const RUN_POLL_MS = 1000;
export const RUN_GIVE_UP_MS = 2 * 60_000;

export interface RunFollower<R extends { id: number }> {
  /** The thing's latest run records, newest first (one is enough). */
  records(signal: AbortSignal): Promise<readonly R[]>;
  /** Start a run; a 409 means one is queued or running already. */
  start(signal: AbortSignal): Promise<void>;
  /**
   * On a 409: called, and the run already queued is followed instead. Without it the 409 is thrown.
   */
  onBusy?(): void;
}

/** Start a run and wait for its record (null after RUN_GIVE_UP_MS); a refused start is thrown. */
export async function followRun<R extends { id: number }>(follower: RunFollower<R>, signal: AbortSignal): Promise<R | null> {
  const since = (await follower.records(signal))[0]?.id ?? 0;
  try {
    await follower.start(signal);
  } catch (error) {
    if (!(follower.onBusy && error instanceof ApiError && error.status === 409)) throw error;
    follower.onBusy();
  }
  const deadline = Date.now() + RUN_GIVE_UP_MS;
  let found: R | null = null;
  while (!found && Date.now() < deadline) {
    await pause(RUN_POLL_MS, signal);
    // A failed poll (the network) is tried again on the next tick.
    found = (await follower.records(signal).catch(() => [] as R[])).find((r) => r.id > since) ?? null;
  }
  return found;
}

/** Per-key tracks of tasks that outlive a render; `launch` runs one with its own abort signal. */
export function useRunTracks<T>() {
  const [tracks, setTracks] = useState<Record<string, T>>({});
  const controllers = useRef(new Set<AbortController>());
  useEffect(() => () => controllers.current.forEach((c) => c.abort()), []);

  const set = useCallback((key: string, track: T | null) => setTracks((all) => {
    const { [key]: _, ...rest } = all;
    return track ? { ...rest, [key]: track } : rest;
  }), []);

  /** Run `task`; its failure goes to `failed` unless the page was left (aborted). */
  const launch = useCallback((task: (signal: AbortSignal) => Promise<void>, failed: (error: unknown) => void) => {
    const controller = new AbortController();
    controllers.current.add(controller);
    void task(controller.signal)
      .catch((error: unknown) => { if (!controller.signal.aborted) failed(error); })
      .finally(() => controllers.current.delete(controller));
  }, []);

  return { tracks, set, launch };
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => { clearTimeout(timer); reject(signal.reason); }, { once: true });
  });
}
