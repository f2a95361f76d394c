// Run now, followed to its outcome. POST /feeds/<key>/run answers a job run, not the run record the feed writes when
// it ends, so the outcome is found by polling the feed's history for a run newer than the newest before the start.
// A 409 (a run of the feed is queued or running already, e.g. the schedule's) is said, and that run is followed the
// same way. Then the feeds, their histories and the Overview's counts are read again.
import { useCallback, useEffect, useRef, useState } from 'react';
import { ApiError, apiFetch } from '@quad/web/sdk';
import { feedPath, useFeedsBase, useRefresh, type History, type HistoryRun } from './common.js';

export const POLL_MS = 1000;
export const GIVE_UP_MS = 2 * 60_000;

export type Track =
  | { phase: 'running' }
  /** 409 job_running: another run of the feed is queued or running; followed like ours. */
  | { phase: 'busy' }
  | { phase: 'done'; run: HistoryRun }
  | { phase: 'refused'; error: unknown }
  /** No run record after GIVE_UP_MS. */
  | { phase: 'lost' };

export interface FeedRuns {
  tracks: Record<string, Track>;
  start(key: string, postExisting: boolean): void;
  dismiss(key: string): void;
}

export function useFeedRuns(): FeedRuns {
  const base = useFeedsBase();
  const refresh = useRefresh();
  const [tracks, setTracks] = useState<Record<string, Track>>({});
  const controllers = useRef(new Set<AbortController>());
  // Leaving the page stops the polls (the runs go on; they are in the history).
  useEffect(() => () => controllers.current.forEach((c) => c.abort()), []);

  const set = (key: string, track: Track | null) => setTracks((all) => {
    const { [key]: _, ...rest } = all;
    return track ? { ...rest, [key]: track } : rest;
  });

  const start = useCallback((key: string, postExisting: boolean) => {
    const controller = new AbortController();
    controllers.current.add(controller);
    const { signal } = controller;
    set(key, { phase: 'running' });
    const history = () => apiFetch<History>(`${feedPath(base, key)}/history`, { signal });
    void (async () => {
      const since = (await history()).runs[0]?.id ?? 0;
      try {
        await apiFetch(`${feedPath(base, key)}/run`, { method: 'POST', body: { post_existing: postExisting }, signal });
      } catch (error) {
        if (!(error instanceof ApiError && error.status === 409)) throw error;
        set(key, { phase: 'busy' });
      }
      const deadline = Date.now() + GIVE_UP_MS;
      let found: HistoryRun | null = null;
      while (!found && Date.now() < deadline) {
        await pause(POLL_MS, signal);
        // A failed poll (the network) is tried again on the next tick.
        found = (await history().catch(() => null))?.runs.find((r) => r.id > since) ?? null;
      }
      await refresh();
      set(key, found ? { phase: 'done', run: found } : { phase: 'lost' });
    })()
      .catch((error: unknown) => { if (!signal.aborted) set(key, { phase: 'refused', error }); })
      .finally(() => controllers.current.delete(controller));
  }, [base, refresh]);

  return { tracks, start, dismiss: useCallback((key: string) => set(key, null), []) };
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => { clearTimeout(timer); reject(signal.reason); }, { once: true });
  });
}
