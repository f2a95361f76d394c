// Run now, followed to its outcome. POST /feeds/<key>/run answers a job run, not the run record the feed writes when
// it ends, so the outcome is found by polling the feed's history for a run newer than the newest before the start.
// A 409 (a run of the feed is queued or running already, e.g. the schedule's) is said, and that run is followed the
// same way. Then the feeds, their histories and the Overview's counts are read again.
import { useCallback } from 'react';
import { apiFetch, followRun, useRunTracks } from '@quad/web/sdk';
import { feedPath, useFeedsBase, useRefresh, type History, type HistoryRun } from './common.js';

export type Track =
  | { phase: 'running' }
  /** 409 job_running: another run of the feed is queued or running; followed like ours. */
  | { phase: 'busy' }
  | { phase: 'done'; run: HistoryRun }
  | { phase: 'refused'; error: unknown }
  /** No run record after RUN_GIVE_UP_MS. */
  | { phase: 'lost' };

export interface FeedRuns {
  tracks: Record<string, Track>;
  start(key: string, postExisting: boolean): void;
  dismiss(key: string): void;
}

export function useFeedRuns(): FeedRuns {
  const base = useFeedsBase();
  const refresh = useRefresh();
  const { tracks, set, launch } = useRunTracks<Track>();

  const start = useCallback((key: string, postExisting: boolean) => {
    set(key, { phase: 'running' });
    launch(async (signal) => {
      const run = await followRun<HistoryRun>({
        records: async (s) => (await apiFetch<History>(`${feedPath(base, key)}/history`, { signal: s })).runs,
        start: (s) => apiFetch(`${feedPath(base, key)}/run`, { method: 'POST', body: { post_existing: postExisting }, signal: s }),
        onBusy: () => set(key, { phase: 'busy' }),
      }, signal);
      await refresh();
      set(key, run ? { phase: 'done', run } : { phase: 'lost' });
    }, (error) => set(key, { phase: 'refused', error }));
  }, [base, refresh, set, launch]);

  return { tracks, start, dismiss: useCallback((key: string) => set(key, null), [set]) };
}
