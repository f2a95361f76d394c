// Check now (POST /monitors/<id>/check): the route runs the check and answers it, so the outcome is known when the
// request ends; then the monitors, their checks and days and the Overview's counts are read again.
import { useCallback, useState } from 'react';
import { apiFetch } from '@quad/web/sdk';
import { monitorPath, useRefresh, useUptimeBase, type Check } from './common.js';

export type CheckTrack = { phase: 'running' } | { phase: 'done'; check: Check } | { phase: 'refused'; error: unknown };

export function useCheckNow() {
  const base = useUptimeBase();
  const refresh = useRefresh();
  const [tracks, setTracks] = useState<Record<number, CheckTrack>>({});
  const set = useCallback((id: number, track: CheckTrack | null) => setTracks((all) => {
    const next = { ...all };
    if (track) next[id] = track; else delete next[id];
    return next;
  }), []);
  const start = useCallback(async (id: number) => {
    set(id, { phase: 'running' });
    try {
      const check = await apiFetch<Check>(`${monitorPath(base, id)}/check`, { method: 'POST' });
      set(id, { phase: 'done', check });
      await refresh();
    } catch (error) {
      set(id, { phase: 'refused', error });
    }
  }, [base, refresh, set]);
  return { tracks, start, dismiss: useCallback((id: number) => set(id, null), [set]) };
}
