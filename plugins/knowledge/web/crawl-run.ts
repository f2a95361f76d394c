// Run now, followed to its outcome. POST /crawls/run answers a job run, not the run-log row the crawl writes when it
// ends, so the outcome is found by polling GET /runs?key= for a row of the key newer than the newest one before the
// start (row ids only grow). Then the crawls, sources and runs are read again. The Knowledge page holds the tracker,
// so a crawl started on the Crawls tab still finishes (and refreshes the lists) while another tab is shown.
import { useCallback, useEffect, useRef, useState } from 'react';
import { ApiError, apiFetch, invalidateApi } from '@quad/web/sdk';
import { useKnowledgeBase, type Run } from './common.js';

export const POLL_MS = 1000;
export const GIVE_UP_MS = 2 * 60_000;

export type Track =
  | { phase: 'crawling'; force: boolean }
  | { phase: 'done'; run: Run }
  /** 409 job_running: a crawl of the key is queued or running already. */
  | { phase: 'busy' }
  | { phase: 'refused'; error: unknown }
  /** No run-log row after GIVE_UP_MS. */
  | { phase: 'lost' };

export interface CrawlRuns {
  tracks: Record<string, Track>;
  start(key: string, force: boolean): void;
  dismiss(key: string): void;
}

export function useCrawlRuns(): CrawlRuns {
  const base = useKnowledgeBase();
  const [tracks, setTracks] = useState<Record<string, Track>>({});
  const controllers = useRef(new Set<AbortController>());
  // Leaving the page stops the polls (the crawls go on; their rows are in the run log).
  useEffect(() => () => controllers.current.forEach((c) => c.abort()), []);

  const set = (key: string, track: Track | null) => setTracks((all) => {
    const { [key]: _, ...rest } = all;
    return track ? { ...rest, [key]: track } : rest;
  });

  const start = useCallback((key: string, force: boolean) => {
    const controller = new AbortController();
    controllers.current.add(controller);
    set(key, { phase: 'crawling', force });
    void follow(base, key, force, controller.signal)
      .then((run) => set(key, run ? { phase: 'done', run } : { phase: 'lost' }))
      .catch((error: unknown) => {
        if (!controller.signal.aborted) set(key, error instanceof ApiError && error.status === 409 ? { phase: 'busy' } : { phase: 'refused', error });
      })
      .finally(() => controllers.current.delete(controller));
  }, [base]);

  return { tracks, start, dismiss: useCallback((key: string) => set(key, null), []) };
}

/** Start the crawl and wait for its run-log row (null after GIVE_UP_MS); the start's refusal is thrown. */
async function follow(base: string, key: string, force: boolean, signal: AbortSignal): Promise<Run | null> {
  const runs = (limit: number) => apiFetch<{ runs: Run[] }>(`${base}/runs?limit=${limit}&key=${encodeURIComponent(key)}`, { signal }).then((a) => a.runs);
  const since = (await runs(1))[0]?.id ?? 0;
  await apiFetch(`${base}/crawls/run`, { method: 'POST', body: { key, force }, signal });
  const deadline = Date.now() + GIVE_UP_MS;
  let found: Run | null = null;
  while (!found && Date.now() < deadline) {
    await pause(POLL_MS, signal);
    // A failed poll (the network) is tried again on the next tick.
    found = (await runs(1).catch(() => [])).find((r) => r.id > since) ?? null;
  }
  await Promise.all(['crawls', 'sources', 'runs'].map((list) => invalidateApi(`${base}/${list}`)));
  return found;
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => { clearTimeout(timer); reject(signal.reason); }, { once: true });
  });
}
