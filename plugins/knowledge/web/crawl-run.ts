// Run now, followed to its outcome. POST /crawls/run answers a job run, not the run-log row the crawl writes when it
// ends, so the outcome is found by polling GET /runs?key= for a row of the key newer than the newest one before the
// start (row ids only grow). Then the crawls, sources and runs are read again. The Knowledge page holds the tracker,
// so a crawl started on the Crawls tab still finishes (and refreshes the lists) while another tab is shown.
import { useCallback } from 'react';
import { ApiError, apiFetch, followRun, invalidateApi, useRunTracks } from '@quad/web/sdk';
import { useKnowledgeBase, type Run } from './common.js';

export type Track =
  | { phase: 'crawling'; force: boolean }
  | { phase: 'done'; run: Run }
  /** 409 job_running: a crawl of the key is queued or running already. */
  | { phase: 'busy' }
  | { phase: 'refused'; error: unknown }
  /** No run-log row after RUN_GIVE_UP_MS. */
  | { phase: 'lost' };

export interface CrawlRuns {
  tracks: Record<string, Track>;
  start(key: string, force: boolean): void;
  dismiss(key: string): void;
}

export function useCrawlRuns(): CrawlRuns {
  const base = useKnowledgeBase();
  const { tracks, set, launch } = useRunTracks<Track>();

  const start = useCallback((key: string, force: boolean) => {
    set(key, { phase: 'crawling', force });
    launch(async (signal) => {
      const run = await followRun<Run>({
        records: async (s) => (await apiFetch<{ runs: Run[] }>(`${base}/runs?limit=1&key=${encodeURIComponent(key)}`, { signal: s })).runs,
        start: (s) => apiFetch(`${base}/crawls/run`, { method: 'POST', body: { key, force }, signal: s }),
      }, signal);
      await Promise.all(['crawls', 'sources', 'runs'].map((list) => invalidateApi(`${base}/${list}`)));
      set(key, run ? { phase: 'done', run } : { phase: 'lost' });
    }, (error) => set(key, error instanceof ApiError && error.status === 409 ? { phase: 'busy' } : { phase: 'refused', error }));
  }, [base, set, launch]);

  return { tracks, start, dismiss: useCallback((key: string) => set(key, null), [set]) };
}
